import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeUtf8, encodeUtf8 } from "../../codec/_utf8.ts";
import { RUNS } from "./_helpers.ts";

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

Deno.test("decodeUtf8() decodes what a fatal decoder decodes and refuses what it refuses", async (t) => {
  await t.step("a real U+FFFD is text, not a fault", () => {
    const text = "a \uFFFD b — 😀";
    assert.equal(decodeUtf8(new TextEncoder().encode(text)), text);
  });
  await t.step("bytes that are not UTF-8 are undefined", () => {
    assert.equal(decodeUtf8(new Uint8Array([0x7b, 0xff, 0x7d])), undefined);
    assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbf, 0xbd, 0xc3])), undefined);
  });
  await t.step("any bytes: the same answer as the fatal decoder", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        let expected: string | undefined;
        try {
          expected = fatal.decode(bytes);
        } catch {
          expected = undefined;
        }
        assert.equal(decodeUtf8(bytes), expected);
      }),
      { numRuns: RUNS },
    );
  });
});
