/**
 * The Streamable HTTP server transport: one MCP endpoint that hands every
 * decoded JSON-RPC message to a handler and carries its answers back, in
 * both eras of the specification.
 *
 * - 2025-03-26 to 2025-11-25: `initialize` opens a session, whose id goes
 *   back in `Mcp-Session-Id` and must come with every later request (400
 *   without it, 404 once the session is gone); GET opens the session's
 *   stream of messages tied to no request; DELETE ends the session.
 * - 2026-07-28: stateless. Each POST says `MCP-Protocol-Version`, which must
 *   match its `_meta` envelope, and `Mcp-Method` (and `Mcp-Name` for the
 *   methods that name something), each checked against the body (400 with
 *   `-32020` on a mismatch); there is no session, no GET stream, and closing
 *   a request's stream cancels it.
 *
 * An answer the handler gives at once is one JSON body; one it takes longer
 * over, or that it sends messages ahead of, comes as an event stream when the
 * client accepts one, and otherwise as a JSON body whose headers go at once
 * (status 200) and whose text follows, so that a client going away is seen.
 *
 * Every request, whatever its method, must carry the server's bearer token
 * (401 otherwise), name the server in its `Host` when it listens on loopback,
 * and come from no `Origin` or the server's own (403 otherwise: a page that
 * DNS rebinding pointed at the server is refused before anything is read).
 *
 * Lifecycle: `listenHttp` binds at once and serves until `close()` or the
 * given signal. A request's exchange ends with its answer; its signal aborts
 * when its client goes away before it (its stream or its connection closed,
 * `notifications/cancelled` for its id), when its session ends, or at close.
 * A session ends on DELETE or at close, aborting its signal and ending its
 * GET stream; one whose `initialize` is not answered with a result ends at
 * once. `close()` ends every session, stream and body being read, lets the
 * responses still being sent go for `HTTP_CLOSE_GRACE_MS` at most, then
 * closes every connection and waits for the listener to stop; handlers
 * still running are not waited for, and their answers are dropped.
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";
import { describeValue } from "../../codec/quote.ts";
import { Endpoint } from "./_endpoint.ts";
import { checkToken, generateToken, isLoopback, ownOrigins, sha256 } from "./_guard.ts";
import { plain } from "./_response.ts";
import type { HttpMessageHandler } from "./exchange.ts";
import { HTTP_BODY_TIMEOUT_MS, HTTP_CLOSE_GRACE_MS } from "./limits.ts";

export * from "./exchange.ts";
export * from "./limits.ts";

/** The path of the MCP endpoint unless `path` says otherwise. */
export const DEFAULT_HTTP_PATH = "/mcp";

/** Where and how to listen; everything is optional. */
export type ListenHttpOptions = {
  /** The address to bind: `127.0.0.1` unless given; any other is reachable from elsewhere. */
  hostname?: string;
  /** The port: 0 (any free one) unless given. */
  port?: number;
  /** The endpoint's path: {@linkcode DEFAULT_HTTP_PATH} unless given; any other is 404. */
  path?: string;
  /**
   * The bearer token every request must carry (printable ASCII, at least
   * `MIN_TOKEN_CHARS`); one is made when none is given, and the listener
   * says it once (`undefined` too, so `Deno.env.get("LOOM_MCP_TOKEN")` can
   * be passed as it is).
   */
  token?: string | undefined;
  /** Origins let in besides the server's own (`http://localhost:<port>` and the like). */
  allowedOrigins?: readonly string[];
  /**
   * How long, in milliseconds, a POST's body may take to arrive once its
   * headers have (408 past it): {@linkcode HTTP_BODY_TIMEOUT_MS} unless given.
   */
  bodyTimeoutMs?: number;
  /** Closes the server when aborted. */
  signal?: AbortSignal;
};

/** A server listening, with what its clients need. */
export type HttpListener = {
  /** The endpoint, with the port actually bound. */
  readonly url: URL;
  /** The token every request must carry, as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Settles once the server has stopped. */
  readonly finished: Promise<void>;
  /** Ends every session and stream, and stops listening. */
  close(): Promise<void>;
};

/** Why the server could not listen: the address is taken, or not this machine's. */
export type ListenFailure = { kind: "listen_failed"; message: string };

/**
 * Serves `handler` over Streamable HTTP (see the module for the eras, the
 * checks and the lifecycle) and returns the listener, or why it could not
 * listen. Bounds: {@linkcode MAX_HTTP_BODY_BYTES} per body (413), a body
 * whole within `bodyTimeoutMs` of its headers (408),
 * {@linkcode MAX_HTTP_BUFFERED_BODY_BYTES} of bodies being read at once,
 * {@linkcode MAX_HTTP_SESSIONS} sessions and
 * {@linkcode MAX_HTTP_REQUESTS_IN_FLIGHT} requests at once (503), and
 * `MAX_STREAM_BACKLOG_BYTES` unread on a stream.
 *
 * Throws `TypeError` for a token a header cannot carry, `RangeError` for a
 * token shorter than `MIN_TOKEN_CHARS`, a port outside 0 to 65535 or a
 * `bodyTimeoutMs` that is not a positive integer.
 *
 * @example Answer ping, and nothing else
 * ```ts ignore
 * import { listenHttp } from "@loom/mcp/server";
 * const listening = await listenHttp((message) =>
 *   message.method === "ping" ? { jsonrpc: "2.0", id: message.id ?? null, result: {} } : undefined
 * );
 * if (listening.ok) console.error(`listening on ${listening.value.url}`);
 * ```
 */
export async function listenHttp(
  handler: HttpMessageHandler,
  options: ListenHttpOptions = {},
): Promise<Result<HttpListener, ListenFailure>> {
  const hostname = options.hostname ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Cannot listen on port ${describeValue(port)}: give 0 to 65535`);
  }
  if (options.token !== undefined) checkToken(options.token);
  const token = options.token ?? generateToken();
  const bodyTimeoutMs = options.bodyTimeoutMs ?? HTTP_BODY_TIMEOUT_MS;
  if (!Number.isSafeInteger(bodyTimeoutMs) || bodyTimeoutMs < 1) {
    throw new RangeError(
      `Cannot listen: bodyTimeoutMs ${describeValue(bodyTimeoutMs)} is not a positive integer`,
    );
  }
  const endpoint = new Endpoint(handler, {
    path: options.path ?? DEFAULT_HTTP_PATH,
    bodyTimeoutMs,
  });
  // What close() waits for before it closes every connection: the responses still being sent.
  const sending = new Set<Promise<void>>();
  const severed = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname,
      port,
      signal: severed.signal,
      onListen: () => {},
      onError: (error) =>
        plain(500, `Internal error: ${error instanceof Error ? error.message : String(error)}`),
    }, (request, info) => {
      const sent: Promise<void> = info.completed.catch(() => {}).finally(() =>
        sending.delete(sent)
      );
      sending.add(sent);
      return endpoint.serve(request);
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return err({
      kind: "listen_failed",
      message: `Cannot listen on ${hostname}:${port}: ${reason}; pick another port or address`,
    });
  }
  const bound = server.addr.port;
  const origins = ownOrigins(hostname, bound);
  for (const origin of options.allowedOrigins ?? []) origins.add(origin.toLowerCase());
  const hosts = isLoopback(hostname)
    ? new Set([...origins].filter((o) => o.startsWith("http://")).map((o) => o.slice(7)))
    : undefined;
  endpoint.settings = { origins, hosts, digest: await sha256(token) };
  const urlHost = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  const url = new URL(`http://${urlHost}:${bound}${options.path ?? DEFAULT_HTTP_PATH}`);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      endpoint.close();
      // Not server.shutdown(): it waits for every connection to close by itself, and one whose
      // body was left unread (a refused or stalled one) never does. The responses the close just
      // ended are let go first, for HTTP_CLOSE_GRACE_MS at most; then every connection is closed.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all([...sending]),
        new Promise((resolve) => timer = setTimeout(resolve, HTTP_CLOSE_GRACE_MS)),
      ]);
      clearTimeout(timer);
      severed.abort();
      await server.finished;
    })();
    return closing;
  };
  options.signal?.addEventListener("abort", () => void close(), { once: true });
  if (options.signal?.aborted === true) await close();
  return ok({ url, token, finished: server.finished, close });
}
