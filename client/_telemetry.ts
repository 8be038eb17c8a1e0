// Private to client/: what the client's spans say of a server and of a
// settlement (telemetry/mcp.ts holds the conventions themselves), the
// `initialize` span around a generation's start, and the trace context
// written into a request's parameters on the main thread, where its span is,
// so that the worker only merges its own `_meta` fields into it
// (client/worker/_lines.ts) and no span is made in a worker.

import type { Result } from "../codec/result.ts";
import { ClientOperation, type McpPeer, McpSession, type OperationEnd } from "../telemetry/mcp.ts";
import type { ServerSpec } from "../settings/mod.ts";
import type { ClientError, StartError } from "./thread/outcomes.ts";
import type { ServerInfo } from "./thread/server_info.ts";
import { PARAMS_META_LEAD } from "./thread/to_worker.ts";

/** The peer a server is to its client's spans: its transport, its host and port when remote. */
export function peerOf(spec: ServerSpec, info: ServerInfo | undefined): McpPeer {
  const peer: McpPeer = { transport: spec.url === undefined ? "pipe" : "tcp" };
  if (spec.url !== undefined) {
    try {
      const url = new URL(spec.url);
      peer.address = url.hostname.replace(/^\[|\]$/g, "");
      peer.port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    } catch {
      // A spec's URL was checked when the spec was; one that does not parse names no peer.
    }
  }
  if (info !== undefined) peer.protocolVersion = info.protocolVersion;
  if (info?.sessionId !== undefined) peer.sessionId = info.sessionId;
  return peer;
}

/**
 * The start in an `initialize` CLIENT span: the handshake is the worker's,
 * but its start and its outcome are seen here. A ready start opens the
 * session whose duration its end records (handed to `opened`).
 */
export function tracedStart(
  spec: ServerSpec,
  options: {
    start: (traceContext: Record<string, string>) => Promise<Result<ServerInfo, StartError>>;
    opened: (session: McpSession) => void;
  },
): Promise<Result<ServerInfo, StartError>> {
  const operation = new ClientOperation("initialize", "", peerOf(spec, undefined));
  return options.start(operation.carrier()).then((outcome) => {
    if (outcome.ok) {
      operation.negotiated(outcome.value.protocolVersion);
      operation.end({});
      options.opened(new McpSession("client", peerOf(spec, outcome.value)));
    } else {
      operation.end({ errorType: outcome.error.kind, message: outcome.error.message });
    }
    return outcome;
  });
}

/** Parameters (compact JSON of an object, or `""`) with `carrier` leading as their `_meta`. */
export function withTraceContext(params: string, carrier: Record<string, string>): string {
  const keys = Object.keys(carrier);
  if (keys.length === 0) return params;
  const fields = JSON.stringify(carrier).slice(1, -1);
  if (params === "" || params === "{}") return `${PARAMS_META_LEAD}${fields}}}`;
  return `${PARAMS_META_LEAD}${fields}},${params.slice(1)}`;
}

/** What a span records of a settlement: `error.type` and the status, per the conventions. */
export function endOf(outcome: Result<unknown, ClientError>): OperationEnd {
  if (outcome.ok) {
    const value = outcome.value;
    if (typeof value === "object" && value !== null) {
      const result = value as Record<string, unknown>;
      if (result.isError === true) return { errorType: "tool_error", result };
    }
    return { result: value };
  }
  const error = outcome.error;
  if (error.kind === "server_error") {
    const code = String(error.error.code);
    return { errorType: code, statusCode: code, message: error.error.message };
  }
  if (error.kind === "call_timed_out") {
    return { errorType: error.aborted ? "cancelled" : "timeout", message: error.message };
  }
  if (error.kind === "unavailable") return { errorType: error.cause, message: error.message };
  return { errorType: error.kind, message: error.message };
}
