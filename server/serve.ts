/**
 * The serve loop: line-delimited JSON-RPC 2.0 over a {@linkcode LineTransport}.
 *
 * Lifecycle: the loop reads until end of input or a dead channel, and never
 * stops reading for the tools: requests other than `tools/call`, and
 * notifications, are handled as they are read, so a `ping` or a cancellation
 * is answered or obeyed at once even while a tool runs and calls wait. Tool
 * calls queue and run one at a time (that is what lets a run redirect the
 * process-global fd 2). Memory stays bounded: while
 * {@linkcode MAX_QUEUED_CALLS} calls wait (or their lines hold
 * {@linkcode MAX_QUEUED_CHARS}), the loop stops reading until a call starts,
 * so a client that pipelines many calls is answered every one of them; but
 * when no call has started for {@linkcode QUEUE_STALL_MS} (the running tool
 * is slow, or ignores its cancellation), it reads on, so that pings and
 * cancellations are still read, and answers a call past the bound at once
 * with {@linkcode SERVER_BUSY} (it never runs). A slow reader of our replies
 * (past {@linkcode MAX_UNSENT_BYTES}) also holds the loop back.
 *
 * A cancelled run is given {@linkcode CANCELLED_CALL_GRACE_MS} to end; one
 * still running then is abandoned: its capture ends (what it still writes to
 * fd 2 goes where fd 2 then points, which may be the next run's capture), the
 * next call starts, and its answer, if it ever returns, is dropped (a
 * cancelled call gets no answer). While {@linkcode MAX_ABANDONED_CALLS}
 * abandoned runs have not returned, no call starts: waiting and new calls are
 * answered {@linkcode SERVER_BUSY} until one returns. At end of input every
 * call already read is still run and answered, then the loop ends; it waits
 * for no abandoned run. A failed write kills the channel: the running tool is
 * let finish (a cancelled one, until its grace ends), queued calls are
 * dropped, and the loop ends reporting the failure.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import {
  encodeError,
  encodeResult,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
} from "../codec/jsonrpc.ts";
import { frame } from "../codec/framing.ts";
import { legacyInitializeResult } from "../codec/protocol.ts";
import { DISCOVER_METHOD } from "../codec/stateless.ts";
import {
  type ConnectionEra,
  discoverResult,
  judgeRequest,
  type ListCache,
  modernResult,
} from "./_era.ts";
import { joinBytes } from "../codec/_bytes.ts";
import { type Call, runCall } from "./run_tool.ts";
import { describeValue } from "../codec/quote.ts";
import { classifyLine, idKey, type WireId } from "./_inbound.ts";
import { checkDefinition } from "./_definition.ts";
import { byName, descriptor } from "./_listing.ts";
import { ServerTraces } from "./_traces.ts";
import { tracing } from "../telemetry/mcp.ts";
import type { ServerDefinition, Tool } from "./tool.ts";
import {
  MAX_ABANDONED_CALLS,
  MAX_QUEUED_CALLS,
  MAX_QUEUED_CHARS,
  MAX_UNSENT_BYTES,
  QUEUE_STALL_MS,
  SERVER_BUSY,
} from "./limits.ts";

export * from "./limits.ts";
import { type LineTransport, stdioTransport, type TransportFailure } from "./transport.ts";

/** How a serve loop ended: its input ended, or its channel died (with why). */
export type ServeEnd =
  | { kind: "end_of_input" }
  | { kind: "channel_dead"; failure: TransportFailure };

/**
 * How long a client may reuse a modern-era listing (`ttlMs` of
 * `tools/list` and `server/discover`) unless the definition says otherwise:
 * 1 hour, since the tools of a serve loop never change while it runs.
 */
export const LIST_TTL_MS = 3_600_000;

export {
  CANCELLED_CALL_GRACE_MS,
  CHILD_STDERR_DRAIN_MS,
  STDERR_BLOCK_META_KEY,
} from "./run_tool.ts";

/**
 * Serves `server`'s tools over `transport` (stdin and stdout when omitted)
 * until end of input or a dead channel, and says which.
 *
 * Methods: `initialize` (answers the requested protocol version when it is
 * supported, else the newest), `ping`, `tools/list` (sorted by name, one
 * page), `tools/call` (sequential; a missing or non-string `name` is
 * `-32602`, an unknown tool `-32601`, a throwing tool an `isError` result).
 * Anything else is `-32601`, also before `initialize`.
 *
 * Both protocol eras on one connection: a request carrying the 2026-07-28
 * envelope in `params._meta` is validated on its own and served statelessly
 * (`server/discover` answers the tools capability and the versions served;
 * results carry `resultType`, list results `ttlMs` and `cacheScope` from
 * `listCache`); a request without one is served as the legacy era, and
 * `initialize` keeps the connection in that era. A tool that needs the
 * client's input (an `input_required` result) is not supported. Notifications (no id
 * or a null id) get no answer; `notifications/cancelled` drops a queued call
 * or aborts the running call's `signal` (the next call starts once it ends, or
 * after `CANCELLED_CALL_GRACE_MS` if it ignores it), and the cancelled call is
 * not answered. A call past a bound of the queue (`MAX_QUEUED_CALLS`,
 * `MAX_QUEUED_CHARS`) or while `MAX_ABANDONED_CALLS` cancelled runs ignore
 * their signal is answered `SERVER_BUSY` (-32005) at once. A line that is not
 * a JSON-RPC object, a batch, or a line past
 * `MAX_LINE_BYTES` is answered `-32700` and the loop goes on.
 *
 * A run's stderr is captured (see `captureStderr`) and, when not empty,
 * appended to the result as a last text block whose `_meta` holds
 * {@linkcode STDERR_BLOCK_META_KEY}. A result whose line would pass
 * `MAX_LINE_BYTES`, or that JSON cannot say, is replaced by an `isError`
 * result saying so. Run servers with `--no-prompt`: a tool never prompts.
 *
 * Throws `TypeError` for a malformed definition: an empty name or version, a
 * tool name outside `A-Z a-z 0-9 _ - .` (1 to 128 characters), two tools of
 * one name, an `inputSchema` or `outputSchema` that is not an object schema,
 * a `title` or `annotations` of the wrong types. A tool with an `outputSchema`
 * whose result (not an error) has no `structuredContent` is answered `isError`.
 *
 * @example Serve one tool on stdio
 * ```ts ignore
 * import { serve } from "@loom/mcp/server";
 * const end = await serve({
 *   name: "greeter",
 *   version: "1.0.0",
 *   tools: [{
 *     name: "greet",
 *     description: "Greets someone by name.",
 *     inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
 *     run: (args) => `Hello, ${String(args.who)}`,
 *   }],
 * });
 * if (end.kind === "channel_dead") Deno.exit(1);
 * ```
 */
export function serve(server: ServerDefinition, transport?: LineTransport): Promise<ServeEnd> {
  const tools = checkDefinition(server);
  return new Session(server, tools, transport ?? stdioTransport()).run();
}

// One connection's state. The reader (`run`) and the tool worker (`#work`)
// share the queue; writes go through one chain so lines never interleave.
class Session {
  #server: ServerDefinition;
  #tools: Map<string, Tool>;
  #transport: LineTransport;
  #listing: JsonObject;
  #modernListing: JsonObject;
  #info: JsonObject;
  #cache: ListCache;
  #instructions: string | undefined;
  #era: ConnectionEra = "opening";
  #queue: Call[] = [];
  #queuedChars = 0;
  #running: Call | undefined;
  #abandoned = 0;
  #inputEnded = false;
  #dead: TransportFailure | undefined;
  #readFailure: TransportFailure | undefined;
  #onDead: (() => void) | undefined;
  #deadSignal: Promise<void>;
  #wakeWorker: (() => void) | undefined;
  // When a call last started, and who waits for one to start (the reader, at a full queue).
  #lastStart = performance.now();
  #onStart: (() => void) | undefined;
  #outbox: Uint8Array[] = [];
  #outboxBytes = 0;
  #flushing: Promise<void> | undefined;
  // The session's spans, only while a tracer provider is registered.
  #traces: ServerTraces | undefined;

  constructor(server: ServerDefinition, tools: Map<string, Tool>, transport: LineTransport) {
    if (tracing()) this.#traces = new ServerTraces(transport.network ?? "pipe");
    this.#server = server;
    this.#tools = tools;
    this.#transport = transport;
    this.#listing = { tools: [...tools.values()].sort(byName).map(descriptor) };
    this.#info = { name: server.name, version: server.version };
    if (server.title !== undefined) this.#info.title = server.title;
    this.#instructions = server.instructions;
    this.#cache = {
      ttlMs: server.listCache?.ttlMs ?? LIST_TTL_MS,
      cacheScope: server.listCache?.cacheScope ?? "private",
    };
    this.#modernListing = modernResult(
      { ...this.#listing, ttlMs: this.#cache.ttlMs, cacheScope: this.#cache.cacheScope },
      this.#info,
    );
    this.#deadSignal = new Promise((resolve) => this.#onDead = resolve);
  }

  async run(): Promise<ServeEnd> {
    const worker = this.#work();
    while (this.#dead === undefined) {
      const read = await Promise.race([this.#transport.readLine(), this.#deadSignal]);
      if (read === undefined) break;
      if (!read.ok) {
        this.#readFailure = read.error;
        break;
      }
      const event = read.value;
      if (event.kind === "end") break;
      if (event.kind === "bad_line") {
        this.#reply(
          encodeError(null, { code: PARSE_ERROR, message: `Parse error: ${event.message}` }),
        );
      } else {
        this.#handle(event.line);
      }
      // A slow channel holds the reader back instead of letting replies pile up.
      if (this.#outboxBytes > MAX_UNSENT_BYTES) await this.#flushing;
      // So does a full queue, while its calls keep starting.
      if (this.#queueFull()) await this.#roomOrStall();
    }
    this.#inputEnded = true;
    this.#wakeWorker?.();
    await worker;
    await this.#flushing;
    const failure = this.#dead ?? this.#readFailure;
    this.#traces?.ended(failure !== undefined);
    return failure === undefined ? { kind: "end_of_input" } : { kind: "channel_dead", failure };
  }

  #handle(line: string): void {
    const inbound = classifyLine(line);
    if (inbound.kind === "refused") {
      this.#reply(encodeError(inbound.id, { code: inbound.code, message: inbound.message }));
      return;
    }
    if (inbound.kind === "notification") {
      if (inbound.method === "notifications/cancelled" && isJsonObject(inbound.params)) {
        this.#cancel(inbound.params.requestId);
      }
      return;
    }
    const { id, method, params } = inbound;
    const known = method === "initialize" || method === "ping" || method === "tools/list" ||
      method === "tools/call" || method === DISCOVER_METHOD;
    if (this.#traces !== undefined) {
      const named = isJsonObject(params) ? params.name : undefined;
      const served = typeof named === "string" && this.#tools.has(named);
      this.#traces.open(id, method, isJsonObject(params) ? params : undefined, served);
    }
    if (!known) {
      this.#fail(id, METHOD_NOT_FOUND, `Method not found: ${describeValue(method)}`);
      return;
    }
    if (params !== undefined && !isJsonObject(params)) {
      this.#fail(
        id,
        INVALID_PARAMS,
        `Invalid params: "params" of ${describeValue(method)} is ${
          describeValue(params)
        }, not an object`,
      );
      return;
    }
    const body: JsonObject = params ?? {};
    const judged = judgeRequest(this.#era, method, body);
    if (judged.kind === "refuse") {
      const { code, message, data } = judged;
      this.#reply(
        encodeError(id, data === undefined ? { code, message } : { code, message, data }),
      );
      return;
    }
    const modern = judged.kind === "modern";
    // A 2026-07-28 request says its version itself; a legacy one has the session's.
    if (judged.kind === "modern") this.#traces?.versioned(id, judged.version);
    if (modern && method !== DISCOVER_METHOD) this.#era = "modern";
    switch (method) {
      case DISCOVER_METHOD:
        this.#reply(encodeResult(id, discoverResult(this.#info, this.#cache, this.#instructions)));
        return;
      case "initialize": {
        this.#era = "legacy";
        const result = this.#initialize(body);
        this.#traces?.negotiated(String(result.protocolVersion));
        this.#reply(encodeResult(id, result));
        return;
      }
      case "ping":
        this.#reply(encodeResult(id, {}));
        return;
      case "tools/list":
        if (body.cursor !== undefined) {
          this.#fail(
            id,
            INVALID_PARAMS,
            `Invalid params: cursor ${describeValue(body.cursor)} was never issued`,
          );
          return;
        }
        this.#reply(encodeResult(id, modern ? this.#modernListing : this.#listing));
        return;
      case "tools/call":
        this.#enqueue(id, body, { modern, chars: line.length });
        return;
    }
  }

  #initialize(params: JsonObject): JsonObject {
    return legacyInitializeResult(params, this.#info, this.#server.instructions);
  }

  #enqueue(id: WireId, params: JsonObject, read: { modern: boolean; chars: number }): void {
    const name = params.name;
    if (typeof name !== "string") {
      this.#fail(
        id,
        INVALID_PARAMS,
        `Invalid params: tool "name" is ${describeValue(name)}, not a string`,
      );
      return;
    }
    const tool = this.#tools.get(name);
    if (tool === undefined) {
      this.#fail(
        id,
        METHOD_NOT_FOUND,
        `Unknown tool: ${describeValue(name)}; tools/list names the tools`,
      );
      return;
    }
    const args = params.arguments ?? {};
    if (!isJsonObject(args)) {
      this.#fail(
        id,
        INVALID_PARAMS,
        `Invalid params: "arguments" of tool ${describeValue(name)} is ${
          describeValue(args)
        }, not an object`,
      );
      return;
    }
    const busy = this.#abandonedBusy(name) ?? this.#queueBusy(name, read.chars);
    if (busy !== undefined) {
      this.#fail(id, SERVER_BUSY, busy);
      return;
    }
    const info = this.#info;
    this.#queue.push({
      id,
      tool,
      args,
      controller: new AbortController(),
      chars: read.chars,
      ...(read.modern ? { decorate: (result: JsonObject) => modernResult(result, info) } : {}),
    });
    this.#queuedChars += read.chars;
    this.#wakeWorker?.();
  }

  #queueFull(): boolean {
    return this.#queue.length >= MAX_QUEUED_CALLS || this.#queuedChars >= MAX_QUEUED_CHARS;
  }

  /**
   * Waits, at a full queue, until a call starts or the queue has gone
   * {@linkcode QUEUE_STALL_MS} without one (then the reader goes on, and a
   * call past the bound is refused), or the channel dies.
   */
  async #roomOrStall(): Promise<void> {
    const left = QUEUE_STALL_MS - (performance.now() - this.#lastStart);
    if (left <= 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => this.#onStart = resolve),
        new Promise<void>((resolve) => timer = setTimeout(resolve, left)),
        this.#deadSignal,
      ]);
    } finally {
      clearTimeout(timer);
      this.#onStart = undefined;
    }
  }

  // Why a call cannot start now that too many runs ignore their cancellation, if so.
  #abandonedBusy(name: string): string | undefined {
    if (this.#abandoned < MAX_ABANDONED_CALLS) return undefined;
    return `Cannot run tool ${JSON.stringify(name)}: ${this.#abandoned} cancelled calls are ` +
      `still running, ignoring their cancellation (MAX_ABANDONED_CALLS); try again later, ` +
      `or restart the server`;
  }

  // Why a call of `chars` characters cannot wait in the queue, if so.
  #queueBusy(name: string, chars: number): string | undefined {
    const tool = JSON.stringify(name);
    const retry = "send it again once earlier calls are answered";
    if (this.#queue.length >= MAX_QUEUED_CALLS) {
      return `Cannot queue tool ${tool}: ${this.#queue.length} calls are waiting to start ` +
        `(MAX_QUEUED_CALLS); ${retry}`;
    }
    if (this.#queuedChars + chars > MAX_QUEUED_CHARS) {
      return `Cannot queue tool ${tool}: the waiting calls hold ${this.#queuedChars} characters ` +
        `of requests and this one ${chars}, past ${MAX_QUEUED_CHARS} (MAX_QUEUED_CHARS); ${retry}`;
    }
    return undefined;
  }

  #cancel(requestId: JsonValue | undefined): void {
    if (
      typeof requestId !== "string" && typeof requestId !== "number" &&
      typeof requestId !== "bigint"
    ) return;
    const key = idKey(requestId);
    const index = this.#queue.findIndex((call) => idKey(call.id) === key);
    if (index >= 0) {
      const [dropped] = this.#queue.splice(index, 1);
      this.#queuedChars -= dropped?.chars ?? 0;
      if (dropped !== undefined) this.#traces?.dropped(dropped.id);
    } else if (this.#running !== undefined && idKey(this.#running.id) === key) {
      this.#running.controller.abort(new Error("The client cancelled this call"));
    }
  }

  async #work(): Promise<void> {
    while (this.#dead === undefined) {
      const call = this.#queue.shift();
      if (call === undefined) {
        if (this.#inputEnded) return;
        await new Promise<void>((resolve) => this.#wakeWorker = resolve);
        this.#wakeWorker = undefined;
        continue;
      }
      this.#queuedChars -= call.chars;
      this.#lastStart = performance.now();
      this.#onStart?.();
      const busy = this.#abandonedBusy(call.tool.name);
      if (busy !== undefined) {
        this.#fail(call.id, SERVER_BUSY, busy);
        continue;
      }
      this.#running = call;
      const outcome = await runCall(call);
      this.#running = undefined;
      if (outcome.kind === "abandoned") {
        this.#abandoned++;
        void outcome.ended.then(() => this.#abandoned--);
        this.#traces?.dropped(call.id);
      } else if (!call.controller.signal.aborted) {
        this.#traces?.answered(call.id, outcome.line);
        this.#send(outcome.line);
      } else {
        this.#traces?.dropped(call.id);
      }
    }
  }

  #fail(id: WireId, code: number, message: string): void {
    this.#reply(encodeError(id, { code, message }));
  }

  #reply(message: JsonObject): void {
    this.#traces?.replied(message);
    this.#send(frame(message));
  }

  // Replies wait in the outbox while a write is in flight and leave together
  // in the next write: one write per burst, not per reply.
  #send(line: Uint8Array): void {
    if (this.#dead !== undefined) return;
    this.#outbox.push(line);
    this.#outboxBytes += line.length;
    this.#flushing ??= this.#flush();
  }

  async #flush(): Promise<void> {
    while (this.#outbox.length > 0 && this.#dead === undefined) {
      const lines = this.#outbox;
      const size = this.#outboxBytes;
      this.#outbox = [];
      this.#outboxBytes = 0;
      const written = await this.#transport.writeLine(
        lines.length === 1 ? lines[0] as Uint8Array : joinBytes(lines, size),
      );
      if (!written.ok) {
        this.#dead = written.error;
        this.#outbox = [];
        this.#outboxBytes = 0;
        this.#onDead?.();
        this.#wakeWorker?.();
      }
    }
    this.#flushing = undefined;
  }
}
