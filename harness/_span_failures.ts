// Private to harness/: when a harness's call or a program's run, answered as
// a value, failed, as its span says it (`error.type` and the status's
// message): a refusal or a client's failure by its kind, a tool's own error
// as `tool_error` (as the conventions' CLIENT span has it), a run by how it
// ended.

import type { Result } from "../codec/result.ts";
import type { SpanFailure } from "../telemetry/spans.ts";
import type { RunOutcome } from "../runner/host/run.ts";

/** How a harness's call failed, or `undefined` when it did not. */
export function callFailure(
  called: Result<{ isError?: boolean }, { kind: string; message: string }>,
): SpanFailure | undefined {
  if (!called.ok) return { type: called.error.kind, message: called.error.message };
  return called.value.isError === true
    ? { type: "tool_error", message: "the tool answered with isError" }
    : undefined;
}

/** How a run failed, or `undefined` when its program returned. */
export function outcomeFailure(outcome: RunOutcome): SpanFailure | undefined {
  switch (outcome.kind) {
    case "returned":
      return undefined;
    case "exited":
      return outcome.code === 0
        ? undefined
        : { type: "exited", message: `the program exited with code ${outcome.code}` };
    case "threw":
      return { type: "threw", message: `${outcome.name}: ${outcome.message}` };
    case "killed":
      return { type: outcome.reason, message: outcome.message };
    case "refused":
      return { type: "refused", message: outcome.message };
    case "rejected":
      return {
        type: "rejected",
        message: outcome.diagnostics[0]?.message ?? "the program was rejected before it ran",
      };
  }
}
