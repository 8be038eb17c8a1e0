/**
 * A harness served to another MCP host as code mode: {@linkcode serveHarness}
 * reads the host's lines from a `LineTransport` (stdin and stdout by
 * default), hands each decoded message to one {@linkcode GatewaySession},
 * and writes what the session sends, one line each, in order.
 *
 * Lifecycle: the loop ends at end of input, a dead channel or the abort of
 * its `signal` (a read then under way is left to settle); the session is
 * then closed (its runs aborted, their calls cancelled) before it returns.
 * The harness stays the caller's to retire.
 *
 * Over Streamable HTTP (the `http` option) it listens instead and returns
 * at once with the endpoint's URL, its token and a `close`: each 2025
 * session of a host gets its own session, every 2026-07-28 request is
 * served by one shared among them; `close()` (or the signal) stops the
 * listener and closes them all.
 *
 * @module
 */

import {
  decodeInbound,
  encodeError,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  PARSE_ERROR,
} from "../codec/jsonrpc.ts";
import type { JsonObject } from "../codec/json.ts";
import { frame } from "../codec/framing.ts";
import type { Harness } from "../harness/mod.ts";
import type { Result } from "../codec/result.ts";
import { stdioTransport } from "../server/mod.ts";
import { GatewaySession } from "./session.ts";
import { type GatewayHttp, listenGateway } from "./_http.ts";

// The channel's shapes are those of server/'s LineTransport, written out in
// the signature so that the root export names no more types for it.
type Failure = { kind: "read_failed" | "write_failed"; message: string };
type LineChannel = {
  readLine(): Promise<
    Result<
      { kind: "line"; line: string } | { kind: "bad_line"; message: string } | { kind: "end" },
      Failure
    >
  >;
  writeLine(frame: Uint8Array): Promise<Result<void, Failure>>;
};

// What both forms of serveHarness take besides their channel (written out in their signatures).
type GatewayServeOptions = {
  /** Ask the host by form elicitation before each call not marked read-only. */
  approve?: boolean;
  /** Each program's deadline, in milliseconds. */
  deadlineMs?: number;
  /** The bytes a program's report may take. */
  maxOutputBytes?: number;
  /** What `initialize` says the server is; `loom-mcp` by default. */
  serverInfo?: { name: string; version: string };
  /** Sent as `instructions` to the host. */
  instructions?: string;
  /** Ends the loop (or closes the listener) when aborted. */
  signal?: AbortSignal;
};

/**
 * Serves `harness` as an MCP server of exactly three tools (`search_tools`,
 * `describe_tool`, `run_program`) over `options.transport` (stdio when
 * omitted) until the host's input ends or the channel dies, and says which.
 * `run_program`'s description carries the harness's surface, so the host's
 * model knows what a program may import before its first call. The host's
 * first `search_tools` or `describe_tool` starts code mode
 * (`harness.prepareRunner()`) once it is answered, so the program that
 * follows finds its checker and sandbox ready; a host that never calls a
 * tool costs neither.
 *
 * `harness` may be the promise of a `boot` still under way: the host's
 * `initialize` (and `ping`) are answered at once, since hosts give a server
 * little time to start, and `tools/list` and calls wait for the boot, which
 * its own deadlines bound.
 *
 * The options are those of a gateway session, and `transport`: any
 * `LineTransport` of `@loom/mcp/server` (its `stdioTransport()` when
 * omitted). Throws `RangeError` for a `deadlineMs` or a `maxOutputBytes`
 * that is not a positive integer.
 *
 * @example Offer a harness's servers to a host over stdio
 * ```ts ignore
 * import { boot, serveHarness } from "@loom/mcp";
 * const harness = await boot(specs);
 * try {
 *   await serveHarness(harness, { approve: true });
 * } finally {
 *   await harness.retire();
 * }
 * ```
 */
export function serveHarness(
  harness: Harness | Promise<Harness>,
  options?: {
    /** Ask the host by form elicitation before each call not marked read-only. */
    approve?: boolean;
    /** Each program's deadline, in milliseconds. */
    deadlineMs?: number;
    /** The bytes a program's report may take. */
    maxOutputBytes?: number;
    /** What `initialize` says the server is; `loom-mcp` by default. */
    serverInfo?: { name: string; version: string };
    /** Sent as `instructions` to the host. */
    instructions?: string;
    /** Ends the loop (or closes the listener) when aborted. */
    signal?: AbortSignal;
    /** The channel to the host; stdin and stdout by default. */
    transport?: {
      readLine(): Promise<
        Result<
          { kind: "line"; line: string } | { kind: "bad_line"; message: string } | { kind: "end" },
          { kind: "read_failed" | "write_failed"; message: string }
        >
      >;
      writeLine(
        frame: Uint8Array,
      ): Promise<Result<void, { kind: "read_failed" | "write_failed"; message: string }>>;
    };
  },
): Promise<
  | { kind: "end_of_input" }
  | { kind: "channel_dead"; failure: { kind: "read_failed" | "write_failed"; message: string } }
>;
/**
 * Serves `harness` as code mode's three tools over Streamable HTTP: listens
 * on `options.http` (loopback, any free port, path `/mcp` unless given) and
 * returns the endpoint's URL, the bearer token every request must carry
 * (the one given, or one made), a `close`, and `finished`; or why it could
 * not listen. Every request needs the token (401 otherwise) and no
 * `Origin` but the server's own (403). `close()` or the signal ends every
 * session and its runs; the harness stays the caller's to retire.
 *
 * Throws as the stdio form does, and for a token `listenHttp` refuses
 * (`TypeError` unprintable, `RangeError` shorter than `MIN_TOKEN_CHARS`).
 *
 * @example Serve a harness on a loopback port
 * ```ts ignore
 * import { boot, serveHarness } from "@loom/mcp";
 * const harness = await boot(specs);
 * const listening = await serveHarness(harness, {
 *   http: { port: 8931, token: Deno.env.get("LOOM_MCP_TOKEN") },
 * });
 * if (listening.ok) {
 *   console.error(`listening on ${listening.value.url}`);
 *   await listening.value.finished;
 * }
 * await harness.retire();
 * ```
 */
export function serveHarness(
  harness: Harness | Promise<Harness>,
  options: {
    /** Ask the host by form elicitation before each call not marked read-only. */
    approve?: boolean;
    /** Each program's deadline, in milliseconds. */
    deadlineMs?: number;
    /** The bytes a program's report may take. */
    maxOutputBytes?: number;
    /** What `initialize` says the server is; `loom-mcp` by default. */
    serverInfo?: { name: string; version: string };
    /** Sent as `instructions` to the host. */
    instructions?: string;
    /** Ends the loop (or closes the listener) when aborted. */
    signal?: AbortSignal;
    /** Where to listen; loopback (`127.0.0.1`) and any free port unless given. */
    http: {
      /** The address to bind; `127.0.0.1` unless given. */
      hostname?: string;
      /** The port; 0 (any free one) unless given. */
      port?: number;
      /** The endpoint's path; `/mcp` unless given. */
      path?: string;
      /** The bearer token (`LOOM_MCP_TOKEN`, say); one is made when undefined. */
      token?: string | undefined;
      /** Origins let in besides the server's own. */
      allowedOrigins?: readonly string[];
    };
  },
): Promise<
  Result<
    { url: URL; token: string; finished: Promise<void>; close(): Promise<void> },
    { kind: "listen_failed"; message: string }
  >
>;
export async function serveHarness(
  harness: Harness | Promise<Harness>,
  options: GatewayServeOptions & {
    transport?: LineChannel;
    http?: GatewayHttp;
  } = {},
): Promise<
  | { kind: "end_of_input" }
  | { kind: "channel_dead"; failure: Failure }
  | Result<
    { url: URL; token: string; finished: Promise<void>; close(): Promise<void> },
    { kind: "listen_failed"; message: string }
  >
> {
  if (options.http !== undefined) {
    const { http, signal, transport: _unused, ...gateway } = options;
    // A session checks the options; one made up front throws before anything listens.
    new GatewaySession(harness, { ...gateway, send: () => {} });
    return await listenGateway(harness, gateway, http, signal);
  }
  const transport = options.transport ?? stdioTransport();
  let dead: Failure | undefined;
  let writing: Promise<void> = Promise.resolve();
  const died = Promise.withResolvers<undefined>();
  const send = (message: JsonObject): void => {
    if (dead !== undefined) return;
    const line = framed(message);
    if (line === undefined) return;
    writing = writing.then(async () => {
      if (dead !== undefined) return;
      const written = await transport.writeLine(line);
      if (!written.ok) {
        dead = written.error;
        died.resolve(undefined);
      }
    });
  };
  const { transport: _transport, signal, ...gateway } = options;
  const aborted = new Promise<undefined>((resolve) => {
    if (signal?.aborted) resolve(undefined);
    signal?.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  const session = new GatewaySession(harness, { ...gateway, send });
  let readFailure: Failure | undefined;
  try {
    while (dead === undefined) {
      const read = await Promise.race([transport.readLine(), died.promise, aborted]);
      if (read === undefined) break;
      if (!read.ok) {
        readFailure = read.error;
        break;
      }
      const event = read.value;
      if (event.kind === "end") break;
      if (event.kind === "bad_line") {
        send(encodeError(null, { code: PARSE_ERROR, message: `Parse error: ${event.message}` }));
        continue;
      }
      const decoded = decodeInbound(event.line);
      if (!decoded.ok) {
        const fault = decoded.error;
        const code = fault.kind === "malformed" ? PARSE_ERROR : INVALID_REQUEST;
        // A request whose id could be read is answered by it.
        const id = fault.kind === "bad_message" ? fault.id ?? null : null;
        send(encodeError(id, { code, message: fault.message }));
        continue;
      }
      session.handle(decoded.value);
    }
  } finally {
    await session.close();
    await writing;
  }
  const failure = dead ?? readFailure;
  return failure === undefined ? { kind: "end_of_input" } : { kind: "channel_dead", failure };
}

/**
 * One message as its line. One that JSON cannot say is never sent as
 * something else: an answer becomes the error answering the same request,
 * and anything else is not sent (`undefined`).
 */
function framed(message: JsonObject): Uint8Array | undefined {
  try {
    return frame(message);
  } catch (error) {
    const id = message.id;
    if ("method" in message || (typeof id !== "number" && typeof id !== "string")) return undefined;
    const why = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    return frame(encodeError(id, {
      code: INTERNAL_ERROR,
      message: `Internal error: the answer could not be written as JSON (${why})`,
    }));
  }
}
