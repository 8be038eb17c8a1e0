/**
 * The main thread's handle on one MCP server. The server's process and the
 * client state machine live in a Web Worker; this handle only routes:
 * each method posts a request and awaits its settlement, and decodes what
 * the result means.
 *
 * Lifecycle ({@linkcode ClientState}, the same states as the worker's
 * machine): `parked` (no worker, no process) → `connect` → `connecting` →
 * `ready`; a failed start is `failed`, a lost server `dead`; `retire`
 * leads through `retiring` to `retired`. Who closes what: the worker retires
 * the process; this handle terminates the worker only after the retirement
 * is confirmed (or the worker is lost). Every call has a main-thread timer
 * at its deadline (`_tickets.ts`), so neither a hung server nor a hung
 * worker can hold a caller past it. The main thread's share in controlling
 * the process (group signals, the drain check, the exit guard) is
 * `custody/custody.ts`.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ClientError, StartError } from "../thread/outcomes.ts";
import type { RetirementError, RetirementEvidence } from "../thread/evidence.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import type { ClientState } from "../worker/machine.ts";
import type { FromWorker } from "../thread/from_worker.ts";
import { encodeSettledAsk, type ToWorker } from "../thread/to_worker.ts";
import { ByteTail } from "../worker/tail.ts";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  type ServerSpec,
} from "../spec/mod.ts";
import { callParams, checkTimeout } from "./_checks.ts";
import { Custody } from "../custody/custody.ts";
import { decodeCallResult, listAllTools } from "./_results.ts";
import { decodeServerInfo } from "../thread/server_info.ts";
import { type Decode, Tickets } from "./_tickets.ts";
import { createWorker, grantOf, startMessage, type WorkerPermissions } from "./_worker_launch.ts";
import { WorkerLink } from "../thread/link.ts";

export type { ClientState } from "../worker/machine.ts";
export type { WorkerPermissions } from "./_worker_launch.ts";

/** Options of a {@linkcode Client}. */
export type ClientOptions = {
  /** How its worker runs; `"inherit"` by default. */
  permissions?: WorkerPermissions;
  /** Default deadline of `retire`, and of the cleanup after a failed start. */
  retirementTimeoutMs?: number;
};

/** Options of one call. */
export type CallOptions = {
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the call when aborted (it settles as `call_timed_out`, `aborted: true`). */
  signal?: AbortSignal;
};

/**
 * Time a worker is given beyond a start's own deadlines (handshake plus
 * cleanup) before the main thread declares it lost, in milliseconds.
 */
export const WORKER_GRACE_MS = 2_000;

/** Share of a retirement deadline the worker gets, so its answer beats the caller's timer. */
const WORKER_RETIREMENT_SHARE = 0.95;

/** A ping's answer, whatever its result. */
const PONG: Decode<void> = () => ok(undefined);

/**
 * One MCP server, run in its own worker. Usually made by
 * `Census.prepare`, which publishes every client before any is connected.
 *
 * @example Connect, call, retire
 * ```ts ignore
 * import { Client } from "@loom/mcp";
 * const client = new Client({
 *   name: "echo",
 *   command: Deno.execPath(),
 *   args: ["run", "tests/fixtures/echo_server.ts"],
 *   env: {},
 *   inheritEnv: [],
 *   stderr: "tail",
 * });
 * const started = await client.connect();
 * if (started.ok) {
 *   const result = await client.callTool("echo", { text: "hi" });
 *   console.log(result.ok && result.value.content);
 * }
 * console.log(await client.retire());
 * ```
 */
export class Client {
  /** The server's name. */
  readonly name: string;
  /** What the client runs. */
  readonly spec: ServerSpec;
  #permissions: WorkerPermissions;
  #retirementTimeoutMs: number;
  #state: ClientState = "parked";
  #link: WorkerLink | undefined;
  #tickets: Tickets;
  #custody = new Custody();
  #info: ServerInfo | undefined;
  #death: ClientError | undefined;
  #tail = new ByteTail();
  #connecting: Promise<Result<ServerInfo, StartError>> | undefined;
  #startSettle: ((outcome: Result<ServerInfo, StartError>) => void) | undefined;
  #startTimer: ReturnType<typeof setTimeout> | undefined;
  #retireWaiters = new Set<(outcome: Result<RetirementEvidence, RetirementError>) => void>();
  #evidence: RetirementEvidence | undefined;

  /** Makes a parked client: nothing runs until `connect`. */
  constructor(spec: ServerSpec, options: ClientOptions = {}) {
    if (typeof spec.name !== "string" || spec.name.length === 0) {
      throw new TypeError(`Cannot create a client: its name ${JSON.stringify(spec.name)} is empty`);
    }
    this.name = spec.name;
    this.spec = spec;
    this.#permissions = options.permissions ?? "inherit";
    this.#retirementTimeoutMs = checkTimeout(
      options.retirementTimeoutMs ?? DEFAULT_RETIREMENT_TIMEOUT_MS,
      "retirementTimeoutMs",
    );
    this.#tickets = new Tickets(this.name, {
      batch: (text) => this.#link?.batch(text),
      message: (message, transfer) => this.#link?.post(message, transfer),
    });
  }

  /** Where the client is in its life. */
  get state(): ClientState {
    return this.#state;
  }

  /** Whether its worker runs with least privilege or inherits. */
  get permissions(): WorkerPermissions {
    return this.#permissions;
  }

  /** The server's handshake, once ready. */
  get serverInfo(): ServerInfo | undefined {
    return this.#info;
  }

  /** The server's pid once spawned. */
  get pid(): number | undefined {
    return this.#custody.pid;
  }

  /** The newest bytes of the server's stderr (up to 64 KiB), decoded leniently. */
  stderrTail(): string {
    return this.#tail.text();
  }

  /**
   * Starts the worker, spawns the server and runs the handshake. Calling it
   * again returns the same outcome. A start that failed after spawning has
   * retired its process, with the evidence in the error.
   */
  connect(): Promise<Result<ServerInfo, StartError>> {
    if (this.#connecting !== undefined) return this.#connecting;
    if (this.#state !== "parked") {
      return Promise.resolve(err({
        kind: "transport_failed",
        message: `Cannot connect client "${this.name}": it is ${this.#state}`,
        stderrTail: this.stderrTail(),
      }));
    }
    this.#connecting = this.#connect();
    return this.#connecting;
  }

  #connect(): Promise<Result<ServerInfo, StartError>> {
    this.#state = "connecting";
    const spec = this.spec;
    const connectTimeoutMs = spec.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#custody.hold();
    let worker: Worker;
    try {
      worker = createWorker(this.name, this.#permissions, grantOf(spec));
    } catch (error) {
      this.#custody.release();
      this.#state = "failed";
      this.#latch("not_connected", `Client "${this.name}" has no worker`);
      const reason = error instanceof Error ? error.message : String(error);
      return Promise.resolve(err({
        kind: "transport_failed",
        message: `Cannot start the worker of "${this.name}": ${reason}`,
        stderrTail: "",
      }));
    }
    this.#link = new WorkerLink(worker, this.name, {
      event: (event) => this.#onEvent(event),
      lost: (message) => this.#lost(message),
    });
    this.#post(startMessage(spec, connectTimeoutMs, this.#retirementTimeoutMs, this.#link.rings));
    return new Promise((resolve) => {
      this.#startSettle = resolve;
      const backstop = connectTimeoutMs + this.#retirementTimeoutMs + WORKER_GRACE_MS;
      this.#startTimer = setTimeout(() => {
        this.#link?.lose(
          `The worker of "${this.name}" did not finish starting within ${backstop} ms`,
        );
      }, backstop);
    });
  }

  /** Lists every tool the server offers (following pages, one deadline). */
  listTools(options: { timeoutMs?: number } = {}): Promise<Result<ToolDescriptor[], ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return listAllTools(
      this.name,
      (params, remaining) => this.#request("tools/list", params, remaining, undefined),
      { timeoutMs, era: this.#info?.era ?? "legacy" },
    );
  }

  /**
   * Calls one tool. An `isError` result is a success value; failures are
   * `unavailable`, `call_timed_out`, `server_error` or `result_malformed`.
   * Throws `TypeError` when `args` cannot be said in JSON.
   */
  callTool(
    name: string,
    args: JsonObject,
    options: CallOptions = {},
  ): Promise<Result<CallToolResult, ClientError>> {
    const params = callParams(name, args);
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#request("tools/call", params, timeoutMs, options.signal, this.#decodeCall);
  }

  // Decodes a tools/call result in the step that settles the call.
  #decodeCall = (value: JsonValue) =>
    decodeCallResult(this.name, value, this.#info?.era ?? "legacy");

  /** Checks the server answers within the deadline. */
  ping(options: CallOptions = {}): Promise<Result<void, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#request("ping", "", timeoutMs, options.signal, PONG);
  }

  /**
   * Retires the server: stdin closed, SIGTERM, SIGKILL to its process group,
   * within one deadline. Evidence only on its real exit, or `no_resource`
   * for a client that never spawned. An error is never permission to start
   * a replacement.
   */
  retire(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.#retirementTimeoutMs, "timeoutMs");
    if (this.#evidence !== undefined) {
      this.#state = "retired";
      this.#endWorker();
      return Promise.resolve(ok(this.#evidence));
    }
    const link = this.#link;
    if (link === undefined) {
      this.#state = "retired";
      this.#latch("shutdown", `Client "${this.name}" was retired`);
      this.#evidence = { kind: "no_resource" };
      return Promise.resolve(ok(this.#evidence));
    }
    this.#state = "retiring";
    this.#latch("shutdown", `Client "${this.name}" was shut down`);
    this.#tickets.settleAll(this.#unavailable());
    if (link.closed) return Promise.resolve(err(this.#unconfirmed()));
    // The tree as it stands while the server still lives: once it exits, its
    // descendants are reparented and only this record finds them.
    this.#custody.snapshot();
    this.#post({ kind: "retire", timeoutMs: timeoutMs * WORKER_RETIREMENT_SHARE });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#retireWaiters.delete(settle);
        resolve(err({
          kind: "retirement_timed_out",
          timeoutMs,
          escalation: "none",
          message: `Server "${this.name}" was not confirmed gone within ${timeoutMs} ms; ` +
            `do not start a replacement until it is`,
        }));
      }, timeoutMs);
      const settle = (outcome: Result<RetirementEvidence, RetirementError>) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      this.#retireWaiters.add(settle);
    });
  }

  /**
   * Retires the server: the same as {@linkcode Client.prototype.retire}, by
   * its former name.
   *
   * @deprecated Use {@linkcode Client.prototype.retire}.
   */
  shutdown(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    return this.retire(options);
  }

  // ---- requests ----

  #timeout(value: number | undefined): number {
    return checkTimeout(value ?? this.spec.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, "timeoutMs");
  }

  #request<T = JsonValue>(
    method: "tools/call" | "tools/list" | "ping",
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    decode?: Decode<T>,
  ): Promise<Result<T, ClientError>> {
    if (this.#state !== "ready" || this.#link === undefined || this.#link.closed) {
      return Promise.resolve(err(this.#unavailable()));
    }
    return this.#tickets.request(method, paramsText, timeoutMs, signal, decode);
  }

  // ---- events ----

  #post(message: ToWorker): void {
    this.#tickets.flush();
    this.#link?.post(message);
  }

  #onEvent(event: FromWorker): void {
    switch (event.kind) {
      case "settled":
        this.#tickets.settled(event.ticket, event.outcome);
        return;
      case "answers": {
        const fault = this.#tickets.answers(event.tickets, event.ids, event.lines);
        if (fault === undefined) return;
        if (fault.cause === "worker") this.#link?.lose(fault.message);
        else this.#malformed(fault.message, fault.cause);
        return;
      }
      case "stderr":
        this.#tail.append(event.bytes);
        return;
      case "spawned":
        this.#custody.spawned(event.pid);
        return;
      case "exited":
        this.#custody.exited(event.pid);
        return;
      case "request": {
        const ticket = event.ticket;
        if (event.method === "signal") {
          this.#post(encodeSettledAsk(ticket, this.#custody.signal(event.pid, event.signal)));
          return;
        }
        void this.#custody.drain(event.pid, event.deadlineMs).then((drained) =>
          this.#post(encodeSettledAsk(ticket, drained))
        );
        return;
      }
      case "state":
        if (event.death === null) return;
        this.#death ??= event.death;
        if (this.#state === "ready") this.#state = "dead";
        this.#tickets.settleAll(this.#unavailable());
        return;
      case "started":
        this.#started(event.outcome);
        return;
      case "retired":
        if (event.outcome.ok) {
          this.#evidence = event.outcome.value;
          this.#state = "retired";
          this.#endWorker();
        }
        for (const settle of [...this.#retireWaiters]) settle(event.outcome);
        this.#retireWaiters.clear();
        return;
    }
  }

  #started(outcome: Result<JsonValue, StartError>): void {
    const settle = this.#startSettle;
    if (settle === undefined) return;
    this.#startSettle = undefined;
    clearTimeout(this.#startTimer);
    this.#custody.release();
    if (!outcome.ok) {
      if (this.#state === "connecting") this.#state = "failed";
      const error = outcome.error;
      if (error.kind !== "cleanup_unconfirmed") {
        const nothingSpawned = this.#custody.pid === undefined
          ? { kind: "no_resource" as const }
          : undefined;
        this.#evidence = error.cleanup ?? nothingSpawned;
      }
      this.#latch("not_connected", `Server "${this.name}" failed to start: ${error.message}`);
      // Nothing is left for the worker to do once the cleanup is confirmed,
      // unless a retirement asked meanwhile is still to be answered.
      if (this.#evidence !== undefined && this.#retireWaiters.size === 0) this.#endWorker();
      settle(outcome);
      return;
    }
    const info = decodeServerInfo(outcome.value);
    if (info === undefined) {
      this.#link?.lose(`The worker of "${this.name}" sent a malformed server info`);
      return;
    }
    this.#info = info;
    if (this.#state === "connecting") this.#state = "ready";
    settle(ok(info));
  }

  // ---- death ----

  #latch(cause: "not_connected" | "shutdown" | "worker_lost", message: string): void {
    this.#death ??= { kind: "unavailable", cause, message, stderrTail: "" };
  }

  #unavailable(): ClientError {
    const death = this.#death;
    if (death !== undefined && death.kind === "unavailable") {
      return { ...death, stderrTail: this.stderrTail() };
    }
    return {
      kind: "unavailable",
      cause: "not_connected",
      message: `Client "${this.name}" is ${this.#state}, not ready; connect it first`,
      stderrTail: this.stderrTail(),
    };
  }

  #unconfirmed(): RetirementError {
    return {
      kind: "retirement_unconfirmed",
      message: `The worker of "${this.name}" was lost before the exit of its server was seen; ` +
        `its process group was killed, but its exit is unconfirmed`,
    };
  }

  /**
   * A response line decoded here was malformed: the client dies of it as the
   * worker would have, and the worker is told, so that it retires the server.
   */
  #malformed(message: string, cause: "malformed" | "framing"): void {
    this.#death ??= { kind: "unavailable", cause, message, stderrTail: "" };
    if (this.#state === "ready") this.#state = "dead";
    this.#tickets.settleAll(this.#unavailable());
    this.#post({ kind: "malformed", message, cause });
  }

  /** The worker crashed, broke protocol or hung: everything waiting settles now. */
  #lost(message: string): void {
    this.#latch("worker_lost", message);
    const cleanupConfirmed = this.#custody.abandon();
    if (this.#state === "ready") this.#state = "dead";
    this.#tickets.settleAll(this.#unavailable());
    const start = this.#startSettle;
    if (start !== undefined) {
      this.#startSettle = undefined;
      clearTimeout(this.#startTimer);
      if (this.#state === "connecting") this.#state = "failed";
      const failure = { kind: "transport_failed" as const, message, stderrTail: this.stderrTail() };
      start(
        cleanupConfirmed ? err(failure) : err({
          kind: "cleanup_unconfirmed",
          message: `${message}; its server could not be confirmed gone`,
          cause: failure,
          retirement: this.#unconfirmed(),
          stderrTail: this.stderrTail(),
        }),
      );
    }
    for (const settle of [...this.#retireWaiters]) settle(err(this.#unconfirmed()));
    this.#retireWaiters.clear();
    this.#custody.release();
  }

  #endWorker(): void {
    this.#link?.end();
    this.#custody.end();
  }
}
