import assert from "node:assert/strict";
import { answerLines } from "../../client/_answer_lines.ts";

const encoder = new TextEncoder();

function collect(lines: string | Uint8Array, count: number): string[] {
  const seen: string[] = [];
  const tickets = Array.from({ length: count }, (_, index) => index);
  const fault = answerLines("s", tickets, tickets, lines, (_ticket, _id, line) => {
    seen.push(line);
    return undefined;
  });
  assert.equal(fault, undefined);
  return seen;
}

Deno.test("a line's byte order mark is dropped whether the line comes alone or in a batch", () => {
  const line = (id: number) => `\u{feff}{"jsonrpc":"2.0","id":${id},"result":{}}`;
  const alone = collect(encoder.encode(line(0)), 1);
  const batched = collect(encoder.encode([0, 1, 2, 3].map(line).join("\n")), 4);
  assert.deepEqual(alone, ['{"jsonrpc":"2.0","id":0,"result":{}}']);
  assert.deepEqual(batched, [0, 1, 2, 3].map((id) => line(id).slice(1)));
  // Bytes that are not UTF-8 take the line-by-line path, which drops it too.
  const invalid = new Uint8Array([...encoder.encode(`${line(0)}\n${line(1)}\n`), 0xff]);
  const slow: string[] = [];
  const fault = answerLines("s", [0, 1, 2], [0, 1, 2], invalid, (_ticket, _id, text) => {
    slow.push(text);
    return undefined;
  });
  assert.equal(fault?.cause, "framing");
  assert.deepEqual(slow, [line(0).slice(1), line(1).slice(1)]);
});
