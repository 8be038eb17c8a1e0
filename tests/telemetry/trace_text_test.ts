// What a span carries of text from the other end: within its bound, cut
// with an ellipsis, never inside a surrogate pair.

import assert from "node:assert/strict";
import { MAX_TRACE_NAME_CHARS, traceText } from "../../telemetry/mcp.ts";

Deno.test("traceText keeps what fits and cuts the rest with an ellipsis that counts", () => {
  assert.equal(traceText("echo", MAX_TRACE_NAME_CHARS), "echo");
  assert.equal(traceText("x".repeat(128), 128), "x".repeat(128));
  assert.equal(traceText("x".repeat(129), 128), `${"x".repeat(127)}\u2026`);
});

Deno.test("traceText never splits a surrogate pair", () => {
  const cut = traceText(`ab${"\u{1F600}".repeat(4)}`, 5);
  assert.equal(cut, "ab\u{1F600}\u2026");
  assert.ok(cut.length <= 5);
  assert.equal(cut.isWellFormed(), true);
});
