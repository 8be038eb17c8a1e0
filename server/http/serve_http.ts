/**
 * A {@linkcode serve} server over Streamable HTTP: the same tools, the same
 * serve loop, reached through {@linkcode listenHttp} instead of stdio.
 *
 * Two serve loops run behind the endpoint, one per era: every legacy
 * session's requests go through one (so its tools still run one at a time,
 * as the stderr capture needs), every 2026-07-28 request through the other.
 * Each request is written to its loop under an id of the adapter's own, so
 * that ids of different sessions and clients never meet, and its answer goes
 * back under the client's id. A request whose exchange aborts (its stream
 * closed, its cancellation, its session's end) is cancelled in the loop with
 * `notifications/cancelled`. Only answers come back: what a loop sends of its
 * own (a notification, a request to the client) is dropped. Lifecycle: `close()` stops the listener, then
 * ends both loops' input and waits for them, as `serve` ends at end of input.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue, parseJson } from "../../codec/json.ts";
import { frame } from "../../codec/framing.ts";
import { ok, type Result } from "../../codec/result.ts";
import { serve } from "../serve.ts";
import type { ServerDefinition } from "../tool.ts";
import type { LineRead, LineTransport, TransportFailure } from "../transport.ts";
import {
  type HttpExchange,
  type HttpListener,
  type ListenFailure,
  listenHttp,
  type ListenHttpOptions,
} from "./http_server.ts";

/**
 * Serves `server`'s tools over Streamable HTTP (see {@linkcode listenHttp}
 * for the eras, the token, the checks and the bounds; see {@linkcode serve}
 * for how tools run) and returns the listener, or why it could not listen.
 *
 * Throws `TypeError` for a malformed definition, as `serve` does, and for
 * the options `listenHttp` refuses.
 *
 * @example Serve one tool on a loopback port
 * ```ts ignore
 * import { serveHttp } from "@loom/mcp/server";
 * const listening = await serveHttp({
 *   name: "greeter",
 *   version: "1.0.0",
 *   tools: [{
 *     name: "greet",
 *     description: "Greets someone by name.",
 *     inputSchema: { type: "object", properties: { who: { type: "string" } } },
 *     run: (args) => `Hello, ${String(args.who)}`,
 *   }],
 * }, { port: 8765, token: Deno.env.get("LOOM_MCP_TOKEN") });
 * if (listening.ok) console.error(`listening on ${listening.value.url}`);
 * ```
 */
export async function serveHttp(
  server: ServerDefinition,
  options: ListenHttpOptions = {},
): Promise<Result<HttpListener, ListenFailure>> {
  const legacy = new Loop();
  const modern = new Loop();
  // Both loops check the definition at once, so a malformed one throws before anything listens.
  const ends = [serve(server, legacy), serve(server, modern)];
  const listening = await listenHttp(
    (message, exchange) =>
      (exchange.session === undefined ? modern : legacy).handle(message, exchange),
    options,
  );
  const finish = async (): Promise<void> => {
    legacy.finish();
    modern.finish();
    await Promise.all(ends);
  };
  if (!listening.ok) {
    await finish();
    return listening;
  }
  const listener = listening.value;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await listener.close();
      await finish();
    })();
    return closing;
  };
  return ok({
    url: listener.url,
    token: listener.token,
    finished: listener.finished.then(() => close()),
    close,
  });
}

// One serve loop's channel: requests go in as lines, answers come back by id.
class Loop implements LineTransport {
  readonly network = "tcp";
  #next = 0;
  #lines: string[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #waiting = new Map<number, (answer: JsonObject) => void>();

  async handle(message: JsonObject, exchange: HttpExchange): Promise<JsonObject | undefined> {
    const id = message.id;
    // Only requests reach the loop: its cancellations come from the exchanges' signals, and a
    // serve loop sends no requests, so a client's response answers nothing here.
    if (typeof message.method !== "string" || id === undefined || id === null) return undefined;
    const own = this.#next++;
    const answered = new Promise<JsonObject | undefined>((resolve) => {
      this.#waiting.set(own, resolve);
      const onAbort = (): void => {
        if (!this.#waiting.delete(own)) return;
        this.#push({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: own },
        });
        resolve(undefined);
      };
      if (exchange.signal.aborted) onAbort();
      else exchange.signal.addEventListener("abort", onAbort, { once: true });
    });
    this.#push({ ...message, id: own });
    const answer = await answered;
    return answer === undefined ? undefined : { ...answer, id };
  }

  finish(): void {
    this.#ended = true;
    this.#wake?.();
  }

  readLine(): Promise<Result<LineRead, TransportFailure>> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(ok({ kind: "line", line }));
    if (this.#ended) return Promise.resolve(ok({ kind: "end" }));
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve(this.readLine());
      };
    });
  }

  writeLine(bytes: Uint8Array): Promise<Result<void, TransportFailure>> {
    for (const line of new TextDecoder().decode(bytes).split("\n")) {
      if (line === "") continue;
      const parsed = parseJson(line);
      // Only answers are routed: a serve loop's own requests and notifications tie to no
      // exchange it can name, and an id of theirs must not settle one of ours.
      if (!parsed.ok || !isJsonObject(parsed.value) || "method" in parsed.value) continue;
      const own = ownId(parsed.value.id);
      if (own === undefined) continue;
      const resolve = this.#waiting.get(own);
      this.#waiting.delete(own);
      resolve?.(parsed.value);
    }
    return Promise.resolve(ok(undefined));
  }

  #push(message: JsonObject): void {
    // The loop reads lines without their newline, as its stdio reader gives them.
    this.#lines.push(new TextDecoder().decode(frame(message)).trimEnd());
    this.#wake?.();
  }
}

function ownId(id: JsonValue | undefined): number | undefined {
  return typeof id === "number" && Number.isSafeInteger(id) ? id : undefined;
}
