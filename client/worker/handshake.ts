/**
 * What a start says to a server and how each answer is judged: the
 * parameters of the `server/discover` probe and of `initialize`, and the
 * verdict on each answer (a session of one era, a reason to fall back, or the
 * start failure it is). Pure: `start.ts` sends and waits; this module
 * decides.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../../codec/json.ts";
import { frameText } from "../../codec/framing.ts";
import {
  decodeInitializeResult,
  type Implementation,
  type SupportedVersion,
} from "../../codec/protocol.ts";
import {
  decodeDiscoverResult,
  DISCOVER_METHOD,
  requestMeta,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../../codec/stateless.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import type { ClientError, StartAttempt, StartError, StartFailure } from "../thread/outcomes.ts";
import type { RetirementError, RetirementEvidence } from "../thread/evidence.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import { LEGACY_ERA, MODERN_ERA } from "../thread/era.ts";
import type { EraPlan } from "../../settings/era.ts";

/** The `_meta` envelope of every modern request, as compact JSON. */
export function envelopeText(version: string, clientInfo: Implementation): string {
  return frameText(requestMeta(version, clientInfo)).slice(0, -1);
}

/**
 * The parameters of `initialize`, as compact JSON: the version asked for,
 * the client's capabilities (none unless a handler was given for it:
 * `client/thread/asked.ts`) and what the client calls itself.
 *
 * @example The parameters sent
 * ```ts
 * import { initializeParams } from "./handshake.ts";
 * console.log(initializeParams({ name: "me", version: "1" }, "2025-11-25"));
 * ```
 */
export function initializeParams(
  clientInfo: Implementation,
  version: string,
  capabilities: JsonObject = {},
): string {
  return frameText({
    protocolVersion: version,
    capabilities: { ...capabilities },
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
  /** Whether the server is remote, so that a message speaks of its url, not of a command. */
  remote?: boolean;
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
        message:
          `Server "${name}" did not answer ${method} within ${
            timeoutMs < 1 ? "less than 1" : Math.round(timeoutMs)
          } ms; ` +
          (context.remote === true
            ? `check that its url is an MCP endpoint that answers, and that its sign-in's ` +
              `authorization server does`
            : `check that its command starts an MCP server on stdio`) +
          `, or raise connect_timeout_ms in its catalog entry (connectTimeoutMs in a ServerSpec)`,
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

/** What the answer to a probe means. */
export type DiscoverVerdict =
  /** A modern server: the session is modern. */
  | { kind: "answered"; info: ServerInfo }
  /** No modern answer: fall back to `initialize` (when the plan offers it). */
  | { kind: "fall_back"; attempt: StartAttempt; failure: StartFailure }
  /** The start fails here, whatever the plan. */
  | { kind: "failed"; failure: StartFailure };

/** What a server may offer a client: one of these is enough to be of use. */
const OFFERS = ["tools", "prompts", "resources"] as const;

/** Whether a server declared none of what a client can use. */
function offersNothing(info: ServerInfo): boolean {
  return !OFFERS.some((capability) => isJsonObject(info.capabilities[capability]));
}

function noTools(name: string, info: ServerInfo, stderrTail: string): StartFailure {
  return {
    kind: "tools_not_declared",
    message: `Server "${name}" declares none of the "tools", "prompts" and "resources" ` +
      `capabilities; it offers nothing this client can use`,
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
    kind: "fall_back",
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
    era: MODERN_ERA.name,
  };
  if (discovered.instructions !== undefined) info.instructions = discovered.instructions;
  if (offersNothing(info)) return { kind: "failed", failure: noTools(name, info, stderrTail) };
  return { kind: "answered", info };
}

/**
 * Judges the answer to `initialize`: the server's info, or the start failure
 * it is (no answer, a wrong shape, a version outside those offered, none of
 * the `tools`, `prompts` and `resources` capabilities).
 *
 * @example A server without tools
 * ```ts
 * import { judgeInitialize } from "./handshake.ts";
 * import { eraPlan } from "../../settings/era.ts";
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
  const info: ServerInfo = { ...decoded.value, era: LEGACY_ERA.name };
  if (offersNothing(info)) return err(noTools(name, info, stderrTail));
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
 * (-32022) that lists a modern version this client offers: the
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
