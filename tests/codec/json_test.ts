import assert from "node:assert/strict";
import fc from "fast-check";
import {
  isJsonObject,
  type JsonValue,
  MAX_JSON_DEPTH,
  parseJson,
  stringifyJson,
} from "../../codec/mod.ts";
import { syntaxErrorOffset } from "../../codec/_syntax.ts";
import { anyString, bare, jsonValue, nestedArrays, record, RUNS } from "./_helpers.ts";

function parsed(text: string): JsonValue {
  const result = parseJson(text);
  if (!result.ok) throw new assert.AssertionError({ message: result.error.message });
  return result.value;
}

function faultKind(text: string): string {
  const result = parseJson(text);
  assert.equal(result.ok, false, `expected a fault for ${JSON.stringify(text.slice(0, 40))}`);
  return result.ok ? "" : result.error.kind;
}

function assertPrototypeFree(value: JsonValue): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    assert.equal(Object.getPrototypeOf(value), Array.prototype);
    value.forEach(assertPrototypeFree);
    return;
  }
  assert.equal(Object.getPrototypeOf(value), null);
  for (const key of Object.keys(value)) assertPrototypeFree(value[key] as JsonValue);
}

Deno.test("parseJson() accepts and refuses hostile texts as a table says", async (t) => {
  const accepted: [string, string, JsonValue][] = [
    ["2^53 - 1 stays a number", "9007199254740991", 9007199254740991],
    ["-(2^53 - 1) stays a number", "-9007199254740991", -9007199254740991],
    ["2^53 is a bigint", "9007199254740992", 9007199254740992n],
    ["2^53 + 1 is exact", "9007199254740993", 9007199254740993n],
    ["-(2^53 + 1) is exact", "-9007199254740993", -9007199254740993n],
    ["2^64 is exact", "18446744073709551616", 18446744073709551616n],
    ["-2^63 - 1 is exact", "-9223372036854775809", -9223372036854775809n],
    ["a 300-digit integer is exact", "9".repeat(300), BigInt("9".repeat(300))],
    ["an integer in exponent form stays a double", "1e20", 1e20],
    ["a fraction past 2^53 stays a double", "12345678901234567890.5", 12345678901234567890.5],
    ["-0 is a number", "-0", -0],
    ["a tiny double", "5e-324", 5e-324],
    ["surrounding JSON whitespace", " \t\r\n 1 \n", 1],
    ["escaped lone high surrogate", '"\\ud800"', "\ud800"],
    ["escaped lone low surrogate", '"\\udc00x"', "\udc00x"],
    ["raw lone surrogate in the text", '"\ud800"', "\ud800"],
    ["line and paragraph separators", '"\u2028\u2029"', "\u2028\u2029"],
    ["duplicate keys: the last wins", '{"a":1,"a":2}', record([["a", 2]])],
    ["empty object", "{}", record([])],
    ["id 0", '{"id":0}', record([["id", 0]])],
  ];
  for (const [name, text, expected] of accepted) {
    await t.step(`accepts ${name}`, () => assert.deepStrictEqual(parsed(text), expected));
  }
  const refused: [string, string, string][] = [
    ["empty text", "", "syntax"],
    ["whitespace only", " \n", "syntax"],
    ["a byte order mark", "\ufeff{}", "syntax"],
    ["trailing garbage", "{} x", "syntax"],
    ["two values", "1 2", "syntax"],
    ["a trailing comma", "[1,]", "syntax"],
    ["single quotes", "{'a':1}", "syntax"],
    ["NaN", "NaN", "syntax"],
    ["Infinity", "Infinity", "syntax"],
    ["a leading plus", "+1", "syntax"],
    ["leading zeros", "01", "syntax"],
    ["a raw control character in a string", '"a\u0001"', "syntax"],
    ["an invalid escape", '"\\x41"', "syntax"],
    ["an unterminated string", '"abc', "syntax"],
    ["1e400", "1e400", "number_out_of_range"],
    ["-1e400", "-1e400", "number_out_of_range"],
    ["1e400 deep inside", '{"a":[1,{"b":1e400}]}', "number_out_of_range"],
    ["an integer past the range of a double", "1" + "0".repeat(400), "number_out_of_range"],
    [
      "a negative integer past the range of a double",
      "-1" + "0".repeat(400),
      "number_out_of_range",
    ],
  ];
  for (const [name, text, kind] of refused) {
    await t.step(`refuses ${name} as ${kind}`, () => assert.equal(faultKind(text), kind));
  }
});

Deno.test("parseJson() reports the offset where a text breaks the grammar", async (t) => {
  // V8 names a position for some faults only; the others are located by a scan.
  const cases: [string, number][] = [
    ['{"a":}', 5],
    ["\ufeff{}", 0],
    ["[1,]", 3],
    ["+1", 0],
    ["NaN", 0],
    ["{} x", 3],
    ['{"a" 1}', 5],
    ["nul", 3],
    ["nuLl", 2],
    ["", 0],
  ];
  for (const [text, offset] of cases) {
    await t.step(JSON.stringify(text), () => {
      const result = parseJson(text);
      assert.ok(!result.ok && result.error.kind === "syntax");
      assert.equal(result.error.offset, offset, result.error.message);
    });
  }
});

Deno.test("parseJson() bounds nesting at MAX_JSON_DEPTH", async (t) => {
  const deepObject = (depth: number) => '{"a":'.repeat(depth) + "0" + "}".repeat(depth);
  await t.step("accepts arrays exactly MAX_JSON_DEPTH deep", () => {
    assert.equal(parseJson(nestedArrays(MAX_JSON_DEPTH)).ok, true);
  });
  await t.step("refuses arrays one deeper", () => {
    assert.equal(faultKind(nestedArrays(MAX_JSON_DEPTH + 1)), "too_deep");
  });
  await t.step("accepts objects exactly MAX_JSON_DEPTH deep, all prototype-free", () => {
    const value = parsed(deepObject(MAX_JSON_DEPTH));
    assertPrototypeFree(value);
  });
  await t.step("refuses objects one deeper", () => {
    assert.equal(faultKind(deepObject(MAX_JSON_DEPTH + 1)), "too_deep");
  });
  await t.step("accepts a bigint exactly MAX_JSON_DEPTH deep (the exact pass)", () => {
    let value = parsed(nestedArrays(MAX_JSON_DEPTH, "9007199254740993"));
    for (let depth = 0; depth < MAX_JSON_DEPTH; depth++) {
      assert.ok(Array.isArray(value));
      value = value[0] as JsonValue;
    }
    assert.equal(value, 9007199254740993n);
  });
  await t.step("refuses a bigint one deeper before any recursive pass", () => {
    assert.equal(faultKind(nestedArrays(MAX_JSON_DEPTH + 1, "9007199254740993")), "too_deep");
  });
  await t.step("refuses a million open brackets without throwing", () => {
    assert.equal(parseJson("[".repeat(1_000_000)).ok, false);
  });
  await t.step("refuses a hundred thousand nested arrays without throwing", () => {
    assert.equal(faultKind(nestedArrays(100_000)), "too_deep");
  });
});

Deno.test("parseJson() keeps __proto__ an own property and objects prototype-free", async (t) => {
  const texts = [
    '{"__proto__":{"polluted":true}}',
    '{"a":[{"__proto__":{"polluted":true}}]}',
    '{"__proto__":{"polluted":true},"n":9007199254740993}',
    '{"__proto__":1,"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
  ];
  for (const text of texts) {
    await t.step(text, () => {
      const value = parsed(text);
      assertPrototypeFree(value);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
    });
  }
  await t.step("the __proto__ key holds the parsed value", () => {
    const value = parsed('{"__proto__":{"polluted":true}}');
    assert.ok(isJsonObject(value));
    assert.deepStrictEqual(Object.keys(value), ["__proto__"]);
    assert.deepStrictEqual(
      Object.getOwnPropertyDescriptor(value, "__proto__")?.value,
      record([["polluted", true]]),
    );
  });
});

Deno.test("stringifyJson() renders and refuses values as a table says", async (t) => {
  const rendered: [string, JsonValue, string][] = [
    ["a bigint past 2^64", { n: 2n ** 64n }, '{"n":18446744073709551616}'],
    ["a negative bigint", [-(2n ** 63n) - 1n], "[-9223372036854775809]"],
    ["a double holding 2^64, exactly", 2 ** 64, "18446744073709551616"],
    ["a double holding -2^60 inside an object", { a: -(2 ** 60) }, '{"a":-1152921504606846976}'],
    ["-0 as 0", -0, "0"],
    ["a newline, escaped", "a\nb", '"a\\nb"'],
    ["a lone surrogate, escaped", "\ud800", '"\\ud800"'],
    ["an undefined property, left out", { a: undefined, b: 1 } as unknown as JsonValue, '{"b":1}'],
    ["a __proto__ own key", record([["__proto__", 1]]), '{"__proto__":1}'],
    ["id 0", { id: 0 }, '{"id":0}'],
  ];
  for (const [name, value, text] of rendered) {
    await t.step(
      `renders ${name}`,
      () => assert.deepStrictEqual(stringifyJson(value), { ok: true, value: text }),
    );
  }
  const cycle: JsonValue[] = [];
  cycle.push(cycle);
  const refused: [string, unknown, string][] = [
    ["NaN", { a: [NaN] }, "not_representable"],
    ["Infinity", Infinity, "not_representable"],
    ["-Infinity", [-Infinity], "not_representable"],
    ["a function", { f: () => 1 }, "not_representable"],
    ["a symbol", [Symbol("s")], "not_representable"],
    ["undefined in an array", [undefined], "not_representable"],
    ["a cycle", cycle, "too_deep"],
    ["nesting one past MAX_JSON_DEPTH", JSON.parse(nestedArrays(MAX_JSON_DEPTH + 1)), "too_deep"],
  ];
  for (const [name, value, kind] of refused) {
    await t.step(`refuses ${name}`, () => {
      const result = stringifyJson(value as JsonValue);
      assert.equal(result.ok ? "ok" : result.error.kind, kind);
    });
  }
  await t.step("names the path of a value it refuses", () => {
    const result = stringifyJson({ a: [1, NaN] });
    assert.ok(!result.ok && result.error.kind === "not_representable");
    assert.equal(result.error.path, "$.a[1]");
  });
  await t.step("accepts nesting exactly MAX_JSON_DEPTH deep", () => {
    assert.equal(stringifyJson(JSON.parse(nestedArrays(MAX_JSON_DEPTH))).ok, true);
  });
});

Deno.test("parseJson() never throws on arbitrary text", () => {
  fc.assert(
    fc.property(
      fc.oneof(anyString, fc.json({ maxDepth: 3 }), fc.string({ maxLength: 40 })),
      (text) => {
        const result = parseJson(text);
        assert.equal(typeof result.ok, "boolean");
      },
    ),
    { numRuns: RUNS },
  );
});

Deno.test("parseJson() inverts stringifyJson() on arbitrary JSON values", () => {
  fc.assert(
    fc.property(jsonValue, (value) => {
      const text = stringifyJson(value);
      assert.ok(text.ok);
      assert.ok(!text.value.includes("\n"));
      const back = parseJson(text.value);
      assert.ok(back.ok);
      assert.deepStrictEqual(back.value, bare(value));
    }),
    { numRuns: RUNS },
  );
});

Deno.test("the syntax scan agrees with every position the built-in parser names", () => {
  const damage = fc.constantFrom(
    "",
    "}",
    "]",
    ",",
    ":",
    '"',
    "\\",
    "x",
    "-",
    ".",
    "e",
    " ",
    "\u0001",
    "0",
    "tru",
    "{",
    "[",
  );
  const nearJson = fc.json({ maxDepth: 2 }).chain((text) =>
    fc.tuple(fc.nat(text.length), damage).map(([at, insert]) =>
      text.slice(0, at) + insert + text.slice(at + (insert.length % 2))
    )
  );
  fc.assert(
    fc.property(nearJson, (text) => {
      let message: string;
      try {
        JSON.parse(text);
        return;
      } catch (error) {
        message = (error as Error).message;
      }
      const offset = syntaxErrorOffset(text);
      assert.ok(offset >= 0 && offset <= text.length);
      const named = /position (\d+)/.exec(message)?.[1];
      if (named !== undefined) assert.equal(offset, Number(named), message);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("parseJson() with keepPrototypes leaves objects plain, a __proto__ key still own", () => {
  const parsed = parseJson('{"a":{"__proto__":{"polluted":true}},"n":12345678901234567890}', {
    keepPrototypes: true,
  });
  assert.ok(parsed.ok);
  const value = parsed.value as { a: object; n: bigint };
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal(Object.getPrototypeOf(value.a), Object.prototype);
  assert.ok(Object.hasOwn(value.a, "__proto__"));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(value.n, 12345678901234567890n);
});
