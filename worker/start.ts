/**
 * The start of a client's session: the `server/discover` probe of the
 * modern era, the `initialize` handshake of the legacy era, and the fallback
 * from one to the other; how each answer is judged is `judge.ts`.
 *
 * The era is chosen per server (`EraMode`, `spec/era.ts`): `auto` probes with
 * `server/discover` and falls back to `initialize` on the same process at
 * any answer that is not a modern one (method not found or any other error,
 * a result that is not a discover result, versions that do not overlap, or
 * silence past the probe's deadline), as the specification asks of a
 * client over stdio; `modern` probes with no fallback; `legacy` sends
 * `initialize` at once, as before the modern era.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import { frameText } from "../codec/framing.ts";
import type { Implementation } from "../codec/protocol.ts";
import { DISCOVER_METHOD, requestMeta } from "../codec/stateless.ts";
import type { Result } from "../codec/result.ts";
import type { ClientError, StartAttempt, StartFailure } from "../thread/outcomes.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import { type EraPlan, PROBE_DEADLINE_SHARE, PROBE_TIMEOUT_MS } from "../spec/era.ts";
import {
  correctedVersion,
  initializeParams,
  judgeDiscover,
  judgeInitialize,
  withAttempts,
} from "./judge.ts";

/** The deadline of a probe, in ms, out of what is left of the connect deadline. */
export function probeDeadline(plan: EraPlan, remainingMs: number): number {
  if (plan.legacy.length === 0) return remainingMs;
  return Math.min(PROBE_TIMEOUT_MS, remainingMs * PROBE_DEADLINE_SHARE);
}

/** What a start needs of the machine that runs it. */
export type StartIo = {
  /** The server's name, for messages. */
  name: string;
  /** What the client calls itself. */
  clientInfo: Implementation;
  /** The whole start's deadline, in ms (for the message of a silent server). */
  connectTimeoutMs: number;
  /** What an earlier start of the same server tried. */
  priorAttempts: readonly StartAttempt[];
  /** What is left of the start's deadline, in ms. */
  remaining(): number;
  /** Sends a request of the start and waits for its outcome. */
  request(
    method: string,
    paramsText: string,
    timeoutMs: number,
  ): Promise<Result<JsonValue, ClientError>>;
  /** Whether the server's exit has been seen. */
  exited(): boolean;
  /** The server's stderr tail now. */
  stderrTail(): string;
};

/** How a start ended: a session of one era, or a failure. */
export type StartOutcome =
  | { ok: true; info: ServerInfo; envelope: JsonObject | undefined }
  | {
    ok: false;
    failure: StartFailure;
    /** The server exited on the probe with a handshake still to try: start it once more. */
    exitedOnProbe: boolean;
  };

/**
 * Runs the start a plan says: the probe first when the modern era is
 * offered, then `initialize` when the probe got no modern answer and the
 * legacy era is offered. A modern session comes with the envelope its
 * requests carry.
 */
export async function runStart(plan: EraPlan, io: StartIo): Promise<StartOutcome> {
  const context = (timeoutMs: number) => ({
    name: io.name,
    timeoutMs,
    stderrTail: io.stderrTail(),
  });
  const attempts: StartAttempt[] = [...io.priorAttempts];
  const modern = plan.modern[0];
  if (modern !== undefined) {
    const probe = (version: string) => frameText({ _meta: requestMeta(version, io.clientInfo) });
    let timeoutMs = probeDeadline(plan, io.remaining());
    let answer = await io.request(DISCOVER_METHOD, probe(modern).slice(0, -1), timeoutMs);
    // A refused version whose refusal lists one offered is asked again, once,
    // with it (even the same one: the server said which it serves).
    const corrected = correctedVersion(answer, plan);
    if (corrected !== undefined) {
      timeoutMs = probeDeadline(plan, io.remaining());
      answer = await io.request(DISCOVER_METHOD, probe(corrected).slice(0, -1), timeoutMs);
    }
    const verdict = judgeDiscover(answer, plan, context(timeoutMs));
    if (verdict.kind === "modern") {
      const envelope = requestMeta(verdict.info.protocolVersion, io.clientInfo);
      return { ok: true, info: verdict.info, envelope };
    }
    if (verdict.kind === "failed" || plan.legacy.length === 0) {
      const exitedOnProbe = plan.legacy.length > 0 && io.exited();
      return { ok: false, failure: verdict.failure, exitedOnProbe };
    }
    attempts.push(verdict.attempt);
  }
  const timeoutMs = io.remaining();
  const version = plan.legacy[0] ?? "";
  const answer = await io.request(
    "initialize",
    initializeParams(io.clientInfo, version),
    timeoutMs,
  );
  // A silent server is told of the deadline it can raise: the whole start's.
  const judged = judgeInitialize(answer, plan, context(io.connectTimeoutMs));
  if (!judged.ok) {
    return {
      ok: false,
      failure: withAttempts(judged.error, attempts),
      exitedOnProbe: false,
    };
  }
  return { ok: true, info: judged.value, envelope: undefined };
}
