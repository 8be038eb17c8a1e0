import assert from "node:assert/strict";
import {
  DEATH_CAUSES,
  decodeClientError,
  decodeStartError,
  START_METHODS,
} from "../../../client/thread/outcomes.ts";

// Each union is one `as const` array, and its decoder reads with it: every
// member decodes, and a word outside it does not.

Deno.test("an unavailable error decodes with each death cause, and only with those", () => {
  const error = (cause: unknown) => ({ kind: "unavailable", cause, message: "m", stderrTail: "" });
  for (const cause of DEATH_CAUSES) {
    assert.deepEqual(decodeClientError(error(cause)), error(cause));
  }
  for (const cause of ["bored", "", "SHUTDOWN", 3, null]) {
    assert.equal(decodeClientError(error(cause)), undefined, String(cause));
  }
});

Deno.test("a start failure's attempts decode with each start method, and only with those", () => {
  const failure = (method: unknown) => ({
    kind: "handshake_failed",
    message: "m",
    stderrTail: "",
    attempts: [{ method, outcome: "o" }],
  });
  for (const method of START_METHODS) {
    assert.deepEqual(decodeStartError(failure(method)), failure(method));
  }
  for (const method of ["ping", "tools/list", ""]) {
    assert.equal(decodeStartError(failure(method)), undefined);
  }
});
