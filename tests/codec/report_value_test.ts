import assert from "node:assert/strict";
import fc from "fast-check";
import {
  MAX_REPORT_DEPTH,
  reportJson,
  reportValue,
  UNREPRESENTABLE_KEY,
} from "../../codec/report_value.ts";
import { UNREPRESENTABLE } from "../../runner/sandbox/tags.ts";

const marker = (what: string) => ({ [UNREPRESENTABLE_KEY]: what });

Deno.test("reportValue() shows what JSON cannot carry as a marker naming it", async (t) => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const cases: [string, unknown, unknown][] = [
    ["a Map", new Map([[1, 2]]), marker("instance of Map")],
    ["NaN", NaN, marker("number NaN")],
    ["a named function", function named() {}, marker("function named")],
    ["a symbol", Symbol("s"), marker("symbol s")],
    ["a cycle", cyclic, { a: 1, self: marker("cycle: a reference to an enclosing value") }],
    ["an undefined item", [1, undefined], [1, marker("undefined")]],
    ["an undefined property", { a: undefined, b: 2 }, { b: 2 }],
    ["symbol keys", { [Symbol("k")]: 1 }, marker("object with symbol keys")],
    ["a bigint", 2n ** 64n, 2n ** 64n],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(name, () => assert.deepEqual(reportValue(value), expected));
  }
});

Deno.test("reportValue() shows a throwing getter as unreadable, never throws", () => {
  const value = {
    get boom(): never {
      throw new Error("no");
    },
  };
  assert.deepEqual(reportValue(value), { boom: marker("unreadable: no") });
  fc.assert(fc.property(fc.anything(), (anything) => {
    reportValue(anything);
    reportJson(anything);
  }));
});

Deno.test("reportJson() keeps a bigint's digits exact", () => {
  assert.equal(reportJson({ n: 2n ** 64n, s: "x" }), '{"n":18446744073709551616,"s":"x"}');
  assert.equal(reportJson(undefined), "null");
});

Deno.test("the sandbox's marker key is the codec's (the sandbox imports nothing outside itself)", () => {
  assert.equal(UNREPRESENTABLE, UNREPRESENTABLE_KEY);
});

Deno.test("reportValue() shows nesting past MAX_REPORT_DEPTH as a marker, whatever the depth", () => {
  for (const depth of [MAX_REPORT_DEPTH, MAX_REPORT_DEPTH + 1, 100_000]) {
    let value: unknown = 1;
    for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value };
    let shown = reportValue(value);
    let levels = 0;
    while (typeof shown === "object" && shown !== null && !("$unrepresentable" in shown)) {
      shown = Array.isArray(shown) ? shown[0] : (shown as { a: unknown }).a;
      levels++;
    }
    if (depth <= MAX_REPORT_DEPTH) assert.equal(shown, 1);
    else {
      assert.equal(levels, MAX_REPORT_DEPTH);
      assert.deepEqual(shown, {
        $unrepresentable: `nested deeper than ${MAX_REPORT_DEPTH} levels (MAX_REPORT_DEPTH)`,
      });
    }
  }
});

Deno.test("reportValue() shows an object met again outside its own nesting in full, not as a cycle", () => {
  const shared = { n: 1 };
  const list = [shared];
  assert.deepEqual(reportValue({ a: shared, b: [shared, list], c: list }), {
    a: { n: 1 },
    b: [{ n: 1 }, [{ n: 1 }]],
    c: [{ n: 1 }],
  });
});

Deno.test("reportValue() and reportJson() never throw, whatever reading a value throws", async (t) => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const unprintable: { toString(): never } = {
    toString() {
      throw unprintable;
    },
  };
  const table: [string, unknown, unknown][] = [
    [
      "a getter throwing an object without a prototype",
      {
        get a(): never {
          throw Object.create(null);
        },
      },
      { a: marker("unreadable: (unprintable)") },
    ],
    [
      "a getter throwing what throws when printed",
      {
        get a(): never {
          throw unprintable;
        },
      },
      { a: marker("unreadable: (unprintable)") },
    ],
    ["a revoked Proxy in an array", [revoked.proxy], undefined],
    ["a revoked Proxy alone", revoked.proxy, undefined],
    [
      "a Proxy whose ownKeys trap throws",
      new Proxy({}, {
        ownKeys() {
          throw new Error("trap");
        },
      }),
      marker("unreadable: trap"),
    ],
    [
      "an array whose item getter throws",
      new Proxy([1, 2], {
        get: (target, key) => {
          if (key === "1") throw new Error("item");
          return Reflect.get(target, key);
        },
      }),
      [1, marker("unreadable: item")],
    ],
    [
      "a function whose name getter throws",
      Object.defineProperty(() => 1, "name", {
        get() {
          throw new Error("name");
        },
      }),
      marker("unreadable: name"),
    ],
    [
      "a class instance whose constructor getter throws",
      Object.create(
        Object.create(Object.prototype, {
          constructor: {
            get() {
              throw new Error("ctor");
            },
          },
        }),
      ),
      marker("instance of an anonymous class"),
    ],
  ];
  for (const [name, value, expected] of table) {
    await t.step(name, () => {
      const shown = reportValue(value);
      if (expected !== undefined) assert.deepEqual(shown, expected);
      assert.match(reportJson(value), /unreadable|anonymous/);
    });
  }
});
