/**
 * MCP traffic as OpenTelemetry's semantic conventions for MCP say it
 * (`gen-ai/mcp.md` of `open-telemetry/semantic-conventions-genai`): one
 * CLIENT span per request a client sends and one SERVER span per request a
 * server handles, each named `{mcp.method.name} {target}`, with the
 * conventions' attributes, and the four duration histograms
 * (`mcp.client.operation.duration`, `mcp.client.session.duration` and the
 * server's pair), in seconds, with the conventions' buckets.
 *
 * Everything here is made only when a tracer provider is registered: Deno's,
 * when the harness runs with `OTEL_DENO=true`. Without one, {@linkcode
 * tracing} is false and callers make nothing; the check is all it costs.
 *
 * Arguments and results are recorded only where a caller asks for them
 * ({@linkcode withToolContent}), since they may hold secrets.
 *
 * @module
 */

import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Histogram,
  metrics,
  propagation,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "./_otel.ts";

/** The name of the library's tracer and meter, as a backend shows their scope. */
export const INSTRUMENTATION_NAME = "@loom/mcp";

/** The bucket boundaries, in seconds, the conventions give every MCP duration histogram. */
export const MCP_DURATION_BUCKETS: readonly number[] = [
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300,
];

/** The `_meta` keys that carry trace context, unprefixed as the 2026-07-28 specification reserves them. */
export const TRACE_CONTEXT_KEYS: readonly string[] = ["traceparent", "tracestate", "baggage"];

const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether spans and metrics are recorded: a tracer provider is registered
 * (Deno's, under `OTEL_DENO=true`, or one a harness registered itself).
 */
export function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/** What a span and its metrics say of the other end of an MCP connection. */
export type McpPeer = {
  /** `pipe` for stdio, `tcp` for Streamable HTTP. */
  transport: "pipe" | "tcp";
  /** The remote server's host, when it is one. */
  address?: string;
  /** The remote server's port, when it is one. */
  port?: number;
  /** The negotiated protocol version, once known. */
  protocolVersion?: string;
  /** The session's id, where the connection has one. */
  sessionId?: string;
};

/** How an MCP operation ended, as its span and histogram record it. */
export type OperationEnd = {
  /** Present when it failed: a JSON-RPC error code, `timeout`, `tool_error`, or a failure's kind. */
  errorType?: string;
  /** The JSON-RPC error code of an error response, as text. */
  statusCode?: string;
  /** What a person reads of the failure: the span's status description. */
  message?: string;
  /** The result, recorded (as JSON) only when tool content is asked for. */
  result?: unknown;
};

const TOOL_CONTENT = createContextKey("@loom/mcp tool content");

/** Runs `run` in a context that records tool calls' arguments and results on their spans. */
export function withToolContent<T>(run: () => T): T {
  return context.with(context.active().setValue(TOOL_CONTENT, true), run);
}

/** Whether the active context asks for tool calls' arguments and results. */
export function recordsToolContent(): boolean {
  return context.active().getValue(TOOL_CONTENT) === true;
}

let clientOperations: Histogram | undefined;
let clientSessions: Histogram | undefined;
let serverOperations: Histogram | undefined;
let serverSessions: Histogram | undefined;

// Made on first use, so that a provider registered after import is the one used.
function histogram(name: string, description: string): Histogram {
  return metrics.getMeter(INSTRUMENTATION_NAME).createHistogram(name, {
    description,
    unit: "s",
    advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] },
  });
}

function tracer() {
  return trace.getTracer(INSTRUMENTATION_NAME);
}

/** The value of `key` when `params` (compact JSON) begins with it as a string; the name of a call. */
export function leadingString(params: string, key: string): string | undefined {
  const lead = `{"${key}":"`;
  if (!params.startsWith(lead)) return undefined;
  let index = lead.length;
  while (index < params.length) {
    const code = params.charCodeAt(index);
    if (code === 0x22) break;
    index += code === 0x5c ? 2 : 1;
  }
  try {
    const value: unknown = JSON.parse(params.slice(lead.length - 1, index + 1));
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The attributes a method's parameters give its span and metrics: its target, and what it is. */
function requestAttributes(method: string, params: string): [string, Attributes] {
  const attributes: Attributes = { "mcp.method.name": method };
  let target: string | undefined;
  if (method === "tools/call") {
    target = leadingString(params, "name");
    if (target !== undefined) attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (method === "prompts/get") {
    target = leadingString(params, "name");
    if (target !== undefined) attributes["gen_ai.prompt.name"] = target;
  }
  return [target === undefined ? method : `${method} ${target}`, attributes];
}

function peerAttributes(attributes: Attributes, peer: McpPeer, server: boolean): void {
  attributes["network.transport"] = peer.transport;
  if (peer.protocolVersion !== undefined) attributes["mcp.protocol.version"] = peer.protocolVersion;
  if (server) return;
  if (peer.address !== undefined) attributes["server.address"] = peer.address;
  if (peer.port !== undefined) attributes["server.port"] = peer.port;
}

function contentText(value: unknown): string | undefined {
  try {
    return JSON.stringify(
      value,
      (_key, item) => typeof item === "bigint" ? item.toString() : item,
    );
  } catch {
    return undefined;
  }
}

function finish(
  span: Span,
  metric: Attributes,
  end: OperationEnd,
  content: boolean,
): void {
  if (end.errorType !== undefined) {
    metric["error.type"] = end.errorType;
    span.setAttribute("error.type", end.errorType);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(end.message === undefined ? {} : { message: end.message }),
    });
  }
  if (end.statusCode !== undefined) {
    metric["rpc.response.status_code"] = end.statusCode;
    span.setAttribute("rpc.response.status_code", end.statusCode);
  }
  if (content && end.result !== undefined && end.errorType === undefined) {
    const text = contentText(end.result);
    if (text !== undefined) span.setAttribute("gen_ai.tool.call.result", text);
  }
}

/**
 * One request a client sends, from the moment it leaves to its settlement:
 * a CLIENT span (a child of the active span) and, at its end, one record of
 * `mcp.client.operation.duration`. Make one only while {@linkcode tracing}.
 */
export class ClientOperation {
  #span: Span;
  #context: Context;
  #started = performance.now();
  #metric: Attributes;
  #content: boolean;

  constructor(method: string, params: string, peer: McpPeer) {
    const [name, attributes] = requestAttributes(method, params);
    peerAttributes(attributes, peer, false);
    this.#metric = { ...attributes };
    if (method === "resources/read") {
      const uri = leadingString(params, "uri");
      if (uri !== undefined) attributes["mcp.resource.uri"] = uri;
    }
    if (peer.sessionId !== undefined) attributes["mcp.session.id"] = peer.sessionId;
    this.#content = method === "tools/call" && recordsToolContent();
    if (this.#content) {
      try {
        const parsed: unknown = JSON.parse(params);
        const args = typeof parsed === "object" && parsed !== null
          ? (parsed as Record<string, unknown>).arguments
          : undefined;
        const text = contentText(args ?? {});
        if (text !== undefined) attributes["gen_ai.tool.call.arguments"] = text;
      } catch {
        // Parameters that do not parse are not recorded.
      }
    }
    this.#span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
    this.#context = trace.setSpan(context.active(), this.#span);
  }

  /** The trace context of the span, as the `_meta` keys it goes in (`traceparent`, ...). */
  carrier(): Record<string, string> {
    const carrier: Record<string, string> = {};
    propagation.inject(this.#context, carrier);
    const kept: Record<string, string> = {};
    for (const key of TRACE_CONTEXT_KEYS) {
      const value = carrier[key];
      if (value !== undefined && value !== "") kept[key] = value;
    }
    return kept;
  }

  /** The protocol version the request negotiated (`initialize`). */
  negotiated(version: string): void {
    this.#metric["mcp.protocol.version"] = version;
    this.#span.setAttribute("mcp.protocol.version", version);
  }

  /** The JSON-RPC id the request was sent under, once the answer says it. */
  sentAs(id: number | string): void {
    this.#span.setAttribute("jsonrpc.request.id", String(id));
  }

  /** Ends the span and records the duration. */
  end(end: OperationEnd): void {
    finish(this.#span, this.#metric, end, this.#content);
    this.#span.end();
    clientOperations ??= histogram(
      "mcp.client.operation.duration",
      "The duration of the MCP request as observed on the sender from the time it was sent " +
        "until the response is received",
    );
    clientOperations.record((performance.now() - this.#started) / 1000, this.#metric);
  }
}

/**
 * One request a server handles, from the moment it is read to its answer:
 * a SERVER span whose parent is the trace context in the request's
 * `params._meta` (the active span when there is none), and one record of
 * `mcp.server.operation.duration`. Make one only while {@linkcode tracing}.
 */
export class ServerOperation {
  #span: Span;
  #started = performance.now();
  #metric: Attributes;

  constructor(method: string, params: Record<string, unknown>, id: number | string, peer: McpPeer) {
    const name = typeof params.name === "string" ? params.name : undefined;
    const attributes: Attributes = { "mcp.method.name": method };
    if (method === "tools/call") {
      if (name !== undefined) attributes["gen_ai.tool.name"] = name;
      attributes["gen_ai.operation.name"] = "execute_tool";
    } else if (method === "prompts/get" && name !== undefined) {
      attributes["gen_ai.prompt.name"] = name;
    }
    peerAttributes(attributes, peer, true);
    this.#metric = { ...attributes };
    attributes["jsonrpc.request.id"] = String(id);
    const meta = params._meta;
    const carrier: Record<string, string> = {};
    if (typeof meta === "object" && meta !== null) {
      for (const key of TRACE_CONTEXT_KEYS) {
        const value = (meta as Record<string, unknown>)[key];
        if (typeof value === "string") carrier[key] = value;
      }
    }
    const parent = propagation.extract(context.active(), carrier);
    const target = method === "tools/call" || method === "prompts/get" ? name : undefined;
    this.#span = tracer().startSpan(
      target === undefined ? method : `${method} ${target}`,
      { kind: SpanKind.SERVER, attributes },
      parent,
    );
  }

  /** The protocol version the request named itself (a 2026-07-28 request's `_meta`). */
  negotiated(version: string): void {
    this.#metric["mcp.protocol.version"] = version;
    this.#span.setAttribute("mcp.protocol.version", version);
  }

  /** Ends the span and records the duration. */
  end(end: OperationEnd): void {
    // A server records no tool content: its results are its own to keep.
    finish(this.#span, this.#metric, end, false);
    this.#span.end();
    serverOperations ??= histogram(
      "mcp.server.operation.duration",
      "MCP request duration as observed on the receiver from the time it was received " +
        "until the result is sent",
    );
    serverOperations.record((performance.now() - this.#started) / 1000, this.#metric);
  }
}

/**
 * One session, from its start to its end: at its end, one record of
 * `mcp.client.session.duration` (or the server's, for `side: "server"`).
 * Make one only while {@linkcode tracing}.
 */
export class McpSession {
  #started = performance.now();
  #side: "client" | "server";
  #peer: McpPeer;
  #ended = false;

  constructor(side: "client" | "server", peer: McpPeer) {
    this.#side = side;
    this.#peer = peer;
  }

  /** The session's protocol version, once negotiated. */
  negotiated(version: string): void {
    this.#peer = { ...this.#peer, protocolVersion: version };
  }

  /** Records the session's duration, once; `errorType` when it ended with an error. */
  end(errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    const attributes: Attributes = {};
    peerAttributes(attributes, this.#peer, this.#side === "server");
    if (errorType !== undefined) attributes["error.type"] = errorType;
    const seconds = (performance.now() - this.#started) / 1000;
    if (this.#side === "client") {
      clientSessions ??= histogram(
        "mcp.client.session.duration",
        "The duration of the MCP session as observed on the MCP client",
      );
      clientSessions.record(seconds, attributes);
    } else {
      serverSessions ??= histogram(
        "mcp.server.session.duration",
        "The duration of the MCP session as observed on the MCP server",
      );
      serverSessions.record(seconds, attributes);
    }
  }
}
