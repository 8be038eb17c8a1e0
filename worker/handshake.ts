/**
 * What the handshake says and how its answer is judged: the `initialize`
 * request this client sends, and the start failure each wrong answer is.
 * Pure: the machine sends and waits; this module decides.
 *
 * @module
 */

import { quote } from "../codec/quote.ts";
import { isJsonObject, type JsonValue } from "../codec/json.ts";
import { frameText } from "../codec/framing.ts";
import {
  decodeInitializeResult,
  type Implementation,
  REQUESTED_VERSION,
} from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ClientError, ServerInfo, StartFailure } from "./errors.ts";

/**
 * The parameters of `initialize`, as compact JSON: the version asked for,
 * empty client capabilities (on purpose: no sampling, no roots, no
 * elicitation) and what the client calls itself.
 *
 * @example The parameters sent
 * ```ts
 * import { initializeParams } from "./handshake.ts";
 * console.log(initializeParams({ name: "me", version: "1" }));
 * ```
 */
export function initializeParams(clientInfo: Implementation): string {
  return frameText({
    protocolVersion: REQUESTED_VERSION,
    capabilities: {},
    clientInfo: { ...clientInfo },
  }).slice(0, -1);
}

/** What a judgement needs to know besides the answer. */
export type HandshakeContext = {
  /** The server's name, for messages. */
  name: string;
  /** The start's deadline, for the message of a silent server. */
  connectTimeoutMs: number;
  /** The server's stderr tail now. */
  stderrTail: string;
};

/**
 * Why a process that answered `initialize` with something other than MCP is
 * not an MCP server, with the line it wrote: its input written back
 * (`echo`, as `cat` does), or a line that is not JSON-RPC (`garbage`).
 */
export function notAnMcpServer(name: string, line: string, how: "echo" | "garbage"): string {
  return how === "echo"
    ? `Server "${name}" is not an MCP server: it wrote back the initialize request it was ` +
      `sent (${quote(line)}); check its command`
    : `Server "${name}" is not an MCP server: before answering initialize it wrote ` +
      `${quote(line)}, which is not JSON-RPC; check its command`;
}

/** The start failure of an `initialize` that got no result. */
export function handshakeFailure(error: ClientError, context: HandshakeContext): StartFailure {
  const { name, connectTimeoutMs, stderrTail } = context;
  switch (error.kind) {
    case "unavailable":
      return {
        kind: "handshake_failed",
        // A process that is not an MCP server is named so, with what it wrote.
        message: error.cause === "malformed"
          ? error.message
          : `${error.message} before answering initialize`,
        stderrTail,
      };
    case "call_timed_out":
      return {
        kind: "handshake_failed",
        message: `Server "${name}" did not answer initialize within ${connectTimeoutMs} ms; ` +
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
 * Judges the answer to `initialize`: the server's info, or the start failure
 * it is (no answer, a wrong shape, a version outside the list, no `tools`
 * capability).
 *
 * @example A server without tools
 * ```ts
 * import { judgeInitialize } from "./handshake.ts";
 * const answer = {
 *   ok: true as const,
 *   value: {
 *     protocolVersion: "2025-11-25",
 *     capabilities: {},
 *     serverInfo: { name: "s", version: "1" },
 *   },
 * };
 * const judged = judgeInitialize(answer, { name: "s", connectTimeoutMs: 1, stderrTail: "" });
 * console.log(!judged.ok && judged.error.kind); // tools_not_declared
 * ```
 */
export function judgeInitialize(
  answer: Result<JsonValue, ClientError>,
  context: HandshakeContext,
): Result<ServerInfo, StartFailure> {
  const { name, stderrTail } = context;
  if (!answer.ok) return err(handshakeFailure(answer.error, context));
  const decoded = decodeInitializeResult(answer.value, REQUESTED_VERSION);
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
  const info = decoded.value;
  if (!isJsonObject(info.capabilities.tools)) {
    return err({
      kind: "tools_not_declared",
      message: `Server "${name}" does not declare the "tools" capability; ` +
        `it offers nothing this client can call`,
      serverInfo: info,
      stderrTail,
    });
  }
  return ok(info);
}
