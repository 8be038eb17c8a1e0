/**
 * The main thread's handle on one MCP server. The server's process and the
 * client state machine live in a Web Worker; this handle only routes:
 * each method posts a request and awaits its settlement.
 *
 * Lifecycle: `parked` (no worker, no process) → `connect` → `connecting` →
 * `ready`; a failed start is `failed`, a lost server `dead`; `shutdown`
 * leads through `retiring` to `retired`. Who closes what: the worker retires
 * the process; this handle terminates the worker only after the retirement
 * is confirmed (or the worker is lost). Every call has a main-thread timer
 * at its deadline, so neither a hung server nor a hung worker can hold a
 * caller past it.
 *
 * @module
 */

import { type JsonObject, type JsonValue, stringifyJson } from "../codec/json.ts";
import {
  type CallToolResult,
  decodeCallToolResult,
  decodeInitializeResult,
  decodeToolsPage,
  type ToolDescriptor,
} from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import {
  ByteTail,
  callTimedOut,
  type ClientError,
  decodeFromWorker,
  type FromWorker,
  renderRequest,
  type RequestMethod,
  type RetirementError,
  type RetirementEvidence,
  type ServerInfo,
  type StartError,
  type StartMessage,
  type ToWorker,
  TRANSFER_PARAMS_CHARS,
} from "../worker/messages.ts";
import { encodeUtf8 } from "../codec/_utf8.ts";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  type ServerSpec,
} from "./spec.ts";
import { drainGroup, signalGroup } from "./_process_group.ts";
import * as reaper from "./_exit_guard.ts";
import { childEnv, createWorker, type WorkerPermissions } from "./_worker_launch.ts";

export type { WorkerPermissions } from "./_worker_launch.ts";

/** Where a client is in its life. */
export type ClientState =
  | "parked"
  | "connecting"
  | "ready"
  | "failed"
  | "dead"
  | "retiring"
  | "retired";

/** Options of a {@linkcode Client}. */
export type ClientOptions = {
  /** How its worker runs; `"inherit"` by default. */
  permissions?: WorkerPermissions;
  /** Default deadline of `shutdown`, and of the cleanup after a failed start. */
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

type Pending = {
  method: RequestMethod;
  timeoutMs: number;
  resolve: (outcome: Result<JsonValue, ClientError>) => void;
  timer: ReturnType<typeof setTimeout>;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
};

function checkTimeout(value: number, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`Cannot use ${what} ${String(value)}: it must be a positive number of ms`);
  }
  return value;
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

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
 * console.log(await client.shutdown());
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
  #worker: Worker | undefined;
  #workerLost = false;
  #pending = new Map<number, Pending>();
  #nextTicket = 0;
  #outbox: string[] = [];
  #flushQueued = false;
  #info: ServerInfo | undefined;
  #death: ClientError | undefined;
  #tail = new ByteTail();
  #pid: number | undefined;
  #exitSeen = false;
  #holding = false;
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
    return this.#pid;
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
    reaper.hold();
    this.#holding = true;
    let worker: Worker;
    try {
      worker = createWorker(this.name, this.#permissions, spec.command);
    } catch (error) {
      this.#releaseHold();
      this.#state = "failed";
      this.#latch("not_connected", `Client "${this.name}" has no worker`);
      const reason = error instanceof Error ? error.message : String(error);
      return Promise.resolve(err({
        kind: "transport_failed",
        message: `Cannot start the worker of "${this.name}": ${reason}`,
        stderrTail: "",
      }));
    }
    this.#worker = worker;
    worker.onmessage = (event) => this.#onMessage(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#lose(`The worker of "${this.name}" crashed: ${event.message}`);
    };
    worker.onmessageerror = () => {
      this.#lose(`The worker of "${this.name}" sent a message that could not be received`);
    };
    const start: StartMessage = {
      kind: "start",
      name: this.name,
      command: spec.command,
      args: [...spec.args],
      env: childEnv(spec),
      cwd: spec.cwd ?? null,
      connectTimeoutMs,
      callTimeoutMs: spec.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      retirementTimeoutMs: this.#retirementTimeoutMs,
      forwardStderr: spec.stderr === "forward",
    };
    this.#post(start);
    return new Promise((resolve) => {
      this.#startSettle = resolve;
      const backstop = connectTimeoutMs + this.#retirementTimeoutMs + WORKER_GRACE_MS;
      this.#startTimer = setTimeout(() => {
        this.#lose(`The worker of "${this.name}" did not finish starting within ${backstop} ms`);
      }, backstop);
    });
  }

  /** Lists every tool the server offers (following pages, one deadline). */
  listTools(options: { timeoutMs?: number } = {}): Promise<Result<ToolDescriptor[], ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#request("tools/list", "", timeoutMs, undefined) as Promise<
      Result<ToolDescriptor[], ClientError>
    >;
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
    if (typeof name !== "string") {
      throw new TypeError(`Cannot call a tool named ${String(name)}: the name must be a string`);
    }
    if (!isPlainObject(args)) {
      throw new TypeError(
        `Cannot call tool ${JSON.stringify(name)}: arguments must be a plain object`,
      );
    }
    const timeoutMs = this.#timeout(options.timeoutMs);
    const params = stringifyJson({ name, arguments: args });
    if (!params.ok) {
      throw new TypeError(`Cannot call tool ${JSON.stringify(name)}: ${params.error.message}`);
    }
    return this.#request("tools/call", params.value, timeoutMs, options.signal) as Promise<
      Result<CallToolResult, ClientError>
    >;
  }

  /** Checks the server answers within the deadline. */
  ping(options: CallOptions = {}): Promise<Result<void, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#request("ping", "", timeoutMs, options.signal) as Promise<
      Result<void, ClientError>
    >;
  }

  /**
   * Retires the server: stdin closed, SIGTERM, SIGKILL to its process group,
   * within one deadline. Evidence only on its real exit, or `no_resource`
   * for a client that never spawned. An error is never permission to start
   * a replacement.
   */
  shutdown(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.#retirementTimeoutMs, "timeoutMs");
    if (this.#evidence !== undefined) {
      this.#state = "retired";
      this.#endWorker();
      return Promise.resolve(ok(this.#evidence));
    }
    const worker = this.#worker;
    if (worker === undefined) {
      this.#state = "retired";
      this.#latch("shutdown", `Client "${this.name}" was retired`);
      this.#evidence = { kind: "no_resource" };
      return Promise.resolve(ok(this.#evidence));
    }
    this.#state = "retiring";
    this.#latch("shutdown", `Client "${this.name}" was shut down`);
    this.#settleAll();
    if (this.#workerLost) return Promise.resolve(err(this.#unconfirmed()));
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

  // ---- requests ----

  #timeout(value: number | undefined): number {
    return checkTimeout(value ?? this.spec.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, "timeoutMs");
  }

  #request(
    method: RequestMethod,
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Result<unknown, ClientError>> {
    if (this.#state !== "ready" || this.#workerLost) {
      return Promise.resolve(err(this.#unavailable()));
    }
    if (signal?.aborted) return Promise.resolve(err(this.#timedOut(method, timeoutMs, true)));
    const ticket = this.#nextTicket++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#expire(ticket, false), timeoutMs);
      const pending: Pending = { method, timeoutMs, resolve, timer, signal, onAbort: undefined };
      if (signal !== undefined) {
        pending.onAbort = () => this.#expire(ticket, true);
        signal.addEventListener("abort", pending.onAbort, { once: true });
      }
      this.#pending.set(ticket, pending);
      if (paramsText.length >= TRANSFER_PARAMS_CHARS) {
        this.#postBytes(ticket, timeoutMs, method, paramsText);
        return;
      }
      this.#outbox.push(renderRequest(ticket, timeoutMs, method, paramsText));
      if (!this.#flushQueued) {
        this.#flushQueued = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushQueued = false;
    const batch = this.#outbox;
    this.#outbox = [];
    if (batch.length === 0 || this.#worker === undefined || this.#workerLost) return;
    this.#worker.postMessage(batch.length === 1 ? batch[0] : batch.join("\n"));
  }

  /** Sends one request with long parameters as transferred UTF-8 bytes, after those queued. */
  #postBytes(ticket: number, timeoutMs: number, method: RequestMethod, paramsText: string): void {
    if (this.#worker === undefined || this.#workerLost) return;
    const params = encodeUtf8(paramsText);
    const message: ToWorker = { kind: "request", ticket, timeoutMs, method, params };
    this.#flush();
    this.#worker.postMessage(message, [params.buffer]);
  }

  #take(ticket: number): Pending | undefined {
    const pending = this.#pending.get(ticket);
    if (pending === undefined) return undefined;
    this.#pending.delete(ticket);
    clearTimeout(pending.timer);
    if (pending.onAbort !== undefined) {
      pending.signal?.removeEventListener("abort", pending.onAbort);
    }
    return pending;
  }

  #expire(ticket: number, aborted: boolean): void {
    const pending = this.#take(ticket);
    if (pending === undefined) return;
    this.#post({ kind: "cancel", ticket });
    pending.resolve(err(this.#timedOut(pending.method, pending.timeoutMs, aborted)));
  }

  #timedOut(method: string, timeoutMs: number, aborted: boolean): ClientError {
    return callTimedOut(this.name, method, timeoutMs, aborted);
  }

  #settled(ticket: number, outcome: Result<JsonValue, ClientError>): void {
    const pending = this.#take(ticket);
    if (pending === undefined) return;
    if (!outcome.ok) {
      pending.resolve(outcome);
      return;
    }
    pending.resolve(this.#decodeValue(pending.method, outcome.value));
  }

  #decodeValue(method: RequestMethod, value: JsonValue): Result<JsonValue, ClientError> {
    switch (method) {
      case "ping":
        return ok(undefined as unknown as JsonValue);
      case "tools/call": {
        const decoded = decodeCallToolResult(value);
        if (decoded.ok) return decoded as unknown as Result<JsonValue, ClientError>;
        return err({
          kind: "result_malformed",
          method,
          message: `Server "${this.name}" sent a malformed result: ${decoded.error.message}`,
        });
      }
      case "tools/list": {
        const decoded = decodeToolsPage({ tools: value });
        if (decoded.ok) return ok(decoded.value.tools as unknown as JsonValue);
        return err({
          kind: "result_malformed",
          method,
          message:
            `The worker of "${this.name}" sent a malformed listing: ${decoded.error.message}`,
        });
      }
    }
  }

  // ---- events ----

  #post(message: ToWorker): void {
    if (this.#worker === undefined || this.#workerLost) return;
    this.#flush();
    this.#worker.postMessage(message);
  }

  #onMessage(data: unknown): void {
    const decoded = decodeFromWorker(data);
    if (!decoded.ok) {
      this.#lose(`The worker of "${this.name}" broke protocol: ${decoded.error}`);
      return;
    }
    for (const event of decoded.value) this.#onEvent(event);
  }

  #onEvent(event: FromWorker): void {
    switch (event.kind) {
      case "settled":
        this.#settled(event.ticket, event.outcome);
        return;
      case "stderr":
        this.#tail.append(event.bytes);
        return;
      case "spawned":
        if (this.#pid === undefined) {
          this.#pid = event.pid;
          reaper.track(event.pid);
        }
        return;
      case "exited":
        if (event.pid === this.#pid) {
          this.#exitSeen = true;
          reaper.untrack(event.pid);
        }
        return;
      case "signal":
        // Never chase a pid whose exit has been seen: it may be recycled.
        if (event.pid === this.#pid && !this.#exitSeen) signalGroup(event.pid, event.signal);
        return;
      case "drain": {
        const { seq, pid, deadlineMs } = event;
        if (pid !== this.#pid || !this.#exitSeen) {
          this.#post({ kind: "drained", seq, drained: "unknown" });
          return;
        }
        void drainGroup(pid, deadlineMs).then((drained) =>
          this.#post({ kind: "drained", seq, drained })
        );
        return;
      }
      case "died":
        if (event.error.kind === "unavailable") {
          this.#death ??= event.error;
        }
        if (this.#state === "ready") this.#state = "dead";
        this.#settleAll();
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
    this.#releaseHold();
    if (!outcome.ok) {
      if (this.#state === "connecting") this.#state = "failed";
      const error = outcome.error;
      if (error.kind !== "cleanup_unconfirmed") {
        const nothingSpawned = this.#pid === undefined
          ? { kind: "no_resource" as const }
          : undefined;
        this.#evidence = error.cleanup ?? nothingSpawned;
      }
      this.#latch("not_connected", `Server "${this.name}" failed to start: ${error.message}`);
      // Nothing is left for the worker to do once the cleanup is confirmed.
      if (this.#evidence !== undefined) this.#endWorker();
      settle(outcome);
      return;
    }
    const info = decodeInitializeResult(outcome.value);
    if (!info.ok) {
      this.#lose(`The worker of "${this.name}" sent a malformed handshake: ${info.error.message}`);
      return;
    }
    this.#info = info.value;
    if (this.#state === "connecting") this.#state = "ready";
    settle(ok(info.value));
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

  #settleAll(): void {
    const error = this.#unavailable();
    for (const ticket of [...this.#pending.keys()]) {
      const pending = this.#take(ticket);
      pending?.resolve(err(error));
    }
  }

  /** The worker crashed, broke protocol or hung: everything waiting settles now. */
  #lose(message: string): void {
    if (this.#workerLost) return;
    this.#workerLost = true;
    this.#worker?.terminate();
    this.#latch("worker_lost", message);
    const pid = this.#pid;
    let cleanupConfirmed = true;
    if (pid !== undefined && !this.#exitSeen) {
      // Terminating the worker drops its child but not the child's descendants.
      signalGroup(pid, "SIGKILL");
      reaper.untrack(pid);
      cleanupConfirmed = false;
    }
    if (this.#state === "ready") this.#state = "dead";
    this.#settleAll();
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
    this.#releaseHold();
  }

  #endWorker(): void {
    if (this.#worker !== undefined && !this.#workerLost) {
      this.#workerLost = true;
      this.#worker.terminate();
    }
    if (this.#pid !== undefined && this.#exitSeen) reaper.untrack(this.#pid);
    this.#releaseHold();
  }

  #releaseHold(): void {
    if (!this.#holding) return;
    this.#holding = false;
    reaper.release();
  }
}
