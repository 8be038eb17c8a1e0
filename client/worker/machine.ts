/**
 * The client state machine, the one a client has: one MCP server over the
 * {@linkcode Transport} seam, with deadlines on an injected
 * {@linkcode Clock}. It starts the session (`start.ts`: the launch, the era
 * probe, the handshake, the launch once more), sends requests and settles
 * them from their answers, reads what the server writes, dies, and retires
 * the server (`retirement.ts`). Platform-free: a test drives it over a
 * `ChannelTransport`; the worker's host (`host.ts`) drives it for a client.
 *
 * Lifecycle ({@linkcode ClientState}): `parked` → `connecting` → `ready`; a
 * start that fails ends `failed`, a ready client that loses its server ends
 * `dead`, and `retire` leads through `retiring` to `retired`. Each change is
 * reported (`onReport`, a {@linkcode StateReport}): the main thread's handle
 * is what it last heard. Who closes what: the machine owns each launch of
 * its server (`_connection.ts`) from `open` on. Any death (a failed write,
 * the exit, a framing fault, a malformed line, a retirement) latches its
 * reason, the one latch a client has, settles every waiting request once
 * with `unavailable`, and starts the retirement, which disposes of the
 * transport once the exit has been seen. Only that real exit, or never
 * having opened, is retirement evidence.
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

import type { JsonObject, JsonValue } from "../../codec/json.ts";
import type { Implementation } from "../../codec/protocol.ts";
import type { LogLevel } from "../../codec/server_requests.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
} from "../../settings/limits.ts";
import { type EraPlan, eraPlan } from "../../settings/era.ts";
import { type EraCodec, LEGACY_ERA, type ServerRequestContext } from "../thread/era.ts";
import { clientCapabilities, SERVES_NONE } from "../thread/asked.ts";
import { type Clock, systemClock } from "../transport/clock.ts";
import type { Pending, Settle } from "./_pending.ts";
import type { ClientError, DeathCause, StartError, StartFailure } from "../thread/outcomes.ts";
import {
  cannotConnect,
  type ClientState,
  retiredAtOnce,
  retiredDeath,
  type StateReport,
  unavailableOf,
} from "../thread/state.ts";
import { noResource, type RetirementEvidence } from "../thread/evidence.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import { Connection } from "./_connection.ts";
import type { RetirementOutcome } from "./retirement.ts";
import { startSession } from "./start.ts";
import { type LineFault, PARAMS_META_LEAD } from "../thread/to_worker.ts";
export type { Settle } from "./_pending.ts";
export type { ClientState } from "../thread/state.ts";
export { EXIT_AFTER_EOF_GRACE_MS } from "./_connection.ts";
export { CLIENT_INFO, type Launcher, type MachineOptions } from "./machine_options.ts";
import { CLIENT_INFO, type Launcher, type MachineOptions } from "./machine_options.ts";

/**
 * One MCP client over one server.
 *
 * @example Talk to an in-process peer of the legacy era
 * ```ts
 * import { ChannelTransport } from "../transport/channel_transport.ts";
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
  #launcher: Launcher;
  #name: string;
  #clock: Clock;
  #connectTimeoutMs: number;
  #retirementTimeoutMs: number;
  #clientInfo: Implementation;
  // The start's trace context as JSON fields without braces; "" when not tracing.
  #traceFields: string;
  #plan: EraPlan;
  #era: EraCodec = LEGACY_ERA;
  #onReport: ((report: StateReport) => void) | undefined;
  #onToolsChanged: (() => void) | undefined;
  #onNotification: MachineOptions["onNotification"];
  #onRenewed: MachineOptions["onRenewed"];
  #logLevel: LogLevel | undefined;
  #served: ServerRequestContext | undefined;
  #capabilities: JsonObject;

  #state: ClientState = "parked";
  #connection: Connection | undefined;
  #launches = 0;
  /** The one death latch: why calls are refused once the client has died. */
  #death: ClientError | undefined;
  #evidence: RetirementEvidence | undefined;
  #connecting: Promise<Result<ServerInfo, StartError>> | undefined;
  #reported: StateReport | undefined;

  /** Makes a parked machine; `RangeError` when the era and versions leave nothing to offer. */
  constructor(launcher: Launcher, options: MachineOptions) {
    this.#launcher = launcher;
    this.#name = options.name;
    this.#clock = options.clock ?? systemClock;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#retirementTimeoutMs = options.retirementTimeoutMs ?? DEFAULT_RETIREMENT_TIMEOUT_MS;
    this.#clientInfo = options.clientInfo ?? CLIENT_INFO;
    const trace = options.traceContext;
    this.#traceFields = trace === undefined || Object.keys(trace).length === 0
      ? ""
      : JSON.stringify(trace).slice(1, -1);
    this.#plan = eraPlan(options.era, options.versions);
    this.#onReport = options.onReport;
    this.#onToolsChanged = options.onToolsChanged;
    this.#onNotification = options.onNotification;
    this.#onRenewed = options.onRenewed;
    this.#logLevel = options.logLevel;
    this.#served = options.served;
    this.#capabilities = clientCapabilities(options.served?.served ?? SERVES_NONE);
  }

  /** The era the session speaks, chosen by its start; the legacy era until it is ready. */
  get era(): EraCodec {
    return this.#era;
  }

  /** Where the machine is in its life. */
  get state(): ClientState {
    return this.#state;
  }

  /** The server's pid once spawned (`null` for a server that is not a child process). */
  get pid(): number | null {
    return this.#connection?.pid ?? null;
  }

  /** Requests still waiting for an answer. */
  get inFlight(): number {
    return this.#connection?.inFlight ?? 0;
  }

  /** The kept tail of the server's stderr. */
  stderrTail(): string {
    return this.#connection?.stderrTail() ?? "";
  }

  /** What the machine would report now. */
  get report(): StateReport {
    return { state: this.#state, death: this.#death ?? null, evidence: this.#evidence ?? null };
  }

  /**
   * Launches the server and starts the session (`start.ts`). A failure after
   * the launch retires the server before it is returned. Calling it again
   * returns the same outcome; a client retired before it was started is
   * `transport_failed`.
   */
  connect(): Promise<Result<ServerInfo, StartError>> {
    if (this.#connecting !== undefined) return this.#connecting;
    if (this.#state !== "parked") {
      return Promise.resolve(err(cannotConnect(this.#name, this.#state, this.stderrTail())));
    }
    this.#setState("connecting");
    this.#connecting = this.#start();
    return this.#connecting;
  }

  /**
   * Sends one request whose parameters are already compact JSON of an
   * object, as text (`""` for none) or as its UTF-8 bytes, and calls `settle`
   * exactly once: with the raw result, the server's error, `call_timed_out`
   * at the deadline, or `unavailable` on a death. Returns the request id, or
   * `undefined` when it was refused at once. The session's era decides what
   * the request carries and the method it goes as (`client/thread/era.ts`).
   * The machine keeps its deadline; a request whose deadline its sender
   * keeps is {@linkcode ClientMachine.prototype.forward}ed instead.
   * `raw`: see the module doc; `long`: what a long call's request carries
   * beyond its parameters.
   */
  send(
    method: string,
    params: string | Uint8Array,
    timeoutMs: number,
    settle: Settle,
    options: { raw?: Pending["raw"]; long?: Pending["long"] } = {},
  ): number | undefined {
    return this.#send(method, params, timeoutMs, settle, { ...options, timed: true });
  }

  /**
   * Sends a request as {@linkcode ClientMachine.prototype.send} does, whose
   * deadline is kept by its sender alone (the main thread's tickets, for
   * every call a client makes): the machine keeps no timer for it, and the
   * sender says `cancel(id, true)` when the deadline passes. `timeoutMs` is
   * the sender's deadline, only to word the outcome of that cancel.
   */
  forward(
    method: string,
    params: string | Uint8Array,
    timeoutMs: number,
    settle: Settle,
    options: { raw?: Pending["raw"]; long?: Pending["long"] } = {},
  ): number | undefined {
    return this.#send(method, params, timeoutMs, settle, { ...options, timed: false });
  }

  #send(
    method: string,
    params: string | Uint8Array,
    timeoutMs: number,
    settle: Settle,
    options: { raw?: Pending["raw"]; timed: boolean; long?: Pending["long"] },
  ): number | undefined {
    const connection = this.#connection;
    if (this.#state !== "ready" || connection === undefined) {
      settle(err(this.#unavailable()));
      return undefined;
    }
    const pending: Pending = {
      method,
      settle,
      timeoutMs,
      tellCancel: true,
      raw: options.raw,
      timed: options.timed,
    };
    if (options.long !== undefined) pending.long = options.long;
    return connection.request(params, pending);
  }

  /**
   * A line handed on raw was not the response it looked like (`malformed`),
   * or not UTF-8 (`framing`): the client dies of it.
   */
  malformed(message: string, cause: LineFault = "malformed"): void {
    this.#die(cause, message);
  }

  /**
   * Gives up on a request: it settles as `call_timed_out` (marked aborted,
   * unless `timedOut` says its deadline passed where it was kept) and the
   * server is sent `notifications/cancelled` with the reason. An unknown or
   * settled id does nothing.
   */
  cancel(id: number, timedOut = false): void {
    this.#connection?.cancel(id, !timedOut);
  }

  /**
   * Retires the server (see `retirement.ts`) within one deadline. Evidence
   * only on the real exit, or `no_resource` for a client never started.
   */
  async retire(options: { timeoutMs?: number } = {}): Promise<RetirementOutcome> {
    const timeoutMs = options.timeoutMs ?? this.#retirementTimeoutMs;
    const atOnce = retiredAtOnce(this.report, this.#name);
    if (atOnce !== undefined) {
      this.#death ??= atOnce.death ?? undefined;
      this.#evidence = atOnce.evidence;
      this.#setState("retired");
      return ok(atOnce.evidence);
    }
    this.#state = "retiring";
    this.#die("shutdown", retiredDeath(this.#name).message, { retire: false });
    this.#tell();
    const connection = this.#connection;
    const outcome = connection?.opened === true
      ? await connection.retireWithin(timeoutMs)
      : ok(noResource());
    if (outcome.ok) {
      this.#evidence = outcome.value;
      this.#setState("retired");
    }
    return outcome;
  }

  // ---- start ----

  /**
   * A start request's parameters with the start's trace context in their
   * `_meta`: joined to the probe's own `_meta`, or leading `initialize`'s.
   */
  #traced(paramsText: string): string {
    const fields = this.#traceFields;
    if (fields === "") return paramsText;
    if (paramsText.startsWith(PARAMS_META_LEAD)) {
      return `${PARAMS_META_LEAD}${fields},${paramsText.slice(PARAMS_META_LEAD.length)}`;
    }
    if (paramsText === "" || paramsText === "{}") return `${PARAMS_META_LEAD}${fields}}}`;
    return `${PARAMS_META_LEAD}${fields}},${paramsText.slice(1)}`;
  }

  async #start(): Promise<Result<ServerInfo, StartError>> {
    const started = await startSession({
      name: this.#name,
      clientInfo: this.#clientInfo,
      capabilities: this.#capabilities,
      plan: this.#plan,
      connectTimeoutMs: this.#connectTimeoutMs,
      retirementTimeoutMs: this.#retirementTimeoutMs,
      now: () => this.#clock.now(),
      launch: () => this.#launch(),
      mayRelaunch: () => typeof this.#launcher === "function" && this.#state === "connecting",
      request: (method, params, timeoutMs) =>
        this.#startRequest(method, this.#traced(params), timeoutMs),
      lost: () =>
        this.#state !== "connecting" || this.#death !== undefined ? this.#unavailable() : undefined,
      failed: (failure, final) => this.#failed(failure, final),
    });
    if (started.ok) {
      this.#era = started.era;
      this.#connection?.begin(
        started.era,
        started.info.protocolVersion,
        this.#clientInfo,
        this.#capabilities,
        this.#logLevel,
      );
      this.#setState("ready");
      const sessionId = this.#connection?.sessionId();
      return ok(sessionId === undefined ? started.info : { ...started.info, sessionId });
    }
    const cleanup = started.cleanup;
    if (cleanup === undefined) this.#evidence ??= noResource();
    else if (cleanup.ok) this.#evidence = cleanup.value;
    this.#tell();
    return err(started.error);
  }

  /** Launches the server once more: a fresh connection, spoken to from now on. */
  async #launch(): Promise<Result<Connection, { message: string }>> {
    const launcher = this.#launcher;
    if (typeof launcher !== "function" && this.#launches > 0) {
      throw new TypeError(`Cannot launch server "${this.#name}" again: it has one transport`);
    }
    this.#launches++;
    const transport = typeof launcher === "function" ? launcher() : launcher;
    const connection: Connection = new Connection(transport, {
      name: this.#name,
      clock: this.#clock,
      ended: (cause, message) => {
        if (connection === this.#connection) this.#die(cause, message);
      },
      toolsChanged: () => {
        if (connection === this.#connection && this.#state === "ready") this.#onToolsChanged?.();
      },
      notified: (method, params) => {
        if (connection === this.#connection) this.#onNotification?.(method, params);
      },
      renewed: () => {
        if (connection === this.#connection && this.#state === "ready") this.#onRenewed?.();
      },
      ...(this.#served === undefined ? {} : { served: this.#served }),
    });
    this.#connection = connection;
    // A fresh launch: how the last one ended was its attempt's failure.
    this.#death = undefined;
    const opened = await connection.open();
    return opened.ok ? ok(connection) : opened;
  }

  /** A request of the start: sent while `connecting`. */
  #startRequest(
    method: string,
    paramsText: string,
    timeoutMs: number,
  ): Promise<Result<JsonValue, ClientError>> {
    const connection = this.#connection;
    if (this.#state !== "connecting" || this.#death !== undefined || connection === undefined) {
      return Promise.resolve(err(this.#unavailable()));
    }
    // Never announced when given up: `initialize` must not be cancelled (the
    // specification says so), and a legacy server must hear nothing of a probe.
    return new Promise((resolve) =>
      connection.request(paramsText, {
        method,
        settle: resolve,
        timeoutMs,
        tellCancel: false,
        raw: undefined,
        timed: true,
      })
    );
  }

  /**
   * A launch failed to start the session: it is ended. When the whole start
   * has failed, so has the client, and its calls say so, whatever ended the
   * launch.
   */
  #failed(failure: StartFailure, final: boolean): void {
    const message = `Server "${this.#name}" failed to start: ${failure.message}`;
    const failedNow = final && this.#state === "connecting";
    if (failedNow) this.#state = "failed";
    const ended = this.#death !== undefined;
    // Ends the launch, when nothing else has.
    this.#die("not_connected", message);
    if (failedNow && ended) this.#death = death("not_connected", message);
    this.#tell();
  }

  // ---- death ----

  #unavailable(): ClientError {
    return unavailableOf(this.report, this.#name, this.stderrTail());
  }

  /** Latches the first reason, settles every waiting call, starts the retirement. */
  #die(cause: DeathCause, message: string, options: { retire?: boolean } = {}): void {
    if (this.#death !== undefined) return;
    this.#death = death(cause, message);
    if (this.#state === "ready") this.#state = "dead";
    const connection = this.#connection;
    connection?.close(this.#unavailable());
    this.#tell();
    // A dead channel is never reopened: the server is retired at once.
    if (connection?.opened === true && options.retire !== false) {
      void connection.retire(this.#retirementTimeoutMs);
    }
  }

  #setState(state: ClientState): void {
    this.#state = state;
    this.#tell();
  }

  /**
   * Reports the client's life when it changed. While a start is under way
   * only its beginning is told: how one launch ended is the start's to judge.
   */
  #tell(): void {
    const report = this.report;
    const last = this.#reported;
    if (
      last !== undefined && last.state === report.state &&
      (report.state === "connecting" ||
        (last.death === report.death && last.evidence === report.evidence))
    ) {
      return;
    }
    this.#reported = report;
    this.#onReport?.(report);
  }
}

function death(cause: DeathCause, message: string): ClientError {
  return { kind: "unavailable", cause, message, stderrTail: "" };
}
