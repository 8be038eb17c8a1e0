// Private to client/worker/: one launch of a server, as the machine speaks to it:
// its transport, the lines both ways (`_lines.ts`), the requests waiting
// for their answers (`_pending.ts`), its exit and its retirement. A client
// runs on one; a start that launches its server once more (`start.ts`) makes
// a second, and the first is retired before it.
//
// Who closes what: the connection owns its transport from `open` on. What
// ends the channel (a failed write, the exit, the end of its output, a
// framing fault, a malformed line) is told to the machine (`ended`), which
// decides what it means for the client and calls `close`: nothing more is
// written or read, and every waiting request settles with the client's
// error. Its retirement disposes of the transport once the server is gone.

import type { JsonObject, JsonValue } from "../../codec/json.ts";
import { encodeError, encodeResult, type Id, INVALID_REQUEST } from "../../codec/jsonrpc.ts";
import { quote } from "../../codec/quote.ts";
import { frameText } from "../../codec/framing.ts";
import type { Implementation } from "../../codec/protocol.ts";
import type { LogLevel } from "../../codec/server_requests.ts";
import { err, type Result } from "../../codec/result.ts";
import type { Clock } from "../transport/clock.ts";
import type { EraCodec, ServerRequestContext } from "../thread/era.ts";
import { type ServerAnswer, SERVES_NONE } from "../thread/asked.ts";
import { MAX_SERVER_REQUESTS_IN_FLIGHT } from "../../settings/limits.ts";
import { type Pending, PendingTable } from "./_pending.ts";
import {
  callTimedOut,
  type ClientError,
  type DeathCause,
  serverError,
} from "../thread/outcomes.ts";
import type { StartFailure } from "../thread/outcomes.ts";
import { ExitWatch, Retirement, type RetirementOutcome, stoppingFor } from "./retirement.ts";
import { LineRouter, LineWriter, readServerLine } from "./_lines.ts";
import {
  type ChannelEnd,
  type ExitStatus,
  stderrTailOf,
  type Transport,
} from "../transport/transport.ts";

/** How long an end of output waits for the exit status before it is the death reason. */
export const EXIT_AFTER_EOF_GRACE_MS = 50;

/** JSON-RPC's code for an error of the receiver's own. */
const INTERNAL_ERROR = -32603;

/** What a connection is given. */
export type ConnectionOptions = {
  /** The server's name, used in every message. */
  name: string;
  /** The clock of its deadlines. */
  clock: Clock;
  /** The channel ended, and why: called at most once a cause, until `close`. */
  ended(cause: DeathCause, message: string): void;
  /** The server said its tools changed (`notifications/tools/list_changed`, handshake era). */
  toolsChanged?(): void;
  /** A notification the server sent (progress, a task's status), once the session began. */
  notified?(method: string, params: unknown): void;
  /** The server forgot its session and a new one was opened (`TransportSink.renewed`). */
  renewed?(): void;
  /** What the server's requests are answered with; none is served when absent. */
  served?: ServerRequestContext;
};

const SERVE_NONE: ServerRequestContext = {
  served: SERVES_NONE,
  ask: () => Promise.resolve({ ok: false, error: { code: INTERNAL_ERROR, message: "unserved" } }),
};

/** One launch of a server: its transport, its wire, its waiting requests, its retirement. */
export class Connection {
  #transport: Transport;
  #name: string;
  #clock: Clock;
  #ended: (cause: DeathCause, message: string) => void;
  #toolsChanged: (() => void) | undefined;
  #notified: ConnectionOptions["notified"];
  #renewed: ConnectionOptions["renewed"];
  #served: ServerRequestContext;
  /** The server's requests being answered now, by id: aborting one withdraws it. */
  #serving = new Map<Id, AbortController>();
  #exit: ExitWatch;
  #retirement: Retirement;
  #pending: PendingTable;
  #router = new LineRouter();
  #takeRaw = (id: number) => this.#pending.takeRaw(id);
  #writer: LineWriter;
  #opened = false;
  #channelOpen = false;
  #closed = false;
  /** The era of the session, once begun; until then a server's requests are refused. */
  #era: EraCodec | undefined;
  /** Whether a start is under way: its answers are judged as a start's. */
  #starting = true;

  constructor(transport: Transport, options: ConnectionOptions) {
    this.#transport = transport;
    this.#name = options.name;
    this.#clock = options.clock;
    this.#ended = options.ended;
    this.#toolsChanged = options.toolsChanged;
    this.#notified = options.notified;
    this.#renewed = options.renewed;
    this.#served = options.served ?? SERVE_NONE;
    this.#exit = new ExitWatch(this.#clock);
    this.#retirement = new Retirement({
      name: this.#name,
      stopping: stoppingFor(transport.control, {
        name: this.#name,
        exit: this.#exit,
        clock: this.#clock,
      }),
      dispose: () => transport.dispose(),
      clock: this.#clock,
    });
    this.#pending = new PendingTable(this.#clock, (id, p) => this.#expire(id, p, false), transport);
    this.#writer = new LineWriter((data) => this.#write(data));
  }

  /** Whether the transport was opened: there is a server to retire. */
  get opened(): boolean {
    return this.#opened;
  }

  /** Whether the server's real exit has been seen. */
  get exited(): boolean {
    return this.#exit.exit !== undefined;
  }

  /** The server's pid once spawned (`null` for a server that is not a child process). */
  get pid(): number | null {
    const control = this.#transport.control;
    return control.kind === "process" ? control.process.pid : null;
  }

  /** Requests still waiting for an answer. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** Whether the server is remote (an HTTP session), not a process run here. */
  get remote(): boolean {
    return this.#transport.control.kind === "session";
  }

  /** The kept tail of the server's stderr. */
  stderrTail(): string {
    return stderrTailOf(this.#transport.control);
  }

  /** The session's id a remote server gave, if any. */
  sessionId(): string | undefined {
    const control = this.#transport.control;
    return control.kind === "session" ? control.session.sessionId?.() : undefined;
  }

  /** The start failure the transport met that no answer explains (a remote server's). */
  refused(): StartFailure | undefined {
    const control = this.#transport.control;
    return control.kind === "session" ? control.session.refused() : undefined;
  }

  /** Opens the transport: the server is spawned, or its endpoint reached. */
  async open(): Promise<Result<void, { message: string }>> {
    // Open before the first event: a fast server may write, or exit, before
    // `open` resolves.
    this.#opened = true;
    this.#channelOpen = true;
    const opened = await this.#transport.open({
      bytes: (chunk) => this.#onBytes(chunk),
      end: (cause) => this.#onEnd(cause),
      exit: (status) => this.#onExit(status),
      // A request lost with its stream goes again under a new id, still its caller's.
      reissue: (id) => this.#closed ? undefined : this.#pending.rekey(id),
      renewed: () => {
        if (!this.#closed && !this.#starting) this.#renewed?.();
      },
    });
    if (!opened.ok) {
      this.#opened = false;
      this.#channelOpen = false;
    }
    return opened;
  }

  /**
   * The start is over and the session begins in `era`, speaking `version`:
   * the era opens it (`EraCodec.open`), and decides from now on what is
   * written and how the server's messages are answered.
   */
  begin(
    era: EraCodec,
    version: string,
    clientInfo: Implementation,
    capabilities: JsonObject,
    logLevel?: LogLevel,
  ): void {
    this.#starting = false;
    this.#era = era;
    const writer = this.#writer;
    era.open(
      {
        envelope: (meta) => writer.envelope(meta),
        notify: (method) => writer.notification(method),
      },
      version,
      clientInfo,
      capabilities,
      logLevel,
    );
  }

  /**
   * Sends one request whose parameters are compact JSON of an object (text,
   * `""` for none, or UTF-8 bytes): `request` says how it is settled, exactly
   * once, under the method name its era gives it (`EraCodec.wireMethod`).
   */
  request(params: string | Uint8Array, request: Pending): number {
    const id = this.#pending.add(request);
    const method = request.method;
    const wire = this.#era === undefined ? method : this.#era.wireMethod(method);
    const long = request.long;
    if (long === undefined || typeof params !== "string") {
      this.#writer.request(id, wire, params);
      return id;
    }
    const token = long.progress ? `"progressToken":${id}` : "";
    const meta = [long.extra.meta ?? "", token].filter((part) => part !== "").join(",");
    this.#writer.requestWith(id, wire, params, { ...long.extra, meta });
    return id;
  }

  /** Gives up on a request (see the machine's `cancel`); an unknown or settled id does nothing. */
  cancel(id: number, aborted: boolean): void {
    const pending = this.#pending.take(id);
    if (pending !== undefined) this.#expire(id, pending, aborted);
  }

  /** Ends the channel: nothing more is written or read, and every waiting request settles with `error`. */
  close(error: ClientError): void {
    this.#closed = true;
    this.#channelOpen = false;
    for (const pending of this.#pending.takeAll()) pending.settle(err(error));
  }

  /** Retires the server (see `retirement.ts`), or joins the retirement under way. */
  retire(timeoutMs: number): Promise<RetirementOutcome> {
    return this.#retirement.retire(timeoutMs);
  }

  /** Retires the server, answered by `timeoutMs` even if a retirement under way runs longer. */
  retireWithin(timeoutMs: number): Promise<RetirementOutcome> {
    return this.#retirement.retireWithin(timeoutMs);
  }

  /** A request taken out of the table is given up: the caller is told, and the server. */
  #expire(id: number, pending: Pending, aborted: boolean): void {
    if (pending.tellCancel && this.#channelOpen && !this.#closed) {
      this.#writer.notification("notifications/cancelled", {
        requestId: id,
        reason: aborted ? "The caller cancelled the request" : "The request timed out",
      });
    }
    pending.settle(err(callTimedOut(this.#name, pending.method, pending.timeoutMs, aborted)));
  }

  #write(data: string | Uint8Array): void {
    if (!this.#channelOpen) return;
    this.#transport.write(data);
  }

  // ---- inbound ----

  #onBytes(chunk: Uint8Array): void {
    if (!this.#channelOpen) return;
    const pushed = this.#router.push(chunk);
    const lines = pushed.ok ? pushed.value : pushed.error.lines;
    for (const line of lines) {
      if (!this.#channelOpen) return;
      this.#onLine(line);
    }
    if (!pushed.ok) {
      this.#end("framing", `Server "${this.#name}" broke the framing: ${pushed.error.message}`);
    }
  }

  #onLine(bytes: Uint8Array): void {
    const read = this.#router.route(bytes, this.#takeRaw);
    if (read.kind === "raw") return read.pending.raw?.(read.id, bytes);
    if (read.kind === "not_utf8") {
      this.#end("framing", `Server "${this.#name}" broke the framing: ${read.message}`);
      return;
    }
    const message = readServerLine(
      read.line,
      this.#name,
      this.#starting ? "initialize" : undefined,
    );
    switch (message.kind) {
      case "malformed":
        this.#end("malformed", message.message);
        return;
      case "response": {
        const pending = typeof message.id === "number" ? this.#pending.take(message.id) : undefined;
        pending?.settle(
          message.outcome.ok
            ? message.outcome
            : err(serverError(this.#name, pending.method, message.outcome.error)),
        );
        return;
      }
      case "request":
        this.#serve(message.id, message.method, message.params);
        return;
      case "notification":
        if (this.#era !== undefined && message.method === this.#era.toolsChanged) {
          this.#toolsChanged?.();
        }
        if (message.method === "notifications/cancelled") this.#withdraw(message.params);
        if (!this.#starting) this.#notified?.(message.method, message.params);
        return;
    }
  }

  /**
   * A server's request: answered by its era's handler for the method, or
   * refused or dropped as the era says of a method it does not serve (and
   * refused before the session began).
   */
  #serve(id: Id, method: string, params: JsonValue | undefined): void {
    const era = this.#era;
    const handler = era?.serverRequests.get(method);
    if (handler === undefined) {
      if (era === undefined || era.refusesUnknown) this.#writer.refuse(id, method);
      return;
    }
    if (this.#serving.has(id)) {
      // Its cancellation could not tell the two apart.
      this.#write(frameText(encodeError(id, {
        code: INVALID_REQUEST,
        message:
          `Invalid request: id ${typeof id === "string" ? quote(id, 40) : id} is already being ` +
          `answered; a server must not reuse the id of a request in flight (${
            method.slice(0, 100)
          })`,
      })));
      return;
    }
    if (this.#serving.size >= MAX_SERVER_REQUESTS_IN_FLIGHT) {
      this.#write(frameText(encodeError(id, {
        code: INTERNAL_ERROR,
        message: `Too many requests at once: this client answers at most ` +
          `${MAX_SERVER_REQUESTS_IN_FLIGHT} (${method.slice(0, 100)})`,
      })));
      return;
    }
    const controller = new AbortController();
    this.#serving.set(id, controller);
    const answered = (answer: ServerAnswer) => {
      if (this.#serving.get(id) === controller) this.#serving.delete(id);
      // A request the server cancelled is not answered (as the specification asks).
      if (this.#closed || controller.signal.aborted) return;
      const reply = answer.ok ? encodeResult(id, answer.value) : encodeError(id, answer.error);
      let line: string;
      try {
        line = frameText(reply);
      } catch (error) {
        // An answer JSON cannot say (the main thread checks; this is the backstop).
        line = frameText(encodeError(id, {
          code: INTERNAL_ERROR,
          message: `The client's answer cannot be written as JSON: ${
            String(error instanceof Error ? error.message : error).slice(0, 300)
          }`,
        }));
      }
      this.#write(line);
    };
    void handler(params, this.#served, controller.signal).then(answered, (error) =>
      answered({
        ok: false,
        error: {
          code: INTERNAL_ERROR,
          message: `The client failed to answer: ${
            String(error instanceof Error ? error.message : error).slice(0, 300)
          }`,
        },
      }));
  }

  /**
   * The server cancelled one of its requests (`notifications/cancelled`,
   * its `requestId`): the handler answering it is withdrawn. A cancellation
   * of anything else changes nothing.
   */
  #withdraw(params: JsonObject | JsonValue[] | undefined): void {
    if (params === undefined || Array.isArray(params)) return;
    const id = params.requestId;
    if (typeof id !== "string" && typeof id !== "number") return;
    const controller = this.#serving.get(id);
    if (controller === undefined) return;
    this.#serving.delete(id);
    controller.abort();
  }

  #onEnd(cause: ChannelEnd): void {
    if (cause.kind === "http_failed") return this.#end("http_failed", cause.message);
    if (cause.kind === "write_failed") {
      this.#end("write_failed", `Cannot write to server "${this.#name}": ${cause.message}`);
      return;
    }
    // End of stdout usually means the exit is on its way; its status says more
    // to a person than "stdout closed", so it is given a moment to arrive.
    this.#channelOpen = false;
    if (this.#exit.exit !== undefined || this.#closed) return;
    const message = `Server "${this.#name}" closed its stdout: ${cause.message}`;
    this.#exit.whenExit(this.#clock.now() + EXIT_AFTER_EOF_GRACE_MS, (exited) => {
      if (!exited) this.#end("stdout_closed", message);
    });
  }

  #onExit(status: ExitStatus): void {
    if (!this.#exit.exited(status)) return;
    const how = status.signal === null ? `with code ${status.code}` : `on signal ${status.signal}`;
    this.#end("exited", `Server "${this.#name}" exited ${how}`);
  }

  #end(cause: DeathCause, message: string): void {
    if (this.#closed) return;
    this.#channelOpen = false;
    this.#ended(cause, message);
  }
}
