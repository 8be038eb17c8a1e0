import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeUtf8 } from "../../codec/_utf8.ts";

const encoder = new TextEncoder();

Deno.test("encodeUtf8 agrees with TextEncoder on long ASCII, mixed and astral text", () => {
  const cases = [
    "x".repeat(100_000),
    "é".repeat(50_000),
    "x".repeat(5_000) + "日本語".repeat(3_000),
    "a".repeat(4_095) + "😀".repeat(2_000),
    // Lone surrogates become U+FFFD in both.
    "x".repeat(5_000) + "\ud800" + "y".repeat(10) + "\udc00",
    "",
    "short é",
  ];
  for (const text of cases) assert.deepStrictEqual(encodeUtf8(text), encoder.encode(text));
});

Deno.test("encodeUtf8 agrees with TextEncoder on any string (property)", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.integer({ min: 0, max: 9_000 }),
      (tail, padding) => {
        const text = "p".repeat(padding) + tail;
        assert.deepStrictEqual(encodeUtf8(text), encoder.encode(text));
      },
    ),
    { numRuns: 2_000 },
  );
});
