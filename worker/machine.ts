/**
 * The client state machine: one MCP server over a {@linkcode Transport},
 * with deadlines on an injected {@linkcode Clock}. It starts the session
 * (the era probe, the handshake: what is said and how answers are judged is
 * `start.ts`), sends requests and settles them from their answers, reads
 * what the server writes, and dies; how a server is retired is
 * `retirement.ts`.
 *
 * Lifecycle ({@linkcode ClientState}): `parked` → `connecting` → `ready`; a
 * start that fails ends `failed`, a ready client that loses its server ends
 * `dead`, and `retire` leads through `retiring` to `retired`. Who closes
 * what: the machine owns the transport from `open` on. Any death (a failed
 * write, the exit, a framing fault, a malformed line, a retirement) settles
 * every waiting request once with `unavailable`, latches its reason, and
 * starts the retirement, which disposes of the transport once the exit has
 * been seen. Only that real exit, or never having opened, is retirement
 * evidence.
 *
 * The machine hands back raw results, or with `send`'s `raw` the response
 * lines themselves, as the bytes the server wrote (routed by
 * `peekResponseIdBytes`, or by `peekResponseId` once decoded, for the
 * receiver to decode whole and report with `malformed`): a result is decoded
 * once, on the main thread, by the code that answers the caller, and the
 * lines handed on are not decoded as UTF-8 one by one here.
 *
 * @module
 */

import type { JsonValue } from "../codec/json.ts";
import type { Era, Implementation, SupportedVersion } from "../codec/protocol.ts";
import { DISCOVER_METHOD } from "../codec/stateless.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_RETIREMENT_TIMEOUT_MS } from "../spec/limits.ts";
import { type Clock, systemClock } from "./clock.ts";
import { type Pending, PendingTable, type Settle } from "./_pending.ts";
import { callTimedOut, serverError } from "../thread/outcomes.ts";
import type {
  ClientError,
  DeathCause,
  StartAttempt,
  StartError,
  StartFailure,
} from "../thread/outcomes.ts";
import type { ClientState } from "../thread/state.ts";
import type { RetirementError, RetirementEvidence } from "../thread/evidence.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import { handshakeFailure, startError } from "./judge.ts";
import { runStart } from "./start.ts";
import { type EraMode, type EraPlan, eraPlan } from "../spec/era.ts";
import { ExitWatch, Retirement, stoppingFor } from "./retirement.ts";
export type { Settle } from "./_pending.ts";
export type { ClientState } from "../thread/state.ts";
import { LineRouter, LineWriter, readServerLine } from "./_lines.ts";
import { type ChannelEnd, type ExitStatus, stderrTailOf, type Transport } from "./transport.ts";

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
  /** What the client says of itself in `initialize` and in every envelope. */
  clientInfo?: Implementation;
  /** How the era is chosen; `auto` by default. */
  era?: EraMode;
  /** The versions offered, a subset of `SUPPORTED_VERSIONS`; all by default. */
  versions?: readonly SupportedVersion[];
  /** What an earlier start of the same server tried, reported with a failure of this one. */
  priorAttempts?: readonly StartAttempt[];
  /** Called once, with the latched reason, when the client dies. */
  onDeath?: (error: ClientError) => void;
};

/** How long an end of stdout waits for the exit status before it is the death reason. */
export const EXIT_AFTER_EOF_GRACE_MS = 50;

/** What this client calls itself in `initialize` and in every envelope. */
export const CLIENT_INFO: Implementation = { name: "@loom/mcp", version: "0.1.0" };

/**
 * One MCP client over one transport.
 *
 * @example Talk to an in-process peer of the legacy era
 * ```ts
 * import { ChannelTransport } from "./channel_transport.ts";
 * import { ClientMachine } from "./machine.ts";
 * const result = {
 *   protocolVersion: "2025-11-25",
 *   capabilities: { tools: {} },
 *   serverInfo: { name: "peer", version: "1" },
 * };
 * const transport = new ChannelTransport({
 *   line(line, peer) {
 *     const { id } = JSON.parse(line);
 *     if (id !== undefined) peer.send(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
 *   },
 * });
 * const machine = new ClientMachine(transport, { name: "peer", era: "legacy" });
 * const started = await machine.connect();
 * console.log(started.ok && started.value.era); // legacy
 * await machine.retire();
 * ```
 */
export class ClientMachine {
  #transport: Transport;
  #name: string;
  #clock: Clock;
  #connectTimeoutMs: number;
  #retirementTimeoutMs: number;
  #clientInfo: Implementation;
  #plan: EraPlan;
  #priorAttempts: readonly StartAttempt[];
  #onDeath: ((error: ClientError) => void) | undefined;
  #retirement: Retirement;
  #exit: ExitWatch;
  #lines: LineWriter;

  #state: ClientState = "parked";
  #era: Era | undefined;
  #exitedOnProbe = false;
  #opened = false;
  #pending: PendingTable;
  #reader = new LineRouter();
  #takeRaw = (id: number) => this.#pending.takeRaw(id);
  #channelOpen = false;
  #death: { cause: DeathCause; message: string } | undefined;
  #evidence: RetirementEvidence | undefined;
  /** The start request in flight: the probe until the handshake is sent. */
  #starting: string | undefined;

  /** Makes a parked machine; `RangeError` when the era and versions leave nothing to offer. */
  constructor(transport: Transport, options: MachineOptions) {
    this.#transport = transport;
    this.#name = options.name;
    this.#clock = options.clock ?? systemClock;
    this.#pending = new PendingTable(this.#clock, (id, p) => this.#expire(id, p, false), transport);
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#retirementTimeoutMs = options.retirementTimeoutMs ?? DEFAULT_RETIREMENT_TIMEOUT_MS;
    this.#clientInfo = options.clientInfo ?? CLIENT_INFO;
    this.#plan = eraPlan(options.era, options.versions);
    this.#priorAttempts = options.priorAttempts ?? [];
    this.#onDeath = options.onDeath;
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
    this.#lines = new LineWriter((data) => this.#write(data));
  }

  /** Where the machine is in its life. */
  get state(): ClientState {
    return this.#state;
  }

  /** The server's pid once spawned (`null` for a transport without one). */
  get pid(): number | null {
    const control = this.#transport.control;
    return control.kind === "process" ? control.process.pid : null;
  }

  /** Requests still waiting for an answer. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /**
   * Whether the start failed because the server exited on the probe while a
   * handshake was still to be tried: it may be started once more, pinned to
   * the legacy era.
   */
  get exitedOnProbe(): boolean {
    return this.#exitedOnProbe;
  }

  /** The kept tail of the server's stderr. */
  stderrTail(): string {
    return stderrTailOf(this.#transport.control);
  }

  /**
   * Opens the transport and starts the session. With a modern era to
   * offer, `server/discover` first (with the full envelope and empty client
   * capabilities); a modern answer makes the session modern, and any other
   * answer falls back at once to `initialize` (empty client capabilities),
   * then `notifications/initialized`, when the legacy era is offered. A
   * failure after the spawn retires the process before it is returned.
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
    const started = await runStart(this.#plan, {
      name: this.#name,
      clientInfo: this.#clientInfo,
      connectTimeoutMs: this.#connectTimeoutMs,
      priorAttempts: this.#priorAttempts,
      remaining: () => Math.max(0, deadlineAt - this.#clock.now()),
      request: (method, params, timeoutMs) => this.#startRequest(method, params, timeoutMs),
      exited: () => this.#exit.exit !== undefined,
      stderrTail: () => this.stderrTail(),
    });
    if (!started.ok) {
      this.#exitedOnProbe = started.exitedOnProbe;
      return await this.#failStart(started.failure);
    }
    if (this.#state !== "connecting" || this.#death !== undefined) {
      const method = started.info.era === "modern" ? DISCOVER_METHOD : "initialize";
      return await this.#failStart(handshakeFailure(method, this.#unavailable(), {
        name: this.#name,
        timeoutMs: this.#connectTimeoutMs,
        stderrTail: this.stderrTail(),
      }));
    }
    this.#era = started.info.era;
    if (started.envelope !== undefined) this.#lines.envelope(started.envelope);
    else this.#lines.notification("notifications/initialized");
    this.#state = "ready";
    return ok(started.info);
  }

  /**
   * Sends one request whose parameters are already compact JSON of an
   * object, as text (`""` for none) or as its UTF-8 bytes, and calls `settle`
   * exactly once: with the raw result, the server's error, `call_timed_out`
   * at the deadline, or `unavailable` on a death. Returns the request id, or
   * `undefined` when it was refused at once. In a modern session the
   * request carries the envelope, and `ping` (gone from that era) is sent
   * as `server/discover`. `raw`: see the module doc. `timed: false` leaves
   * the deadline to the caller, who says `cancel(id, true)` when it passes.
   */
  send(
    method: string,
    params: string | Uint8Array,
    timeoutMs: number,
    settle: Settle,
    options: { raw?: Pending["raw"]; timed?: boolean } = {},
  ): number | undefined {
    if (this.#state !== "ready") {
      settle(err(this.#unavailable()));
      return undefined;
    }
    return this.#send(method, params, timeoutMs, settle, true, options.raw, options.timed ?? true);
  }

  /**
   * A line handed on raw was not the response it looked like (`malformed`),
   * or not UTF-8 (`framing`): the client dies of it.
   */
  malformed(message: string, cause: "malformed" | "framing" = "malformed"): void {
    this.#die(cause, message);
  }

  /**
   * Gives up on a request: it settles as `call_timed_out` (marked aborted,
   * unless `timedOut` says its deadline passed where it was kept) and the
   * server is sent `notifications/cancelled` with the reason. An unknown or
   * settled id does nothing.
   */
  cancel(id: number, timedOut = false): void {
    const pending = this.#pending.take(id);
    if (pending !== undefined) this.#expire(id, pending, !timedOut);
  }

  /**
   * Retires the server (see `retirement.ts`) within one deadline. Evidence
   * only on the real exit, or `no_resource` for a client that never opened.
   */
  async retire(
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

  // ---- start ----

  /** A request of the start: sent while `connecting`. */
  #startRequest(
    method: string,
    paramsText: string,
    timeoutMs: number,
  ): Promise<Result<JsonValue, ClientError>> {
    if (this.#state !== "connecting" || this.#death !== undefined) {
      return Promise.resolve(err(this.#unavailable()));
    }
    // Never announced when given up: `initialize` must not be cancelled (the
    // specification says so), and a legacy server must hear nothing of a probe.
    return new Promise((resolve) => this.#send(method, paramsText, timeoutMs, resolve, false));
  }

  async #failStart(failure: StartFailure): Promise<Result<ServerInfo, StartError>> {
    if (this.#state === "connecting") this.#state = "failed";
    const control = this.#transport.control;
    failure = (control.kind === "session" ? control.session.refused() : undefined) ?? failure;
    this.#die("not_connected", `Server "${this.#name}" failed to start: ${failure.message}`);
    const cleanup = this.#opened
      ? await this.#retirement.retire(this.#retirementTimeoutMs)
      : ok({ kind: "no_resource" as const });
    if (cleanup.ok) this.#evidence = cleanup.value;
    return err(startError(failure, cleanup, this.stderrTail()));
  }

  // ---- requests ----

  #send(
    method: string,
    params: string | Uint8Array,
    timeoutMs: number,
    settle: Settle,
    tellCancel: boolean,
    raw?: Pending["raw"],
    timed = true,
  ): number {
    const id = this.#pending.add({ method, settle, timeoutMs, tellCancel, raw, timed });
    const wire = method === "ping" && this.#era === "modern" ? DISCOVER_METHOD : method;
    this.#lines.request(id, wire, params);
    return id;
  }

  /** A request taken out of the table is given up: the caller is told, and the server. */
  #expire(id: number, pending: Pending, aborted: boolean): void {
    if (pending.tellCancel && this.#channelOpen && this.#death === undefined) {
      this.#lines.notification("notifications/cancelled", {
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
    const pushed = this.#reader.push(chunk);
    const lines = pushed.ok ? pushed.value : pushed.error.lines;
    for (const line of lines) {
      if (!this.#channelOpen) return;
      this.#onLine(line);
    }
    if (!pushed.ok) {
      this.#die("framing", `Server "${this.#name}" broke the framing: ${pushed.error.message}`);
    }
  }

  #onLine(bytes: Uint8Array): void {
    const read = this.#reader.route(bytes, this.#takeRaw);
    if (read.kind === "raw") return read.pending.raw?.(read.id, bytes);
    if (read.kind === "not_utf8") {
      this.#die("framing", `Server "${this.#name}" broke the framing: ${read.message}`);
      return;
    }
    const line = read.line;
    const starting = this.#state === "connecting" ? this.#starting ?? "initialize" : undefined;
    const message = readServerLine(line, this.#name, starting);
    switch (message.kind) {
      case "malformed":
        this.#die("malformed", message.message);
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
        // The modern era has no server-to-client requests, and a client
        // there must not answer one: it is dropped.
        if (this.#era !== "modern") this.#lines.refuse(message.id, message.method);
        return;
      case "notification":
        return;
    }
  }

  #onEnd(cause: ChannelEnd): void {
    if (cause.kind === "http_failed") return this.#die("http_failed", cause.message);
    if (cause.kind === "write_failed") {
      this.#die("write_failed", `Cannot write to server "${this.#name}": ${cause.message}`);
      return;
    }
    // End of stdout usually means the exit is on its way; its status says more
    // to a person than "stdout closed", so it is given a moment to arrive.
    this.#channelOpen = false;
    if (this.#exit.exit !== undefined || this.#death !== undefined) return;
    const message = `Server "${this.#name}" closed its stdout: ${cause.message}`;
    this.#exit.whenExit(this.#clock.now() + EXIT_AFTER_EOF_GRACE_MS, (exited) => {
      if (!exited) this.#die("stdout_closed", message);
    });
  }

  #onExit(status: ExitStatus): void {
    if (!this.#exit.exited(status)) return;
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
    for (const pending of this.#pending.takeAll()) pending.settle(err(error));
    this.#onDeath?.(error);
    // A dead channel is never reopened: the server is retired at once.
    if (this.#opened && options.retire !== false) {
      void this.#retirement.retire(this.#retirementTimeoutMs);
    }
  }
}
