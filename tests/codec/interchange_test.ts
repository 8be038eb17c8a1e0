import assert from "node:assert/strict";
import fc from "fast-check";
import {
  fromJson,
  type InterchangeFault,
  type JsonValue,
  MAX_INTERCHANGE_INTEGER,
  MAX_JSON_DEPTH,
  MIN_INTERCHANGE_INTEGER,
  parseJson,
  stringifyJson,
  toJson,
} from "../../codec/mod.ts";
import { bare, jsonValue, record, RUNS } from "./_helpers.ts";

function refusal(value: unknown): InterchangeFault {
  const result = toJson(value);
  if (result.ok) {
    throw new assert.AssertionError({ message: "expected toJson() to refuse the value" });
  }
  return result.error;
}

function nested(depth: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

class Point {
  x = 1;
}

Deno.test("toJson() refuses what DESIGN.md lists, naming the path", async (t) => {
  const cycle: Record<string, unknown> = { a: { b: [] as unknown[] } };
  (cycle.a as { b: unknown[] }).b.push(cycle);
  // JSON.parse makes __proto__ an own key; reading it back reads that key.
  const protoHolder = JSON.parse('{"__proto__":{}}');
  protoHolder["__proto__"].m = new Map();
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  const cases: [string, unknown, InterchangeFault["kind"], string][] = [
    ["a Uint8Array", { a: [0, 1, 2, new Uint8Array(1)] }, "unsupported_value", "$.a[3]"],
    ["an ArrayBuffer", { a: [{ b: new ArrayBuffer(1) }] }, "unsupported_value", "$.a[0].b"],
    ["a DataView", [new DataView(new ArrayBuffer(1))], "unsupported_value", "$[0]"],
    ["a Map", { m: new Map() }, "unsupported_value", "$.m"],
    ["a Set", { s: new Set([1]) }, "unsupported_value", "$.s"],
    ["a Date", { when: new Date(0) }, "unsupported_value", "$.when"],
    ["a RegExp", /x/, "unsupported_value", "$"],
    ["an Error", { e: new Error("x") }, "unsupported_value", "$.e"],
    ["a Promise", { p: Promise.resolve(1) }, "unsupported_value", "$.p"],
    ["a boxed string", { s: new String("x") }, "unsupported_value", "$.s"],
    ["a function", { f: () => 1 }, "unsupported_value", "$.f"],
    ["a class", { c: Point }, "unsupported_value", "$.c"],
    ["a symbol", [Symbol("s")], "unsupported_value", "$[0]"],
    ["a class instance", { p: new Point() }, "unsupported_value", "$.p"],
    [
      "an object inheriting from a plain object",
      { o: Object.create({ a: 1 }) },
      "unsupported_value",
      "$.o",
    ],
    ["an array subclass", { a: new (class extends Array {})() }, "unsupported_value", "$.a"],
    ["symbol keys", { o: { [Symbol("k")]: 1 } }, "unsupported_value", "$.o"],
    ["a cycle", cycle, "cycle", "$.a.b[0]"],
    ["NaN", { a: [1, { b: NaN }] }, "not_finite", "$.a[1].b"],
    ["Infinity", { x: Infinity }, "not_finite", "$.x"],
    ["-Infinity", [-Infinity], "not_finite", "$[0]"],
    ["an undefined array element", { a: [1, undefined] }, "undefined_value", "$.a[1]"],
    ["a hole in a sparse array", { a: [1, , 3] }, "undefined_value", "$.a[1]"],
    ["undefined at the top", undefined, "undefined_value", "$"],
    [
      "nesting one past MAX_JSON_DEPTH",
      nested(MAX_JSON_DEPTH + 1),
      "too_deep",
      "$" + "[0]".repeat(MAX_JSON_DEPTH),
    ],
    ["-2^63 - 1", { n: MIN_INTERCHANGE_INTEGER - 1n }, "integer_out_of_range", "$.n"],
    ["2^64", { n: MAX_INTERCHANGE_INTEGER + 1n }, "integer_out_of_range", "$.n"],
    ["2^64 as a double", { n: 2 ** 64 }, "integer_out_of_range", "$.n"],
    ["1e300 as a double", [1e300], "integer_out_of_range", "$[0]"],
    ["-2^64 as a double", [-(2 ** 64)], "integer_out_of_range", "$[0]"],
    ["a key that is not an identifier", { "a b": { "0": NaN } }, "not_finite", '$["a b"]["0"]'],
    ["a Map under an own __proto__ key", protoHolder, "unsupported_value", "$.__proto__.m"],
  ];
  for (const [name, value, kind, path] of cases) {
    await t.step(name, () => {
      const fault = refusal(value);
      assert.equal(fault.kind, kind, fault.message);
      assert.equal(fault.path, path, fault.message);
      assert.ok(fault.message.includes(path), fault.message);
      assert.match(fault.message, /^Cannot pass /);
    });
  }
  await t.step("a revoked Proxy", () => {
    const fault = refusal({ a: [revocable.proxy] });
    assert.equal(fault.kind, "unreadable");
    assert.equal(fault.path, "$.a[0]");
  });
});

Deno.test("toJson() never throws for getters and Proxy traps that throw", async (t) => {
  const boom = (): never => {
    throw new Error("boom");
  };
  const cases: [string, unknown, string][] = [
    ["a getter", {
      a: [0, {
        get b() {
          return boom();
        },
      }],
    }, "$.a[1].b"],
    ["a getter at the top", {
      get x() {
        return boom();
      },
    }, "$.x"],
    ["a get trap", { p: new Proxy({ k: 1 }, { get: boom }) }, "$.p.k"],
    ["an ownKeys trap", { p: new Proxy({}, { ownKeys: boom }) }, "$.p"],
    ["a getPrototypeOf trap", [new Proxy({}, { getPrototypeOf: boom })], "$[0]"],
    ["an array get trap", {
      a: new Proxy([1, 2], {
        get: (target, key) => key === "1" ? boom() : Reflect.get(target, key),
      }),
    }, "$.a[1]"],
    ["a getter throwing a non-Error", {
      get x() {
        throw "text";
      },
    }, "$.x"],
  ];
  for (const [name, value, path] of cases) {
    await t.step(name, () => {
      const fault = refusal(value);
      assert.equal(fault.kind, "unreadable");
      assert.equal(fault.path, path, fault.message);
    });
  }
  await t.step("a Proxy of a plain object converts to a plain copy", () => {
    const result = toJson({ p: new Proxy({ a: 1, b: [2] }, {}) });
    assert.ok(result.ok);
    assert.deepStrictEqual(result.value, record([["p", record([["a", 1], ["b", [2]]])]]));
  });
  await t.step("a getter that works is read once", () => {
    let reads = 0;
    const result = toJson({
      get n() {
        reads++;
        return 5;
      },
    });
    assert.deepStrictEqual(result, { ok: true, value: record([["n", 5]]) });
    assert.equal(reads, 1);
  });
});

Deno.test("toJson() accepts integers exactly at the bounds", async (t) => {
  const cases: [string, unknown, JsonValue][] = [
    ["-2^63", MIN_INTERCHANGE_INTEGER, -(2n ** 63n)],
    ["2^64 - 1", MAX_INTERCHANGE_INTEGER, 2n ** 64n - 1n],
    ["-2^63 as a double", -(2 ** 63), -(2n ** 63n)],
    ["2^63 as a double", 2 ** 63, 2n ** 63n],
    ["a safe bigint, as a number", 5n, 5],
    ["-(2^53 - 1) as a bigint", -(2n ** 53n - 1n), -(2 ** 53 - 1)],
    ["2^53 as a bigint stays a bigint", 2n ** 53n, 2n ** 53n],
    ["a fraction", 0.5, 0.5],
    ["the largest double below 2^53 with a fraction", 2 ** 52 + 0.5, 2 ** 52 + 0.5],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(name, () => assert.deepStrictEqual(toJson(value), { ok: true, value: expected }));
  }
  assert.equal(MIN_INTERCHANGE_INTEGER, -(2n ** 63n));
  assert.equal(MAX_INTERCHANGE_INTEGER, 2n ** 64n - 1n);
});

Deno.test("toJson() drops undefined properties and builds prototype-free objects", async (t) => {
  await t.step("an undefined property is an absent property", () => {
    const result = toJson({ a: undefined, b: { c: undefined }, d: 1 });
    assert.deepStrictEqual(result, { ok: true, value: record([["b", record([])], ["d", 1]]) });
  });
  await t.step("accepts exactly MAX_JSON_DEPTH levels of nesting", () => {
    assert.equal(toJson(nested(MAX_JSON_DEPTH)).ok, true);
  });
  await t.step("accepts a shared (not cyclic) object twice", () => {
    const shared = { x: 1 };
    assert.equal(toJson({ a: shared, b: [shared, shared] }).ok, true);
  });
  await t.step("accepts an object without a prototype", () => {
    const object = Object.create(null);
    object.a = 1;
    assert.deepStrictEqual(toJson(object), { ok: true, value: record([["a", 1]]) });
  });
  await t.step("ignores non-enumerable properties", () => {
    const object = Object.defineProperty({ a: 1 }, "hidden", {
      value: new Map(),
      enumerable: false,
    });
    assert.deepStrictEqual(toJson(object), { ok: true, value: record([["a", 1]]) });
  });
});

Deno.test("__proto__ keys cross both ways as own properties, never prototypes", async (t) => {
  const text = '{"__proto__":{"polluted":true},"list":[{"__proto__":{"polluted":true}}]}';
  const parsed = parseJson(text);
  assert.ok(parsed.ok);
  await t.step("fromJson() makes plain objects with an own __proto__ key", () => {
    const value = fromJson(parsed.value) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.ok(Object.hasOwn(value, "__proto__"));
    assert.equal((value as { polluted?: unknown }).polluted, undefined);
    const inner = (value.list as Record<string, unknown>[])[0];
    assert.ok(inner !== undefined && Object.hasOwn(inner, "__proto__"));
    assert.equal(Object.getPrototypeOf(inner), Object.prototype);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  });
  await t.step("toJson() keeps it an own key of a prototype-free object", () => {
    const back = toJson(fromJson(parsed.value));
    assert.ok(back.ok);
    assert.equal(Object.getPrototypeOf(back.value), null);
    assert.deepStrictEqual(back.value, parsed.value);
  });
  await t.step("the round trip renders the same text", () => {
    const back = toJson(fromJson(parsed.value));
    assert.ok(back.ok);
    assert.deepStrictEqual(stringifyJson(back.value), { ok: true, value: text });
  });
});

Deno.test("fromJson() returns plain values with exact bigints", () => {
  const value = parseJson('{"n":18446744073709551615,"a":[1,{"b":null}]}');
  assert.ok(value.ok);
  assert.deepStrictEqual(fromJson(value.value), { n: 18446744073709551615n, a: [1, { b: null }] });
});

Deno.test("toJson() never throws on arbitrary program values", () => {
  const value = fc.anything({
    maxDepth: 3,
    maxKeys: 4,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
  });
  fc.assert(
    fc.property(fc.oneof(value, fc.bigInt(), fc.double()), (input) => {
      const result = toJson(input);
      if (result.ok) {
        assert.equal(stringifyJson(result.value).ok, true);
      } else {
        assert.match(result.error.path, /^\$/);
      }
    }),
    { numRuns: RUNS },
  );
});

Deno.test("toJson() inverts fromJson() on JSON values within the integer range", () => {
  const inRange = jsonValue.filter((value) => {
    const text = stringifyJson(value);
    return text.ok && !/\d{20}/.test(text.value) && withinInterchangeRange(value);
  });
  fc.assert(
    fc.property(inRange, (value) => {
      const expected = bare(value);
      assert.deepStrictEqual(toJson(fromJson(expected)), { ok: true, value: expected });
    }),
    { numRuns: RUNS },
  );
});

// Whether every integer of a JSON value is one the interchange carries.
function withinInterchangeRange(value: JsonValue): boolean {
  if (typeof value === "bigint") {
    return value >= MIN_INTERCHANGE_INTEGER && value <= MAX_INTERCHANGE_INTEGER;
  }
  // A double can be an integer past the range in as few as 19 digits
  // (-9223372036854777856, just below -2^63).
  if (typeof value === "number" && Number.isInteger(value)) {
    return withinInterchangeRange(BigInt(value));
  }
  if (Array.isArray(value)) return value.every(withinInterchangeRange);
  if (typeof value === "object" && value !== null) {
    return Object.values(value).every(withinInterchangeRange);
  }
  return true;
}

Deno.test("toJson() never throws, whatever a getter throws", async (t) => {
  const unprintable: { toString(): never } = {
    toString() {
      throw unprintable;
    },
  };
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const trapped = new Proxy({}, {
    getPrototypeOf() {
      throw new Error("trap");
    },
  });
  const table: [string, unknown][] = [
    ["an object whose toString throws itself", unprintable],
    ["an object without a prototype", Object.create(null)],
    ["a revoked Proxy", revoked.proxy],
    ["a Proxy whose getPrototypeOf trap throws", trapped],
    [
      "an Error whose message getter throws",
      Object.defineProperty(new Error(), "message", {
        get: () => {
          throw unprintable;
        },
      }),
    ],
    ["a symbol", Symbol("thrown")],
  ];
  for (const [name, thrown] of table) {
    await t.step(name, () => {
      const value = {
        get a(): never {
          throw thrown;
        },
      };
      const fault = refusal(value);
      assert.equal(fault.kind, "unreadable");
      assert.equal(fault.path, "$.a");
      assert.match(fault.message, /^Cannot pass the value at \$\.a as JSON: reading it threw/);
    });
  }
});

Deno.test("fromJson() refuses nesting past MAX_JSON_DEPTH with a RangeError, never a stack overflow", async (t) => {
  await t.step("MAX_JSON_DEPTH levels convert", () => {
    let value: JsonValue = 1;
    for (let level = 0; level < MAX_JSON_DEPTH; level++) value = [value];
    assert.ok(Array.isArray(fromJson(value)));
  });
  await t.step("10,000 levels are a RangeError", () => {
    let value: JsonValue = 1;
    for (let level = 0; level < 10_000; level++) value = level % 2 === 0 ? [value] : { a: value };
    assert.throws(() => fromJson(value), { name: "RangeError", message: /MAX_JSON_DEPTH/ });
  });
  await t.step("a cycle is a RangeError", () => {
    const cyclic: JsonValue[] = [];
    cyclic.push(cyclic);
    assert.throws(() => fromJson(cyclic), { name: "RangeError", message: /MAX_JSON_DEPTH/ });
  });
});
