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
 * @module
 */

import { decodeInbound, encodeError, INVALID_REQUEST, PARSE_ERROR } from "../codec/jsonrpc.ts";
import type { JsonObject } from "../codec/json.ts";
import { frame } from "../codec/framing.ts";
import type { Harness } from "../harness/mod.ts";
import type { Result } from "../codec/result.ts";
import { stdioTransport } from "../server/mod.ts";
import { GatewaySession } from "./session.ts";

// The channel's shapes are those of server/'s LineTransport, written out in
// the signature so that the root export names no more types for it.
type Failure = { kind: "read_failed" | "write_failed"; message: string };

/**
 * Serves `harness` as an MCP server of exactly three tools (`search_tools`,
 * `describe_tool`, `run_program`) over `options.transport` (stdio when
 * omitted) until the host's input ends or the channel dies, and says which.
 * `run_program`'s description carries the harness's surface, so the host's
 * model knows what a program may import before its first call.
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
export async function serveHarness(
  harness: Harness,
  options: {
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
    /** Ends the loop when aborted, as the end of the host's input does. */
    signal?: AbortSignal;
  } = {},
): Promise<
  | { kind: "end_of_input" }
  | { kind: "channel_dead"; failure: { kind: "read_failed" | "write_failed"; message: string } }
> {
  const transport = options.transport ?? stdioTransport();
  let dead: Failure | undefined;
  let writing: Promise<void> = Promise.resolve();
  const died = Promise.withResolvers<undefined>();
  const send = (message: JsonObject): void => {
    if (dead !== undefined) return;
    const line = frame(message);
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
        const code = decoded.error.kind === "malformed" ? PARSE_ERROR : INVALID_REQUEST;
        send(encodeError(null, { code, message: decoded.error.message }));
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
