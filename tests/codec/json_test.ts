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
    ["an integer in exponent form past 2^53 is exact", "1e20", 10n ** 20n],
    ["an integer within 2^53 in exponent form is a number", "1e15", 1e15],
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

Deno.test("parseJson() returns an exact bigint for an integer past 2^53 however it is written", async (t) => {
  const table: [string, JsonValue][] = [
    ["9007199254740993.0", 9007199254740993n],
    ["9007199254740993.000", 9007199254740993n],
    ["9007199254740993e0", 9007199254740993n],
    ["9007199254740993E+0", 9007199254740993n],
    ["-9007199254740993.0", -9007199254740993n],
    ["12345678901234567891e1", 123456789012345678910n],
    ["1.2345678901234567891e20", 123456789012345678910n],
    ["90071992547409930e-1", 9007199254740993n],
    ["9007199254740993000e-3", 9007199254740993n],
    ["1e300", 10n ** 300n],
  ];
  for (const [text, expected] of table) {
    await t.step(text, () => assert.deepStrictEqual(parsed(`[${text}]`), [expected]));
  }
});

Deno.test("parseJson() keeps a number whose source is not an integer a double", async (t) => {
  const table: [string, number][] = [
    ["9007199254740993.5", 9007199254740993.5],
    ["90071992547409935e-1", 9007199254740993.5],
    ["12345678901234567890.5", 12345678901234567890.5],
    ["9007199254740991.9999", 9007199254740991.9999],
  ];
  for (const [text, expected] of table) {
    await t.step(text, () => assert.deepStrictEqual(parsed(`[${text}]`), [expected]));
  }
});

Deno.test("parseJson() reads an integer's exact value from any decimal form of it", () => {
  const big = fc.bigInt({ min: 2n ** 53n, max: 2n ** 200n });
  fc.assert(
    fc.property(big, fc.boolean(), fc.nat(6), (value, negative, shift) => {
      const digits = `${value}`;
      const exact = negative ? -value : value;
      const sign = negative ? "-" : "";
      const point = digits.length - Math.min(shift, digits.length - 1);
      const forms = [
        `${sign}${digits}.${"0".repeat(shift + 1)}`,
        `${sign}${digits}${"0".repeat(shift)}e-${shift}`,
        `${sign}${digits.slice(0, point)}.${digits.slice(point) || "0"}e${digits.length - point}`,
      ];
      for (const form of forms) assert.deepStrictEqual(parsed(form), exact, form);
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("parseJson() locates a fault by its own scan, never by text the input wrote", async (t) => {
  const table: [string, number][] = [
    ["xposition 99", 0],
    ['["position 1", x]', 15],
    ["[1,2,3] position 7777777", 8],
    ['{"a":1} in JSON at position 3 (line 1 column 4)', 8],
  ];
  for (const [text, offset] of table) {
    await t.step(JSON.stringify(text), () => {
      const result = parseJson(text);
      assert.ok(!result.ok && result.error.kind === "syntax");
      assert.equal(result.error.offset, offset, result.error.message);
      assert.match(result.error.message, new RegExp(`^Cannot parse JSON at offset ${offset}: `));
    });
  }
});

Deno.test("parseJson() says a syntax fault without raw input, bounded", async (t) => {
  const table: [string, string][] = [
    ["an escape sequence", "\u001b]0;owned\u0007\u001b[2K\rforged"],
    ["a bidi override and a line separator", "\u202e\u2028x"],
    ["a long run of garbage", "x".repeat(1 << 20)],
    ["garbage after a long string", `["${"a".repeat(1 << 20)}" \u001b]`],
  ];
  for (const [name, text] of table) {
    await t.step(name, () => {
      const result = parseJson(text);
      assert.ok(!result.ok && result.error.kind === "syntax");
      assert.doesNotMatch(result.error.message, /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
      assert.ok(result.error.message.length < 200, `${result.error.message.length} characters`);
    });
  }
  await t.step("the parser's own words are kept, without its position", () => {
    const result = parseJson('{"a":1 "b":2}');
    assert.ok(!result.ok);
    assert.equal(
      result.error.message,
      "Cannot parse JSON at offset 7: Expected ',' or '}' after property value",
    );
  });
  await t.step("an unexpected character is quoted", () => {
    const result = parseJson("\u001b]0;owned");
    assert.ok(!result.ok);
    assert.equal(result.error.message, 'Cannot parse JSON at offset 0: Unexpected token "\\u001b"');
  });
});
