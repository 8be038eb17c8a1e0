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

/**
 * The most characters of a name a span or a metric carries (a method's, a
 * tool's, a prompt's, a request id): 128, MCP's own bound on a tool's name;
 * past it, the name is cut with an ellipsis.
 */
export const MAX_TRACE_NAME_CHARS = 128;

/**
 * The most characters of a span's status message or of another text it
 * carries (a resource's URI): 1,024; past it, the text is cut with an ellipsis.
 */
export const MAX_TRACE_TEXT_CHARS = 1024;

/**
 * The most characters of a tool call's arguments or result a span records
 * (only when tool content is asked for): 65,536; past it, cut with an ellipsis.
 */
export const MAX_TRACE_CONTENT_CHARS = 65_536;

/**
 * `text` within `max` characters: as it is when it fits, else cut with an
 * ellipsis (which counts), never inside a surrogate pair. What the other end
 * of a connection names goes on a span only through this.
 */
export function traceText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}\u2026`;
}

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
    target = nameOf(leadingString(params, "name"));
    if (target !== undefined) attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (method === "prompts/get") {
    target = nameOf(leadingString(params, "name"));
    if (target !== undefined) attributes["gen_ai.prompt.name"] = target;
  }
  return [target === undefined ? method : `${method} ${target}`, attributes];
}

function nameOf(text: string | undefined): string | undefined {
  return text === undefined ? undefined : traceText(text, MAX_TRACE_NAME_CHARS);
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
    const text = JSON.stringify(
      value,
      (_key, item) => typeof item === "bigint" ? item.toString() : item,
    );
    return text === undefined ? undefined : traceText(text, MAX_TRACE_CONTENT_CHARS);
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
    const type = traceText(end.errorType, MAX_TRACE_NAME_CHARS);
    metric["error.type"] = type;
    span.setAttribute("error.type", type);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(end.message === undefined
        ? {}
        : { message: traceText(end.message, MAX_TRACE_TEXT_CHARS) }),
    });
  }
  if (end.statusCode !== undefined) {
    const code = traceText(end.statusCode, MAX_TRACE_NAME_CHARS);
    metric["rpc.response.status_code"] = code;
    span.setAttribute("rpc.response.status_code", code);
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
      if (uri !== undefined) attributes["mcp.resource.uri"] = traceText(uri, MAX_TRACE_TEXT_CHARS);
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
    this.#span.setAttribute("jsonrpc.request.id", traceText(String(id), MAX_TRACE_NAME_CHARS));
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
 * The request methods of MCP, both eras, as a server's span and metric name
 * them; any other a client sends is `_OTHER`, as the conventions have it.
 */
const MCP_REQUEST_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "subscriptions/listen",
  "completion/complete",
  "logging/setLevel",
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tasks/cancel",
]);

/**
 * One request a server handles, from the moment it is read to its answer:
 * a SERVER span whose parent is the trace context in the request's
 * `params._meta` (the active span when there is none), and one record of
 * `mcp.server.operation.duration`. A method MCP does not have is `_OTHER`
 * (its name, cut, in `rpc.method_original`), and a tool the server does not
 * serve (`knownTarget` false) is on the span alone, cut, never in its name
 * or the metric: a client inventing names makes no new series. Make one only
 * while {@linkcode tracing}.
 */
export class ServerOperation {
  #span: Span;
  #started = performance.now();
  #metric: Attributes;

  constructor(
    method: string,
    params: Record<string, unknown>,
    id: number | string,
    peer: McpPeer,
    knownTarget = true,
  ) {
    const known = MCP_REQUEST_METHODS.has(method);
    const shown = known ? method : "_OTHER";
    const name = typeof params.name === "string" ? nameOf(params.name) : undefined;
    const attributes: Attributes = { "mcp.method.name": shown };
    const key = method === "tools/call"
      ? "gen_ai.tool.name"
      : method === "prompts/get"
      ? "gen_ai.prompt.name"
      : undefined;
    if (key !== undefined && name !== undefined && knownTarget) attributes[key] = name;
    if (method === "tools/call") attributes["gen_ai.operation.name"] = "execute_tool";
    peerAttributes(attributes, peer, true);
    this.#metric = { ...attributes };
    if (!known) attributes["rpc.method_original"] = traceText(method, MAX_TRACE_NAME_CHARS);
    if (key !== undefined && name !== undefined && !knownTarget) attributes[key] = name;
    attributes["jsonrpc.request.id"] = traceText(String(id), MAX_TRACE_NAME_CHARS);
    const meta = params._meta;
    const carrier: Record<string, string> = {};
    if (typeof meta === "object" && meta !== null) {
      for (const key of TRACE_CONTEXT_KEYS) {
        const value = (meta as Record<string, unknown>)[key];
        if (typeof value === "string") carrier[key] = value;
      }
    }
    const parent = propagation.extract(context.active(), carrier);
    const target = knownTarget && key !== undefined ? name : undefined;
    this.#span = tracer().startSpan(
      target === undefined ? shown : `${shown} ${target}`,
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
