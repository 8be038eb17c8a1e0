import assert from "node:assert/strict";
import { callDeadlineMs, DEFAULT_CALL_TIMEOUT_MS } from "../../settings/limits.ts";

Deno.test("callDeadlineMs() takes the caller's deadline, then the spec's, then the default", () => {
  assert.equal(callDeadlineMs({}), DEFAULT_CALL_TIMEOUT_MS);
  assert.equal(callDeadlineMs({ callTimeoutMs: 5_000 }), 5_000);
  assert.equal(callDeadlineMs({ callTimeoutMs: 5_000 }, 200), 200);
  assert.equal(callDeadlineMs({}, 200), 200);
});
