/**
 * The client state machine: one MCP server over a {@linkcode Transport},
 * with deadlines on an injected {@linkcode Clock}. It does the handshake,
 * sends requests and settles them from their answers, reads what the server
 * writes, and dies; how a server is retired is `retirement.ts`.
 *
 * Lifecycle ({@linkcode ClientState}): `parked` → `connecting` → `ready`; a
 * start that fails ends `failed`, a ready client that loses its server ends
 * `dead`, and `shutdown` leads through `retiring` to `retired`. Who closes
 * what: the machine owns the transport from `open` on. Any death (a failed
 * write, the exit, a framing fault, a malformed line, a shutdown) settles
 * every waiting request once with `unavailable`, latches its reason, and
 * starts the retirement, which disposes of the transport once the exit has
 * been seen. Only that real exit, or never having opened, is retirement
 * evidence.
 *
 * The machine hands back raw results: what a result means is decoded once,
 * on the main thread, by the code that answers the caller.
 *
 * @module
 */

import {
  classify,
  encodeError,
  encodeNotification,
  type Id,
  METHOD_NOT_FOUND,
} from "../codec/jsonrpc.ts";
import { type JsonValue, parseJson } from "../codec/json.ts";
import { quote } from "../codec/quote.ts";
import type { Implementation } from "../codec/protocol.ts";
import { frameRequest, frameText, LineDecoder } from "../codec/framing.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_RETIREMENT_TIMEOUT_MS } from "./limits.ts";
import { type Clock, systemClock, type TimerHandle } from "./clock.ts";
import { callTimedOut } from "./errors.ts";
import type {
  ClientError,
  DeathCause,
  RetirementError,
  RetirementEvidence,
  ServerInfo,
  StartError,
  StartFailure,
} from "./errors.ts";
import { Retirement } from "./retirement.ts";
import {
  type HandshakeContext,
  handshakeFailure,
  initializeParams,
  judgeInitialize,
  notAnMcpServer,
} from "./handshake.ts";
import type { ChannelEnd, ExitStatus, Transport } from "./transport.ts";

/**
 * Where a client is in its life, on either side of the worker boundary:
 * `parked` (nothing spawned), `connecting`, `ready`, `failed` (its start),
 * `dead` (its server was lost), `retiring`, `retired`.
 */
export type ClientState =
  | "parked"
  | "connecting"
  | "ready"
  | "failed"
  | "dead"
  | "retiring"
  | "retired";

/** Options of a {@linkcode ClientMachine}. */
export type MachineOptions = {
  /** The server's name, used in every message. */
  name: string;
  /** The clock deadlines run on; the system clock by default. */
  clock?: Clock;
  /** Deadline of the whole start, in milliseconds. */
  connectTimeoutMs?: number;
  /** Deadline of the retirement that follows a failed start or a death. */
  retirementTimeoutMs?: number;
  /** What the client says of itself in `initialize`. */
  clientInfo?: Implementation;
  /** Called once, with the latched reason, when the client dies. */
  onDeath?: (error: ClientError) => void;
};

/** Receives the outcome of a request, exactly once. */
export type Settle = (outcome: Result<JsonValue, ClientError>) => void;

/** How long an end of stdout waits for the exit status before it is the death reason. */
export const EXIT_AFTER_EOF_GRACE_MS = 50;

/** What this client calls itself in `initialize`. */
export const CLIENT_INFO: Implementation = { name: "@loom/mcp", version: "0.1.0" };

type Pending = { method: string; settle: Settle; timer: TimerHandle; timeoutMs: number };

/**
 * One MCP client over one transport.
 *
 * @example Talk to an in-process peer
 * ```ts
 * import { ChannelTransport } from "./transport.ts";
 * import { ClientMachine } from "./machine.ts";
 * const transport = new ChannelTransport({
 *   line(line, peer) {
 *     const message = JSON.parse(line);
 *     if (message.method === "initialize") {
 *       peer.send(JSON.stringify({
 *         jsonrpc: "2.0",
 *         id: message.id,
 *         result: {
 *           protocolVersion: "2025-11-25",
 *           capabilities: { tools: {} },
 *           serverInfo: { name: "peer", version: "1" },
 *         },
 *       }) + "\n");
 *     }
 *   },
 * });
 * const machine = new ClientMachine(transport, { name: "peer" });
 * const started = await machine.connect();
 * console.log(started.ok); // true
 * await machine.shutdown();
 * ```
 */
export class ClientMachine {
  #transport: Transport;
  #name: string;
  #clock: Clock;
  #connectTimeoutMs: number;
  #retirementTimeoutMs: number;
  #clientInfo: Implementation;
  #onDeath: ((error: ClientError) => void) | undefined;
  #retirement: Retirement;

  #state: ClientState = "parked";
  #opened = false;
  #pid: number | null = null;
  #nextId = 0;
  #pending = new Map<number, Pending>();
  #decoder = new LineDecoder();
  #channelOpen = false;
  #death: { cause: DeathCause; message: string } | undefined;
  #evidence: RetirementEvidence | undefined;

  constructor(transport: Transport, options: MachineOptions) {
    this.#transport = transport;
    this.#name = options.name;
    this.#clock = options.clock ?? systemClock;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#retirementTimeoutMs = options.retirementTimeoutMs ?? DEFAULT_RETIREMENT_TIMEOUT_MS;
    this.#clientInfo = options.clientInfo ?? CLIENT_INFO;
    this.#onDeath = options.onDeath;
    this.#retirement = new Retirement({
      name: this.#name,
      transport,
      clock: this.#clock,
      pid: () => this.#pid,
    });
  }

  /** Where the machine is in its life. */
  get state(): ClientState {
    return this.#state;
  }

  /** The server's pid once spawned (`null` for a transport without one). */
  get pid(): number | null {
    return this.#pid;
  }

  /** Requests still waiting for an answer. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** The real exit status, once seen. */
  get exitStatus(): ExitStatus | undefined {
    return this.#retirement.exit;
  }

  /** The kept tail of the server's stderr. */
  stderrTail(): string {
    return this.#transport.stderrTail();
  }

  /**
   * Opens the transport and runs the handshake: `initialize` with empty
   * client capabilities, then `notifications/initialized`. A failure after
   * the spawn retires the process before it is returned.
   */
  async connect(): Promise<Result<ServerInfo, StartError>> {
    if (this.#state !== "parked") {
      throw new TypeError(`Cannot connect client "${this.#name}": it is ${this.#state}`);
    }
    this.#state = "connecting";
    const deadlineAt = this.#clock.now() + this.#connectTimeoutMs;
    // Open before the first event: a fast server may write, or exit, before
    // `open` resolves.
    this.#opened = true;
    this.#channelOpen = true;
    const opened = await this.#transport.open({
      bytes: (chunk) => this.#onBytes(chunk),
      end: (cause) => this.#onEnd(cause),
      exit: (status) => this.#onExit(status),
    });
    if (!opened.ok) {
      this.#opened = false;
      this.#channelOpen = false;
      this.#die("not_connected", `Server "${this.#name}" did not start: ${opened.error.message}`);
      if (this.#state === "connecting") this.#state = "failed";
      return err({
        kind: "transport_failed",
        message: `Cannot start server "${this.#name}": ${opened.error.message}`,
        stderrTail: this.stderrTail(),
      });
    }
    this.#pid = opened.value.pid;
    const answer = await this.#handshakeRequest(
      "initialize",
      initializeParams(this.#clientInfo),
      Math.max(0, deadlineAt - this.#clock.now()),
    );
    const judged = judgeInitialize(answer, this.#handshakeContext());
    if (!judged.ok) return await this.#failStart(judged.error);
    const info = judged.value;
    if (this.#state !== "connecting" || this.#death !== undefined) {
      return await this.#failStart(handshakeFailure(this.#unavailable(), this.#handshakeContext()));
    }
    this.#write(frameText(encodeNotification("notifications/initialized")));
    this.#state = "ready";
    return ok(info);
  }

  /**
   * Sends one request whose parameters are already compact JSON of an
   * object, as text (`""` for none) or as its UTF-8 bytes, and calls `settle`
   * exactly once: with the raw result, the server's error, `call_timed_out`
   * at the deadline, or `unavailable` on a death. Returns the request id, or
   * `undefined` when it was refused at once.
   */
  send(
    method: string,
    params: string | Uint8Array,
    timeoutMs: number,
    settle: Settle,
  ): number | undefined {
    if (this.#state !== "ready") {
      settle(err(this.#unavailable()));
      return undefined;
    }
    return this.#send(method, params, timeoutMs, settle);
  }

  /**
   * Gives up on a request: it settles as `call_timed_out` (marked aborted)
   * and the server is sent `notifications/cancelled`. An unknown or settled
   * id does nothing.
   */
  cancel(id: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#expire(id, pending, true);
  }

  /**
   * Retires the server (see `retirement.ts`) within one deadline. Evidence
   * only on the real exit, or `no_resource` for a client that never opened.
   */
  async shutdown(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    const timeoutMs = options.timeoutMs ?? this.#retirementTimeoutMs;
    if (this.#evidence !== undefined) {
      this.#state = "retired";
      return ok(this.#evidence);
    }
    if (this.#state === "parked") {
      this.#state = "retired";
      this.#die("shutdown", `Client "${this.#name}" was retired`);
      this.#evidence = { kind: "no_resource" };
      return ok(this.#evidence);
    }
    this.#state = "retiring";
    this.#die("shutdown", `Client "${this.#name}" was shut down`, { retire: false });
    const outcome = this.#opened
      ? await this.#retirement.retireWithin(timeoutMs)
      : ok({ kind: "no_resource" as const });
    if (outcome.ok) {
      this.#evidence = outcome.value;
      this.#state = "retired";
    }
    return outcome;
  }

  // ---- requests ----

  /** The handshake's own request: sent while `connecting`, answered by its deadline. */
  #handshakeRequest(
    method: string,
    paramsText: string,
    timeoutMs: number,
  ): Promise<Result<JsonValue, ClientError>> {
    if (this.#state !== "connecting" || this.#death !== undefined) {
      return Promise.resolve(err(this.#unavailable()));
    }
    return new Promise((resolve) => this.#send(method, paramsText, timeoutMs, resolve));
  }

  #send(method: string, params: string | Uint8Array, timeoutMs: number, settle: Settle): number {
    const id = this.#nextId++;
    const timer = this.#clock.setTimer(timeoutMs, () => {
      const pending = this.#pending.get(id);
      if (pending !== undefined) this.#expire(id, pending, false);
    });
    this.#pending.set(id, { method, settle, timer, timeoutMs });
    if (params === "") {
      this.#write(frameText({ jsonrpc: "2.0", id, method }));
      return id;
    }
    // The parameters go to the pipe as they came, text or bytes, between the
    // line's head and tail.
    const [head, tail] = frameRequest(id, method);
    this.#write(head);
    this.#write(params);
    this.#write(tail);
    return id;
  }

  #expire(id: number, pending: Pending, aborted: boolean): void {
    this.#pending.delete(id);
    this.#clock.clearTimer(pending.timer);
    if (this.#channelOpen && this.#death === undefined) {
      this.#write(frameText(encodeNotification("notifications/cancelled", {
        requestId: id,
        reason: aborted ? "The caller cancelled the request" : "The request timed out",
      })));
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
    const pushed = this.#decoder.push(chunk);
    const lines = pushed.ok ? pushed.value : pushed.error.lines;
    for (const line of lines) {
      if (!this.#channelOpen) return;
      this.#onLine(line);
    }
    if (!pushed.ok) {
      this.#die("framing", `Server "${this.#name}" broke the framing: ${pushed.error.message}`);
    }
  }

  #onLine(line: string): void {
    const parsed = parseJson(line);
    const inbound = parsed.ok ? classify(parsed.value) : parsed;
    if (!inbound.ok) {
      this.#die(
        "malformed",
        this.#state === "connecting"
          ? notAnMcpServer(this.#name, line, "garbage")
          : `Server "${this.#name}" wrote a line that is not a JSON-RPC message ` +
            `(${inbound.error.message}): ${quote(line)}`,
      );
      return;
    }
    const message = inbound.value;
    switch (message.kind) {
      case "response": {
        if (typeof message.id !== "number") return;
        const pending = this.#pending.get(message.id);
        if (pending === undefined) return;
        this.#pending.delete(message.id);
        this.#clock.clearTimer(pending.timer);
        const outcome = message.outcome;
        if (outcome.ok) {
          pending.settle(outcome);
        } else {
          pending.settle(err({
            kind: "server_error",
            method: pending.method,
            error: outcome.error,
            message: `Server "${this.#name}" refused ${pending.method}: ` +
              `${outcome.error.message} (code ${outcome.error.code})`,
          }));
        }
        return;
      }
      case "request":
        // A process that writes its input back (`cat`) sends our own request.
        if (this.#state === "connecting" && message.method === "initialize") {
          return this.#die("malformed", notAnMcpServer(this.#name, line, "echo"));
        }
        this.#refuse(message.id, message.method);
        return;
      case "notification":
        return;
    }
  }

  #refuse(id: Id, method: string): void {
    this.#write(frameText(encodeError(id, {
      code: METHOD_NOT_FOUND,
      message: `Method not found: this client serves no requests (${method.slice(0, 100)})`,
    })));
  }

  #onEnd(cause: ChannelEnd): void {
    if (cause.kind === "write_failed") {
      this.#die("write_failed", `Cannot write to server "${this.#name}": ${cause.message}`);
      return;
    }
    // End of stdout usually means the exit is on its way; its status says more
    // to a person than "stdout closed", so it is given a moment to arrive.
    this.#channelOpen = false;
    if (this.#retirement.exit !== undefined || this.#death !== undefined) return;
    const message = `Server "${this.#name}" closed its stdout: ${cause.message}`;
    this.#retirement.whenExit(this.#clock.now() + EXIT_AFTER_EOF_GRACE_MS, (exited) => {
      if (!exited) this.#die("stdout_closed", message);
    });
  }

  #onExit(status: ExitStatus): void {
    if (!this.#retirement.exited(status)) return;
    const how = status.signal === null ? `with code ${status.code}` : `on signal ${status.signal}`;
    this.#die("exited", `Server "${this.#name}" exited ${how}`);
  }

  // ---- death ----

  #unavailable(): ClientError {
    const death = this.#death ?? {
      cause: "not_connected" as const,
      message: `Client "${this.#name}" is ${this.#state}, not connected`,
    };
    return {
      kind: "unavailable",
      cause: death.cause,
      message: death.message,
      stderrTail: this.stderrTail(),
    };
  }

  /** Latches the first reason, settles every waiting call, starts the retirement. */
  #die(cause: DeathCause, message: string, options: { retire?: boolean } = {}): void {
    if (this.#death !== undefined) return;
    this.#death = { cause, message };
    this.#channelOpen = false;
    if (this.#state === "ready") this.#state = "dead";
    const error = this.#unavailable();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of pending) {
      this.#clock.clearTimer(entry.timer);
      entry.settle(err(error));
    }
    this.#onDeath?.(error);
    // A dead channel is never reopened: the server is retired at once.
    if (this.#opened && options.retire !== false) {
      void this.#retirement.retire(this.#retirementTimeoutMs);
    }
  }

  #handshakeContext(): HandshakeContext {
    return {
      name: this.#name,
      connectTimeoutMs: this.#connectTimeoutMs,
      stderrTail: this.stderrTail(),
    };
  }

  async #failStart(failure: StartFailure): Promise<Result<ServerInfo, StartError>> {
    if (this.#state === "connecting") this.#state = "failed";
    this.#die("not_connected", `Server "${this.#name}" failed to start: ${failure.message}`);
    const cleanup = this.#opened
      ? await this.#retirement.retire(this.#retirementTimeoutMs)
      : ok({ kind: "no_resource" as const });
    if (cleanup.ok) {
      this.#evidence = cleanup.value;
      return err({ ...failure, cleanup: cleanup.value });
    }
    return err({
      kind: "cleanup_unconfirmed",
      message: `${failure.message}; its process could not be confirmed gone: ` +
        cleanup.error.message,
      cause: failure,
      retirement: cleanup.error,
      stderrTail: this.stderrTail(),
    });
  }
}
