/**
 * How a start speaks to a server and how each answer is judged: the
 * `server/discover` probe of the stateless era, the `initialize` handshake
 * of the handshake era, and the start failure each wrong answer is. Pure:
 * the machine sends and waits; this module decides.
 *
 * The era is chosen per server ({@linkcode EraMode}): `auto` probes with
 * `server/discover` and falls back to `initialize` on the same process at
 * any answer that is not a modern one (method not found or any other error,
 * a result that is not a discover result, versions that do not overlap, or
 * silence past the probe's deadline), as the specification asks of a
 * client over stdio; `modern` probes with no fallback; `legacy` sends
 * `initialize` at once, as before the stateless era.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import { frameText } from "../codec/framing.ts";
import {
  decodeInitializeResult,
  type Implementation,
  type SupportedVersion,
} from "../codec/protocol.ts";
import {
  decodeDiscoverResult,
  DISCOVER_METHOD,
  requestMeta,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../codec/stateless.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type {
  ClientError,
  HttpFailure,
  StartAttempt,
  StartError,
  StartFailure,
} from "../thread/outcomes.ts";
import type { RetirementError, RetirementEvidence } from "../thread/evidence.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import { type EraPlan, PROBE_DEADLINE_SHARE, PROBE_TIMEOUT_MS } from "../spec/era.ts";

/** The deadline of a probe, in ms, out of what is left of the connect deadline. */
export function probeDeadline(plan: EraPlan, remainingMs: number): number {
  if (plan.legacy.length === 0) return remainingMs;
  return Math.min(PROBE_TIMEOUT_MS, remainingMs * PROBE_DEADLINE_SHARE);
}

/** The `_meta` envelope of every stateless-era request, as compact JSON. */
export function envelopeText(version: string, clientInfo: Implementation): string {
  return frameText(requestMeta(version, clientInfo)).slice(0, -1);
}

/**
 * The parameters of `initialize`, as compact JSON: the version asked for,
 * empty client capabilities (on purpose: no sampling, no roots, no
 * elicitation) and what the client calls itself.
 *
 * @example The parameters sent
 * ```ts
 * import { initializeParams } from "./handshake.ts";
 * console.log(initializeParams({ name: "me", version: "1" }, "2025-11-25"));
 * ```
 */
export function initializeParams(clientInfo: Implementation, version: string): string {
  return frameText({
    protocolVersion: version,
    capabilities: {},
    clientInfo: { ...clientInfo },
  }).slice(0, -1);
}

/** What a judgement needs to know besides the answer. */
export type HandshakeContext = {
  /** The server's name, for messages. */
  name: string;
  /** The deadline the request had, for the message of a silent server. */
  timeoutMs: number;
  /** The server's stderr tail now. */
  stderrTail: string;
};

/** The start failure of a start request that got no result. */
export function handshakeFailure(
  method: string,
  error: ClientError,
  context: HandshakeContext,
): StartFailure {
  const { name, timeoutMs, stderrTail } = context;
  switch (error.kind) {
    case "unavailable":
      return {
        kind: "handshake_failed",
        // A process that is not an MCP server is named so, with what it wrote.
        message: error.cause === "malformed"
          ? error.message
          : `${error.message} before answering ${method}`,
        stderrTail,
      };
    case "call_timed_out":
      return {
        kind: "handshake_failed",
        message: `Server "${name}" did not answer ${method} within ${Math.round(timeoutMs)} ms; ` +
          `check that its command starts an MCP server on stdio, or raise connect_timeout_ms ` +
          `in its catalog entry (connectTimeoutMs in a ServerSpec)`,
        stderrTail,
      };
    default:
      return {
        kind: "handshake_failed",
        message: `Server "${name}" failed the handshake: ${error.message}`,
        stderrTail,
      };
  }
}

/**
 * The start failure of a remote server that could not be reached or
 * refused the client: the transport failed, whatever the start was asking
 * at the time, with the HTTP answer that refused it when there was one.
 */
export function httpFailure(message: string, http: HttpFailure | undefined): StartFailure {
  return http === undefined
    ? { kind: "transport_failed", message, stderrTail: "" }
    : { kind: "transport_failed", message, stderrTail: "", http };
}

/** What the answer to a probe means. */
export type DiscoverVerdict =
  /** A stateless-era server: the session is modern. */
  | { kind: "modern"; info: ServerInfo }
  /** No modern answer: fall back to `initialize` (when the plan offers it). */
  | { kind: "legacy"; attempt: StartAttempt; failure: StartFailure }
  /** The start fails here, whatever the plan. */
  | { kind: "failed"; failure: StartFailure };

function noTools(name: string, info: ServerInfo, stderrTail: string): StartFailure {
  return {
    kind: "tools_not_declared",
    message: `Server "${name}" does not declare the "tools" capability; ` +
      `it offers nothing this client can call`,
    serverInfo: info,
    stderrTail,
  };
}

/**
 * Judges the answer to `server/discover`. A modern answer overlapping the
 * versions offered makes a modern session (its newest common version); any
 * other answer is a reason to fall back, given as both the attempt and the
 * failure it is when there is no fallback. A lost server is a failure.
 */
export function judgeDiscover(
  answer: Result<JsonValue, ClientError>,
  plan: EraPlan,
  context: HandshakeContext,
): DiscoverVerdict {
  const { name, stderrTail } = context;
  const legacy = (outcome: string, failure: StartFailure): DiscoverVerdict => ({
    kind: "legacy",
    attempt: { method: DISCOVER_METHOD, outcome },
    failure,
  });
  if (!answer.ok) {
    const error = answer.error;
    const failure = handshakeFailure(DISCOVER_METHOD, error, context);
    if (error.kind === "unavailable") return { kind: "failed", failure };
    if (error.kind === "server_error") {
      const { code, data } = error.error;
      const supported = isJsonObject(data) && Array.isArray(data.supported)
        ? data.supported.filter((v): v is string => typeof v === "string")
        : undefined;
      const outcome = `Server "${name}" refused server/discover: ${error.error.message} ` +
        `(code ${code})`;
      if (code === UNSUPPORTED_PROTOCOL_VERSION && supported !== undefined) {
        return legacy(outcome, {
          kind: "version_unsupported",
          message: `Cannot use server "${name}": it speaks ${supported.join(", ")} ` +
            `and this client offered ${plan.modern.join(", ")}`,
          requested: plan.modern.join(", "),
          received: supported.join(", "),
          stderrTail,
        });
      }
      return legacy(outcome, { ...failure, message: outcome });
    }
    return legacy(failure.message, failure);
  }
  const decoded = decodeDiscoverResult(answer.value);
  if (!decoded.ok) {
    const message = `Server "${name}" answered server/discover wrongly: ${decoded.error.message}`;
    return legacy(message, { kind: "handshake_failed", message, stderrTail });
  }
  const discovered = decoded.value;
  const version = plan.modern.find((v) => discovered.supportedVersions.includes(v));
  if (version === undefined) {
    const received = discovered.supportedVersions.join(", ");
    const message = `Cannot use server "${name}": it lists ${received || "no versions"} ` +
      `and this client offered ${plan.modern.join(", ")}`;
    return legacy(message, {
      kind: "version_unsupported",
      message,
      requested: plan.modern.join(", "),
      received,
      stderrTail,
    });
  }
  const info: ServerInfo = {
    protocolVersion: version as SupportedVersion,
    capabilities: discovered.capabilities,
    serverInfo: discovered.serverInfo ?? { name: "", version: "" },
    era: "modern",
  };
  if (discovered.instructions !== undefined) info.instructions = discovered.instructions;
  if (!isJsonObject(info.capabilities.tools)) {
    return { kind: "failed", failure: noTools(name, info, stderrTail) };
  }
  return { kind: "modern", info };
}

/**
 * Judges the answer to `initialize`: the server's info, or the start failure
 * it is (no answer, a wrong shape, a version outside those offered, no
 * `tools` capability).
 *
 * @example A server without tools
 * ```ts
 * import { eraPlan, judgeInitialize } from "./handshake.ts";
 * const answer = {
 *   ok: true as const,
 *   value: {
 *     protocolVersion: "2025-11-25",
 *     capabilities: {},
 *     serverInfo: { name: "s", version: "1" },
 *   },
 * };
 * const context = { name: "s", timeoutMs: 1, stderrTail: "" };
 * const judged = judgeInitialize(answer, eraPlan("legacy"), context);
 * console.log(!judged.ok && judged.error.kind); // tools_not_declared
 * ```
 */
export function judgeInitialize(
  answer: Result<JsonValue, ClientError>,
  plan: EraPlan,
  context: HandshakeContext,
): Result<ServerInfo, StartFailure> {
  const { name, stderrTail } = context;
  if (!answer.ok) return err(handshakeFailure("initialize", answer.error, context));
  const requested = plan.legacy[0] ?? "";
  const decoded = decodeInitializeResult(answer.value, requested, plan.legacy);
  if (!decoded.ok) {
    const fault = decoded.error;
    return err(
      fault.kind === "version_unsupported"
        ? {
          kind: "version_unsupported",
          message: `Cannot use server "${name}": ${fault.message}`,
          requested: fault.requested,
          received: fault.received,
          stderrTail,
        }
        : {
          kind: "handshake_failed",
          message: `Server "${name}" answered initialize wrongly: ${fault.message}`,
          stderrTail,
        },
    );
  }
  const info: ServerInfo = { ...decoded.value, era: "legacy" };
  if (!isJsonObject(info.capabilities.tools)) return err(noTools(name, info, stderrTail));
  return ok(info);
}

/**
 * A failure of the handshake after a probe that got no modern answer: the
 * handshake's failure first, then what the probe got, in the message and,
 * in order, in `attempts`.
 */
export function withAttempts(failure: StartFailure, attempts: StartAttempt[]): StartFailure {
  if (attempts.length === 0) return failure;
  if (failure.kind !== "handshake_failed" && failure.kind !== "version_unsupported") {
    return failure;
  }
  const all = [...attempts, { method: "initialize" as const, outcome: failure.message }];
  const before = attempts.map((a) => `${a.method}: ${a.outcome}`).join("; ");
  return { ...failure, message: `${failure.message} (tried before it: ${before})`, attempts: all };
}

/**
 * The version to probe with again after an unsupported-version refusal
 * (-32022) that lists a stateless-era version this client offers: the
 * newest of them.
 */
export function correctedVersion(
  answer: Result<JsonValue, ClientError>,
  plan: EraPlan,
): string | undefined {
  if (answer.ok || answer.error.kind !== "server_error") return undefined;
  const { code, data } = answer.error.error;
  if (code !== UNSUPPORTED_PROTOCOL_VERSION || !isJsonObject(data)) return undefined;
  const supported = Array.isArray(data.supported) ? data.supported : [];
  return plan.modern.find((version) => supported.includes(version));
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
 * Runs the start a plan says: the probe first when the stateless era is
 * offered, then `initialize` when the probe got no modern answer and the
 * handshake era is offered. A modern session comes with the envelope its
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

/**
 * The error of a failed start, after the cleanup of its process: the
 * failure with the evidence of that cleanup, or `cleanup_unconfirmed` when
 * the process could not be confirmed gone.
 */
export function startError(
  failure: StartFailure,
  cleanup: Result<RetirementEvidence, RetirementError>,
  stderrTail: string,
): StartError {
  if (cleanup.ok) return { ...failure, cleanup: cleanup.value };
  return {
    kind: "cleanup_unconfirmed",
    message: `${failure.message}; its process could not be confirmed gone: ` +
      cleanup.error.message,
    cause: failure,
    retirement: cleanup.error,
    stderrTail,
  };
}
