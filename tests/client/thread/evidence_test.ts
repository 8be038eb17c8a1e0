import assert from "node:assert/strict";
import {
  decodeEvidence,
  decodeRetirementError,
  ESCALATIONS,
  SESSION_ENDS,
} from "../../../client/thread/evidence.ts";

// Each union is one `as const` array, and its decoder reads with it: every
// member decodes, and a word outside it does not.

Deno.test("evidence and retirement errors decode with each escalation, and only with those", () => {
  const exited = (escalation: unknown) => ({
    kind: "exited",
    pid: 9,
    code: 0,
    signal: null,
    drained: true,
    escalation,
  });
  const timedOut = (escalation: unknown) => ({
    kind: "retirement_timed_out",
    message: "m",
    timeoutMs: 5,
    escalation,
  });
  for (const escalation of ESCALATIONS) {
    assert.deepEqual(decodeEvidence(exited(escalation)), exited(escalation));
    assert.deepEqual(decodeRetirementError(timedOut(escalation)), timedOut(escalation));
  }
  for (const escalation of ["sigstop", "", undefined]) {
    assert.equal(decodeEvidence(exited(escalation)), undefined);
    assert.equal(decodeRetirementError(timedOut(escalation)), undefined);
  }
});

Deno.test("remote evidence decodes with each session end, and only with those", () => {
  const remote = (session: unknown) => ({ kind: "remote", url: "http://h/mcp", session });
  for (const session of SESSION_ENDS) {
    assert.deepEqual(decodeEvidence(remote(session)), remote(session));
  }
  for (const session of ["closed", "", 0]) assert.equal(decodeEvidence(remote(session)), undefined);
});
