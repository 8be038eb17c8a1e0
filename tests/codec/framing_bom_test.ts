// The byte order mark in framing: a line's text is its bytes decoded as
// UTF-8, less one U+FEFF at its very start, however the bytes are chunked;
// a U+FEFF anywhere else is kept.

import assert from "node:assert/strict";
import fc from "fast-check";
import { LineDecoder, LineSplitter } from "../../codec/mod.ts";
import { decodeUtf8 } from "../../codec/_utf8.ts";
import { bytes, concat, RUNS, splitAt } from "./_helpers.ts";

const BOM = "\ufeff";

/** Every line the decoder yields for `chunks`, then its end. */
function linesOf(chunks: Uint8Array[]): string[] {
  const decoder = new LineDecoder();
  const lines: string[] = [];
  for (const chunk of [...chunks, undefined]) {
    const result = chunk === undefined ? decoder.end() : decoder.push(chunk);
    assert.ok(result.ok, result.ok ? "" : result.error.message);
    lines.push(...result.value);
  }
  return lines;
}

/** The offsets of every byte order mark's bytes in `data`. */
function markOffsets(data: Uint8Array): number[] {
  const offsets: number[] = [];
  for (let at = data.indexOf(0xef); at !== -1; at = data.indexOf(0xef, at + 1)) {
    if (data[at + 1] === 0xbb && data[at + 2] === 0xbf) offsets.push(at);
  }
  return offsets;
}

/** What the rule says a line's bytes read as. */
function expected(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

Deno.test("LineDecoder keeps a U+FEFF inside a line that starts a read", () => {
  // The first read is ASCII and long enough to be searched as text.
  const head = bytes(`{"a":"${"x".repeat(4096)}`);
  const tail = bytes(`${BOM}z"}\n`);
  const line = `{"a":"${"x".repeat(4096)}${BOM}z"}`;
  assert.deepEqual(linesOf([head, tail]), [line]);
  assert.deepEqual(linesOf([concat(head, tail)]), [line]);
});

Deno.test("LineDecoder drops one BOM at a line's start, however the read is cut", async (t) => {
  const whole = bytes(`${BOM}${BOM}{}\n${BOM}[]\n`);
  for (let cut = 0; cut <= whole.length; cut++) {
    await t.step(`cut at ${cut}`, () => {
      assert.deepEqual(linesOf(splitAt(whole, [cut])), [`${BOM}{}`, "[]"]);
    });
  }
});

Deno.test("LineDecoder yields a line's text less a leading BOM, however the bytes are chunked", () => {
  const piece = fc.oneof(
    fc.constantFrom(BOM, `${BOM}${BOM}`, "\n", "é", "😀", "\r\n"),
    fc.string({ maxLength: 8 }),
    fc.nat(5000).map((size) => "a".repeat(size)),
  );
  const stream = fc.array(piece, { minLength: 1, maxLength: 10 }).map((pieces) => pieces.join(""));
  fc.assert(
    fc.property(stream, fc.array(fc.nat(12_000), { maxLength: 4 }), (text, cuts) => {
      const lines = text.split("\n").map((line) => line.replace(/\r$/, ""))
        .filter((line) => line.length > 0).map(expected);
      const data = bytes(text);
      assert.deepEqual(linesOf(splitAt(data, cuts)), lines);
      // A read that starts with a BOM, wherever the BOM is.
      assert.deepEqual(linesOf(splitAt(data, [...cuts, ...markOffsets(data)])), lines);
    }),
    { numRuns: RUNS / 10 },
  );
});

Deno.test("a LineSplitter line decoded by decodeUtf8() is the LineDecoder's line", () => {
  const text = `${BOM}{"a":1}\n{"b":"${BOM}"}\n${BOM}${BOM}\n`;
  const split = new LineSplitter().push(bytes(text));
  assert.ok(split.ok);
  assert.deepEqual(split.value.map(decodeUtf8), linesOf([bytes(text)]));
  assert.deepEqual(linesOf([bytes(text)]), ['{"a":1}', `{"b":"${BOM}"}`, BOM]);
});
