/**
 * How the calls and reads of one run reach the harness, and what their
 * outcomes become on the way back to the program: the one function the
 * ledger runs each through, and the reply a program's `cap.ts` reads.
 * Private to the runner.
 *
 * @module
 */

import type { CallToolResult, ResourceContents } from "../../codec/protocol.ts";
import type { JsonValue } from "../../codec/json.ts";
import { ok, type Result } from "../../codec/result.ts";
import type {
  CallContext,
  CallFailure,
  CallFunction,
  CallResult,
  ReadContext,
  ReadFunction,
} from "./run.ts";

/** What `cap.ts` reads of one outcome: a tool result, or a denial with a code. */
export function toReply(outcome: Result<CallToolResult, CallFailure>): JsonValue {
  if (!outcome.ok) {
    const { kind, message } = outcome.error;
    // A denial's reason, as the approval hook gave it, reaches the program's McpCallError.
    const reason = (outcome.error as { reason?: unknown }).reason;
    return typeof reason === "string"
      ? { ok: false, code: kind, message, reason }
      : { ok: false, code: kind, message };
  }
  const reply: { [key: string]: JsonValue } = {
    ok: true,
    content: outcome.value.content as unknown as JsonValue,
    isError: outcome.value.isError,
  };
  if (outcome.value.structuredContent !== undefined) {
    reply.structuredContent = outcome.value.structuredContent;
  }
  return reply;
}

/** What the report and the program's reply make of a read: each content a `resource` block. */
function readAsResult(
  outcome: Result<{ contents: readonly ResourceContents[] }, CallFailure>,
): Result<CallResult, CallFailure> {
  if (!outcome.ok) return outcome;
  const content = outcome.value.contents.map((resource) => ({
    type: "resource" as const,
    resource,
  }));
  return ok({ content, isError: false });
}

/**
 * The one function the ledger runs each call and read through: a read (the
 * ledger marks it `resource`, its arguments the `{ uri }` this module made)
 * goes to `read` as a request of its own, a call to `call`.
 */
export function carrier(call: CallFunction, read: ReadFunction | undefined): CallFunction {
  if (read === undefined) return call;
  return async (server, tool, args, context = {}) => {
    if (context.resource !== true) return call(server, tool, args, context);
    const uri = (args as { uri: string }).uri;
    return readAsResult(await read(server, uri, readContext(context)));
  };
}

/** What of a call's context a read (or a prompt's get) is told: all but a call's own marks. */
export function readContext(context: CallContext): ReadContext {
  const { resource: _resource, onProgress: _onProgress, ...read } = context;
  return read;
}
