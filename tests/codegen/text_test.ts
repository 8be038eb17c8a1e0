import assert from "node:assert/strict";
import fc from "fast-check";
import {
  docComment,
  ELLIPSIS,
  escapeString,
  MAX_NOTE_CHARS,
  sanitize,
  sanitizeLine,
  summarize,
  truncate,
} from "../../codegen/mod.ts";

// Reads back a literal made by escapeString, independently of it.
function unescape(literal: string): string {
  assert.ok(literal.startsWith('"') && literal.endsWith('"'));
  return literal.slice(1, -1).replace(
    /\\u\{([0-9a-f]+)\}|\\(["\\])/g,
    (_m, hex: string | undefined, char: string | undefined) =>
      hex !== undefined ? String.fromCharCode(...codeUnits(parseInt(hex, 16))) : char ?? "",
  );
}

function codeUnits(point: number): number[] {
  if (point < 0x10000) return [point];
  const offset = point - 0x10000;
  return [0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff)];
}

Deno.test("sanitize() removes what could end, reorder or hide comment text", async (t) => {
  const table: [string, string, string][] = [
    ["comment terminator", "a */ b", "a * / b"],
    ["terminator split by NUL", "a *\u0000/ b", "a * / b"],
    ["line separators", "a\u2028b\u2029c", "a b c"],
    ["CR LF and tabs", "a\r\n\tb", "a b"],
    ["bidi override and isolates", "a\u202eb\u2066c\u2069", "abc"],
    ["zero-width characters", "a\u200b\u200c\u200d\u2060\ufeffb", "ab"],
    ["Tags block", "a\u{e0041}\u{e007f}b", "ab"],
    ["C1 controls", "a\u0085b\u009bc", "a bc"],
    ["lone surrogate", "a\ud800b", "ab"],
    ["TypeScript directive", "@ts-ignore", "＠ts-ignore"],
    ["emoji kept", "ok 🚀", "ok 🚀"],
  ];
  for (const [name, input, expected] of table) {
    await t.step(name, () => assert.equal(sanitize(input), expected));
  }
});

Deno.test("sanitize() never leaves a terminator, control or separator, for any text", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const clean = sanitize(text);
      assert.ok(!clean.includes("*/"));
      assert.ok(!clean.includes("@"));
      assert.doesNotMatch(clean, /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\n]/u);
    }),
  );
});

Deno.test("sanitizeLine() keeps server text as written where a line comment allows it", async (t) => {
  const table: [string, string, string][] = [
    ["a glob with a comment terminator", "Use '**/*.ext' here", "Use '**/*.ext' here"],
    ["an at sign inside", "mail me@example.com", "mail me@example.com"],
    ["a leading directive", "@ts-nocheck all", "＠ts-nocheck all"],
    ["line separators", "a\u2028b\u2029c\nd", "a b c d"],
    ["bidi and zero-width", "a\u202eb\u200bc\u{e0041}", "abc"],
    ["C1 controls and lone surrogates", "a\u0085b\u009bc\ud800", "a bc"],
  ];
  for (const [name, input, expected] of table) {
    await t.step(name, () => assert.equal(sanitizeLine(input), expected));
  }
});

Deno.test("sanitizeLine() never leaves a line break, control or separator, for any text", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const clean = sanitizeLine(text);
      assert.ok(!clean.startsWith("@"));
      assert.doesNotMatch(clean, /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\n]/u);
    }),
  );
});

Deno.test("truncate() caps by characters and marks the cut", async (t) => {
  await t.step("short text is kept", () => assert.equal(truncate("abc", 3), "abc"));
  await t.step(
    "long text ends with the ellipsis",
    () => assert.equal(truncate("abcdef", 4), "abc…"),
  );
  await t.step("astral characters count once", () => {
    const cut = truncate("🚀".repeat(10), 4);
    assert.equal(Array.from(cut).length, 4);
    assert.ok(cut.endsWith(ELLIPSIS));
  });
  await t.step(
    "a bad cap is caller misuse",
    () => assert.throws(() => truncate("a", 0), RangeError),
  );
});

Deno.test("escapeString() emits printable ASCII only and reads back exactly", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const literal = escapeString(text);
      assert.match(literal, /^"[\x20-\x7e]*"$/);
      assert.doesNotMatch(literal, /[`$]/);
      assert.equal(unescape(literal), text);
    }),
  );
});

Deno.test("escapeString() escapes quotes, backslashes and template syntax", () => {
  assert.equal(escapeString('a"b\\c`${d}'), '"a\\"b\\\\c\\u{60}\\u{24}{d}"');
  assert.equal(escapeString("\ud800"), '"\\u{d800}"');
  assert.equal(escapeString("🚀"), '"\\u{1f680}"');
});

Deno.test("summarize() keeps one line of at most the note cap", () => {
  const summary = summarize("line one\nline two " + "x".repeat(500));
  assert.ok(!summary.includes("\n"));
  assert.equal(Array.from(summary).length, MAX_NOTE_CHARS);
});

Deno.test("docComment() wraps, and every line break is the generator's", async (t) => {
  await t.step("a short paragraph stays on one line", () => {
    assert.equal(docComment(["Reads a file."], ""), "/** Reads a file. */\n");
  });
  await t.step("nothing to say writes nothing", () => assert.equal(docComment(["\u200b"], ""), ""));
  await t.step("long text wraps at the column, indented", () => {
    const doc = docComment(["word ".repeat(60), "x".repeat(200)], "  ");
    const lines = doc.trimEnd().split("\n");
    assert.equal(lines[0], "  /**");
    assert.equal(lines.at(-1), "   */");
    for (const line of lines) assert.ok(line.length <= 80, line);
    for (const line of lines.slice(1, -1)) assert.match(line, /^ {3}\*( |$)/);
  });
  await t.step("a hostile paragraph cannot close the comment early", () => {
    const doc = docComment(["*/ export const x = 1;\u2028/*"], "");
    assert.equal(doc.indexOf("*/"), doc.length - 3);
  });
});
