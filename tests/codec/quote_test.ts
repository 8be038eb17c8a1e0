import assert from "node:assert/strict";
import fc from "fast-check";
import { describeValue, MAX_QUOTED_CHARS, printableLine, quote } from "../../codec/quote.ts";

Deno.test("quote() escapes what could move the cursor or fake a line", async (t) => {
  const table: [string, string, string][] = [
    ["plain text", "memory", '"memory"'],
    ["quotes and backslashes", 'a"b\\c', '"a\\"b\\\\c"'],
    ["a newline and a carriage return", "a\nb\rc", '"a\\nb\\rc"'],
    ["an escape sequence", "\x1b]0;title\x07", '"\\u001b]0;title\\u0007"'],
    ["a bidi override", "abc\u202edef", '"abc\\u{202e}def"'],
    ["a zero-width space", "a\u200bb", '"a\\u{200b}b"'],
    ["a line separator", "a\u2028b", '"a\\u{2028}b"'],
    ["a C1 control", "a\x9bb", '"a\\u{9b}b"'],
    ["printable non-ASCII kept", "café ☕", '"café ☕"'],
  ];
  for (const [name, text, expected] of table) {
    await t.step(name, () => assert.equal(quote(text), expected));
  }
});

Deno.test("quote() cuts long text by characters and marks the cut", () => {
  const long = "x".repeat(MAX_QUOTED_CHARS + 10);
  assert.equal(quote(long), `"${"x".repeat(MAX_QUOTED_CHARS)}…"`);
  assert.equal(quote("😀".repeat(5), 3), '"😀😀😀…"');
  assert.throws(() => quote("a", 0), RangeError);
});

Deno.test("quote() always yields one printable line", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const quoted = quote(text, 1000);
      assert.doesNotMatch(quoted, /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("describeValue() names containers by kind and quotes short scalars", () => {
  assert.equal(describeValue(undefined), "absent");
  assert.equal(describeValue(null), "null");
  assert.equal(describeValue(12n), "12");
  assert.equal(describeValue([1]), "an array");
  assert.equal(describeValue({ a: 1 }), "an object");
  assert.equal(describeValue("2.0"), '"2.0"');
  assert.equal(describeValue(() => 1), "a function");
});

Deno.test("printableLine() escapes line breaks and tabs too, so a field stays one line", () => {
  assert.equal(printableLine("real\r\nforged\ttab"), "real\\u{d}\\u{a}forged\\u{9}tab");
  assert.equal(printableLine("a\u2028b\u2029c\u0085d"), "a\\u{2028}b\\u{2029}c\\u{85}d");
  assert.equal(printableLine("plain text — ünïcode"), "plain text — ünïcode");
});

Deno.test("quote() reads no more of a long text than the characters it keeps", () => {
  const iterate = String.prototype[Symbol.iterator];
  let read = 0;
  // Counts the characters anything iterates out of a string while quote() runs.
  const counting = function* (this: string): Generator<string, undefined> {
    for (const point of iterate.call(this)) {
      read++;
      yield point;
    }
    return undefined;
  };
  String.prototype[Symbol.iterator] = counting as typeof iterate;
  let quoted: string;
  try {
    quoted = quote("é".repeat(1 << 20), 10);
  } finally {
    String.prototype[Symbol.iterator] = iterate;
  }
  assert.equal(quoted, `"${"é".repeat(10)}…"`);
  assert.ok(read <= 11, `${read} characters read`);
});
