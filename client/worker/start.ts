/**
 * The start of a client's session, in one place: the launch of the server,
 * the `server/discover` probe of the modern era, the `initialize` handshake
 * of the legacy era, the fallback from one to the other, and the launch once
 * more of a server that exited on the probe. How each answer is judged is
 * `judge.ts`; the machine (`machine.ts`) runs a start and keeps what comes of
 * it.
 *
 * The era is chosen per server (`EraMode`, `settings/era.ts`): `auto` probes with
 * `server/discover` and falls back to `initialize` on the same process at
 * any answer that is not a modern one (method not found or any other error,
 * a result that is not a discover result, versions that do not overlap, or
 * silence past the probe's deadline), as the specification asks of a
 * client over stdio; `modern` probes with no fallback; `legacy` sends
 * `initialize` at once, as before the modern era. A server that exits on
 * the probe, with a handshake still to try, is launched once more inside
 * what is left of the connect deadline, pinned to the legacy era; its failure
 * then carries both attempts.
 *
 * A failed start retires what it launched before it is returned: its
 * failure carries the evidence of that cleanup, or is `cleanup_unconfirmed`.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../../codec/json.ts";
import { frameText } from "../../codec/framing.ts";
import type { Implementation } from "../../codec/protocol.ts";
import { DISCOVER_METHOD, requestMeta } from "../../codec/stateless.ts";
import type { Result } from "../../codec/result.ts";
import type { ClientError, StartAttempt, StartError, StartFailure } from "../thread/outcomes.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import { type EraCodec, LEGACY_ERA, MODERN_ERA } from "../thread/era.ts";
import { type EraPlan, PROBE_DEADLINE_SHARE, PROBE_TIMEOUT_MS } from "../../settings/era.ts";
import {
  correctedVersion,
  handshakeFailure,
  initializeParams,
  judgeDiscover,
  judgeInitialize,
  startError,
  withAttempts,
} from "./handshake.ts";
import type { Connection } from "./_connection.ts";
import type { RetirementOutcome } from "./retirement.ts";

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
  /** The capabilities the client declares. */
  capabilities: JsonObject;
  /** What the start offers. */
  plan: EraPlan;
  /** The whole start's deadline, in ms. */
  connectTimeoutMs: number;
  /** The deadline of the cleanup of a failed launch, in ms. */
  retirementTimeoutMs: number;
  /** The time on the machine's clock, in ms. */
  now(): number;
  /** Launches the server, the one spoken to from now on; why it could not. */
  launch(): Promise<Result<Connection, { message: string }>>;
  /** Whether the server may be launched once more: the machine can, and still starts. */
  mayRelaunch(): boolean;
  /** Sends a request of the start to the server launched last, and waits for its outcome. */
  request(
    method: string,
    paramsText: string,
    timeoutMs: number,
  ): Promise<Result<JsonValue, ClientError>>;
  /** Why the client can no longer start (it died or was retired meanwhile), if it cannot. */
  lost(): ClientError | undefined;
  /**
   * A launch failed to start the session, with `failure`: it is ended. When
   * `final`, the whole start has failed, and the client with it.
   */
  failed(failure: StartFailure, final: boolean): void;
};

/**
 * How a start ended: a session of one era (its era object, chosen here once
 * and for the session's life), or a failure after the cleanup of its launch.
 */
export type StartResult =
  | { ok: true; info: ServerInfo; era: EraCodec }
  | {
    ok: false;
    error: StartError;
    /** How the cleanup of what was launched went; `undefined` when nothing was. */
    cleanup: RetirementOutcome | undefined;
  };

/**
 * Starts the session: launches the server and runs the plan on it, and
 * launches it once more, pinned to the legacy era, when it exited on the
 * probe with a handshake still to try.
 */
export async function startSession(io: StartIo): Promise<StartResult> {
  const deadlineAt = io.now() + io.connectTimeoutMs;
  let at: Attempt = {
    plan: io.plan,
    priorAttempts: [],
    deadlineAt,
    connectTimeoutMs: io.connectTimeoutMs,
    last: false,
  };
  for (;;) {
    const end = await attempt(io, at);
    if (end.kind === "done") return end.result;
    // Once more, pinned to the legacy era, in what is left of the deadline; never again after.
    at = {
      plan: { modern: [], legacy: io.plan.legacy },
      priorAttempts: end.attempts,
      deadlineAt,
      connectTimeoutMs: deadlineAt - io.now(),
      last: true,
    };
  }
}

/** One launch and what it tries. */
type Attempt = {
  plan: EraPlan;
  priorAttempts: StartAttempt[];
  deadlineAt: number;
  connectTimeoutMs: number;
  /** Whether no launch may follow this one. */
  last: boolean;
};

type AttemptEnd =
  | { kind: "done"; result: StartResult }
  | { kind: "relaunch"; attempts: StartAttempt[] };

async function attempt(io: StartIo, at: Attempt): Promise<AttemptEnd> {
  const launched = await io.launch();
  if (!launched.ok) {
    const failure: StartFailure = {
      kind: "transport_failed",
      message: `Cannot start server "${io.name}": ${launched.error.message}`,
      stderrTail: "",
    };
    io.failed(failure, true);
    return { kind: "done", result: { ok: false, error: failure, cleanup: undefined } };
  }
  const connection = launched.value;
  const ran = await runPlan(at.plan, {
    name: io.name,
    clientInfo: io.clientInfo,
    capabilities: io.capabilities,
    connectTimeoutMs: at.connectTimeoutMs,
    priorAttempts: at.priorAttempts,
    remaining: () => Math.max(0, at.deadlineAt - io.now()),
    request: io.request,
    exited: () => connection.exited,
    stderrTail: () => connection.stderrTail(),
    remote: connection.remote,
  });
  let failure: StartFailure;
  let exitedOnProbe = false;
  if (ran.ok) {
    const lost = io.lost();
    if (lost === undefined) {
      return { kind: "done", result: { ok: true, info: ran.info, era: ran.era } };
    }
    failure = handshakeFailure(ran.era.startMethod, lost, {
      name: io.name,
      timeoutMs: at.connectTimeoutMs,
      stderrTail: connection.stderrTail(),
      remote: connection.remote,
    });
  } else {
    failure = ran.failure;
    exitedOnProbe = ran.exitedOnProbe;
  }
  failure = connection.refused() ?? failure;
  const again = !at.last && exitedOnProbe && io.mayRelaunch();
  io.failed(failure, !again);
  const cleanup = await connection.retire(io.retirementTimeoutMs);
  const error = startError(failure, cleanup, connection.stderrTail());
  if (again) {
    if (at.deadlineAt - io.now() > 0 && error.kind !== "cleanup_unconfirmed" && io.mayRelaunch()) {
      const attempts: StartAttempt[] =
        error.kind === "handshake_failed" || error.kind === "version_unsupported"
          ? [{ method: DISCOVER_METHOD, outcome: error.message }]
          : [];
      return { kind: "relaunch", attempts };
    }
    io.failed(failure, true);
  }
  return { kind: "done", result: { ok: false, error, cleanup } };
}

/** What a plan's run needs. */
type PlanIo = {
  name: string;
  clientInfo: Implementation;
  capabilities: JsonObject;
  /** The whole start's deadline, in ms (for the message of a silent server). */
  connectTimeoutMs: number;
  /** What an earlier launch of the same server tried. */
  priorAttempts: readonly StartAttempt[];
  /** What is left of the start's deadline, in ms. */
  remaining(): number;
  request: StartIo["request"];
  /** Whether the server's exit has been seen. */
  exited(): boolean;
  /** The server's stderr tail now. */
  stderrTail(): string;
  /** Whether the server is remote (for the message of a silent server). */
  remote: boolean;
};

/** How a plan's run ended: a session of one era, or a failure. */
type PlanOutcome =
  | { ok: true; info: ServerInfo; era: EraCodec }
  | {
    ok: false;
    failure: StartFailure;
    /** The server exited on the probe with a handshake still to try: launch it once more. */
    exitedOnProbe: boolean;
  };

/**
 * Runs the start a plan says: the probe first when the modern era is
 * offered, then `initialize` when the probe got no modern answer and the
 * legacy era is offered. The verdict picks the session's era object.
 */
async function runPlan(plan: EraPlan, io: PlanIo): Promise<PlanOutcome> {
  const context = (timeoutMs: number) => ({
    name: io.name,
    timeoutMs,
    stderrTail: io.stderrTail(),
    remote: io.remote,
  });
  const attempts: StartAttempt[] = [...io.priorAttempts];
  const modern = plan.modern[0];
  if (modern !== undefined) {
    const probe = (version: string) =>
      frameText({ _meta: requestMeta(version, io.clientInfo, io.capabilities) });
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
    if (verdict.kind === "answered") return { ok: true, info: verdict.info, era: MODERN_ERA };
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
    initializeParams(io.clientInfo, version, io.capabilities),
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
  return { ok: true, info: judged.value, era: LEGACY_ERA };
}
