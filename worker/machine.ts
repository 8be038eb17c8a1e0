/**
 * The client state machine: one MCP server over a {@linkcode Transport},
 * with deadlines on an injected {@linkcode Clock}.
 *
 * Lifecycle: `idle` → `connecting` → `ready`; a start that fails ends
 * `failed`, a ready client that loses its server ends `dead`, and
 * `shutdown` leads through `retiring` to `retired`. Who closes what:
 * the machine owns the transport from `open` on. Any death (a failed write,
 * the exit, a framing fault, a malformed line, a shutdown) settles every
 * waiting call once with `unavailable`, latches its reason, and starts the
 * retirement (close stdin, SIGTERM the group, SIGKILL the group, one
 * deadline), which disposes of the transport once the exit has been seen.
 * Only that real exit, or never having opened, is retirement evidence.
 *
 * @module
 */

import { classify, encodeError, type Id, METHOD_NOT_FOUND } from "../codec/jsonrpc.ts";
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseJson,
  stringifyJson,
} from "../codec/json.ts";
import {
  type CallToolResult,
  decodeCallToolResult,
  decodeInitializeResult,
  decodeToolsPage,
  type Implementation,
  REQUESTED_VERSION,
  type ToolDescriptor,
} from "../codec/protocol.ts";
import { LineDecoder } from "../codec/framing.ts";
import { err, ok, type Result } from "../codec/result.ts";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  MAX_TOOL_PAGES,
} from "../client/spec.ts";
import { type Clock, systemClock, type TimerHandle } from "./clock.ts";
import { callTimedOut } from "./errors.ts";
import type {
  ClientError,
  DeathCause,
  Escalation,
  RetirementError,
  RetirementEvidence,
  ServerInfo,
  StartError,
  StartFailure,
} from "./errors.ts";
import type { ChannelEnd, ExitStatus, Transport } from "./transport.ts";

/** Where a machine is in its life. */
export type MachineState =
  | "idle"
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
  /** Default deadline of a call, in milliseconds. */
  callTimeoutMs?: number;
  /** Deadline of the retirement that follows a failed start or a death. */
  retirementTimeoutMs?: number;
  /** What the client says of itself in `initialize`. */
  clientInfo?: Implementation;
  /** Called once, with the latched reason, when the client dies. */
  onDeath?: (error: ClientError) => void;
};

/** Options of one request. */
export type RequestOptions = { timeoutMs?: number; signal?: AbortSignal };

/** Receives the outcome of a raw request, exactly once. */
export type Settle = (outcome: Result<JsonValue, ClientError>) => void;

/** Share of a retirement's deadline spent waiting after closing stdin. */
export const STDIN_GRACE_SHARE = 0.4;
/** Share of a retirement's deadline spent waiting after SIGTERM (cumulative). */
export const SIGTERM_GRACE_SHARE = 0.8;

/** How long an end of stdout waits for the exit status before it is the death reason. */
export const EXIT_AFTER_EOF_GRACE_MS = 50;

/** What this client calls itself in `initialize`. */
export const CLIENT_INFO: Implementation = { name: "@loom/mcp", version: "0.1.0" };

type Pending = { method: string; settle: Settle; timer: TimerHandle; timeoutMs: number };

const NO_PARAMS = "";

/**
 * Renders one request line from parameters already rendered as compact JSON:
 * the main thread renders a call's arguments once, and they cross the worker
 * boundary and reach the pipe without being parsed again.
 */
export function requestLine(id: number, method: string, paramsText: string): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}`;
  return paramsText === NO_PARAMS ? `${head}}\n` : `${head},"params":${paramsText}}\n`;
}

/** What goes before and after a request's parameters on its line. */
function requestLineParts(id: number, method: string): [string, string] {
  return [`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":`, "}\n"];
}

function messageLine(message: JsonObject): string {
  const text = stringifyJson(message);
  // Every message this module builds is sayable; a failure is a bug here.
  if (!text.ok) throw new RangeError(text.error.message);
  return `${text.value}\n`;
}

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
  #callTimeoutMs: number;
  #retirementTimeoutMs: number;
  #clientInfo: Implementation;
  #onDeath: ((error: ClientError) => void) | undefined;

  #state: MachineState = "idle";
  #opened = false;
  #pid: number | null = null;
  #nextId = 0;
  #pending = new Map<number, Pending>();
  #decoder = new LineDecoder();
  #channelOpen = false;
  #death: { cause: DeathCause; message: string } | undefined;
  #exit: ExitStatus | undefined;
  #exitWaiters = new Set<() => void>();
  #escalation: Escalation = "none";
  #retirement: Promise<Result<RetirementEvidence, RetirementError>> | undefined;
  #evidence: RetirementEvidence | undefined;

  constructor(transport: Transport, options: MachineOptions) {
    this.#transport = transport;
    this.#name = options.name;
    this.#clock = options.clock ?? systemClock;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.#retirementTimeoutMs = options.retirementTimeoutMs ?? DEFAULT_RETIREMENT_TIMEOUT_MS;
    this.#clientInfo = options.clientInfo ?? CLIENT_INFO;
    this.#onDeath = options.onDeath;
  }

  /** Where the machine is in its life. */
  get state(): MachineState {
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
    return this.#exit;
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
    if (this.#state !== "idle") {
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
    const params = messageLine({
      protocolVersion: REQUESTED_VERSION,
      // Empty on purpose: no sampling, no roots, no elicitation.
      capabilities: {},
      clientInfo: { ...this.#clientInfo },
    }).slice(0, -1);
    const answer = await this.#requestAsync(
      "initialize",
      params,
      Math.max(0, deadlineAt - this.#clock.now()),
      undefined,
      "connecting",
    );
    if (!answer.ok) return await this.#failStart(this.#handshakeFailure(answer.error));
    const decoded = decodeInitializeResult(answer.value, REQUESTED_VERSION);
    if (!decoded.ok) {
      const fault = decoded.error;
      return await this.#failStart(
        fault.kind === "version_unsupported"
          ? {
            kind: "version_unsupported",
            message: `Cannot use server "${this.#name}": ${fault.message}`,
            requested: fault.requested,
            received: fault.received,
            stderrTail: this.stderrTail(),
          }
          : {
            kind: "handshake_failed",
            message: `Server "${this.#name}" answered initialize wrongly: ${fault.message}`,
            stderrTail: this.stderrTail(),
          },
      );
    }
    const info = decoded.value;
    if (!isJsonObject(info.capabilities.tools)) {
      return await this.#failStart({
        kind: "tools_not_declared",
        message: `Server "${this.#name}" does not declare the "tools" capability; ` +
          `it offers nothing this client can call`,
        serverInfo: info,
        stderrTail: this.stderrTail(),
      });
    }
    if (this.#state !== "connecting" || this.#death !== undefined) {
      return await this.#failStart(this.#handshakeFailure(this.#unavailable()));
    }
    this.#write(messageLine({ jsonrpc: "2.0", method: "notifications/initialized" }));
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

  /** Sends one request and resolves with its raw outcome. */
  request(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions = {},
  ): Promise<Result<JsonValue, ClientError>> {
    let text = NO_PARAMS;
    if (params !== undefined) {
      const rendered = stringifyJson(params);
      if (!rendered.ok) {
        throw new TypeError(`Cannot send ${method} to "${this.#name}": ${rendered.error.message}`);
      }
      text = rendered.value;
    }
    return this.#requestAsync(
      method,
      text,
      options.timeoutMs ?? this.#callTimeoutMs,
      options.signal,
    );
  }

  /** Calls one tool and decodes its result. */
  async callTool(
    name: string,
    args: JsonObject,
    options: RequestOptions = {},
  ): Promise<Result<CallToolResult, ClientError>> {
    const outcome = await this.request("tools/call", { name, arguments: args }, options);
    if (!outcome.ok) return outcome;
    return this.decodeCallResult(outcome.value);
  }

  /** Decodes a raw `tools/call` result, `result_malformed` when it lies. */
  decodeCallResult(value: JsonValue): Result<CallToolResult, ClientError> {
    const decoded = decodeCallToolResult(value);
    if (decoded.ok) return decoded;
    return err({
      kind: "result_malformed",
      method: "tools/call",
      message: `Server "${this.#name}" sent a malformed result: ${decoded.error.message}`,
    });
  }

  /** Checks the server answers. */
  async ping(options: RequestOptions = {}): Promise<Result<void, ClientError>> {
    const outcome = await this.request("ping", undefined, options);
    return outcome.ok ? ok(undefined) : outcome;
  }

  /**
   * Lists every tool, following `nextCursor` for at most
   * {@linkcode MAX_TOOL_PAGES} pages under one deadline; a repeated cursor
   * is refused as `result_malformed`.
   */
  async listTools(options: RequestOptions = {}): Promise<Result<ToolDescriptor[], ClientError>> {
    const timeoutMs = options.timeoutMs ?? this.#callTimeoutMs;
    const deadlineAt = this.#clock.now() + timeoutMs;
    const tools: ToolDescriptor[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1;; page++) {
      if (page > MAX_TOOL_PAGES) {
        return err({
          kind: "too_many_pages",
          pages: page - 1,
          limit: MAX_TOOL_PAGES,
          message: `Server "${this.#name}" listed more than ${MAX_TOOL_PAGES} pages of tools ` +
            `(MAX_TOOL_PAGES); its listing was refused`,
        });
      }
      const remaining = deadlineAt - this.#clock.now();
      const params = cursor === undefined ? "{}" : messageLine({ cursor }).slice(0, -1);
      const outcome = await this.#requestAsync("tools/list", params, remaining, options.signal);
      if (!outcome.ok) {
        return outcome.error.kind === "call_timed_out"
          ? err(this.#timedOut("tools/list", timeoutMs, outcome.error.aborted))
          : outcome;
      }
      const decoded = decodeToolsPage(outcome.value);
      if (!decoded.ok) {
        return err({
          kind: "result_malformed",
          method: "tools/list",
          message: `Server "${this.#name}" sent a malformed tools/list page ${page}: ` +
            decoded.error.message,
        });
      }
      tools.push(...decoded.value.tools);
      const next = decoded.value.nextCursor;
      if (next === undefined) return ok(tools);
      if (seen.has(next)) {
        return err({
          kind: "result_malformed",
          method: "tools/list",
          message: `Server "${this.#name}" repeated the tools/list cursor ` +
            `${JSON.stringify(next.slice(0, 60))}; its listing was refused`,
        });
      }
      seen.add(next);
      cursor = next;
    }
  }

  /**
   * Retires the server: closes stdin, waits, SIGTERMs its process group,
   * waits, SIGKILLs the group, within one deadline. Evidence only on the
   * real exit, or `no_resource` for a client that never opened.
   */
  async shutdown(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    const timeoutMs = options.timeoutMs ?? this.#retirementTimeoutMs;
    if (this.#evidence !== undefined) {
      this.#state = "retired";
      return ok(this.#evidence);
    }
    if (this.#state === "idle") {
      this.#state = "retired";
      this.#die("shutdown", `Client "${this.#name}" was retired`);
      this.#evidence = { kind: "no_resource" };
      return ok(this.#evidence);
    }
    this.#state = "retiring";
    this.#die("shutdown", `Client "${this.#name}" was shut down`, { retire: false });
    const outcome = await this.#withDeadline(this.#retire(timeoutMs), timeoutMs);
    if (outcome.ok) {
      this.#evidence = outcome.value;
      this.#state = "retired";
    }
    return outcome;
  }

  // ---- requests ----

  #requestAsync(
    method: string,
    paramsText: string,
    timeoutMs: number,
    signal?: AbortSignal,
    state: MachineState = "ready",
  ): Promise<Result<JsonValue, ClientError>> {
    if (this.#state !== state || this.#death !== undefined) {
      return Promise.resolve(err(this.#unavailable()));
    }
    if (signal?.aborted) {
      return Promise.resolve(err(this.#timedOut(method, timeoutMs, true)));
    }
    return new Promise((resolve) => {
      if (this.#state !== state || this.#death !== undefined) {
        resolve(err(this.#unavailable()));
        return;
      }
      let onAbort: (() => void) | undefined;
      const id = this.#send(method, paramsText, timeoutMs, (outcome) => {
        if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      });
      if (signal !== undefined && this.#pending.has(id)) {
        onAbort = () => this.cancel(id);
        signal.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  #send(method: string, params: string | Uint8Array, timeoutMs: number, settle: Settle): number {
    const id = this.#nextId++;
    const timer = this.#clock.setTimer(timeoutMs, () => {
      const pending = this.#pending.get(id);
      if (pending !== undefined) this.#expire(id, pending, false);
    });
    this.#pending.set(id, { method, settle, timer, timeoutMs });
    if (typeof params === "string") {
      this.#write(requestLine(id, method, params));
    } else {
      // Bytes go to the pipe as they came: the line is queued in three parts.
      const [head, tail] = requestLineParts(id, method);
      this.#write(head);
      this.#write(params);
      this.#write(tail);
    }
    return id;
  }

  #expire(id: number, pending: Pending, aborted: boolean): void {
    this.#pending.delete(id);
    this.#clock.clearTimer(pending.timer);
    if (this.#channelOpen && this.#death === undefined) {
      this.#write(messageLine({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: {
          requestId: id,
          reason: aborted ? "The caller cancelled the request" : "The request timed out",
        },
      }));
    }
    pending.settle(err(this.#timedOut(pending.method, pending.timeoutMs, aborted)));
  }

  #timedOut(method: string, timeoutMs: number, aborted: boolean): ClientError {
    return callTimedOut(this.#name, method, timeoutMs, aborted);
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
      const excerpt = JSON.stringify(line.length > 80 ? `${line.slice(0, 77)}...` : line);
      this.#die(
        "malformed",
        `Server "${this.#name}" wrote a line that is not a JSON-RPC message ` +
          `(${inbound.error.message}): ${excerpt}`,
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
        this.#refuse(message.id, message.method);
        return;
      case "notification":
        return;
    }
  }

  #refuse(id: Id, method: string): void {
    this.#write(messageLine(encodeError(id, {
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
    if (this.#exit !== undefined || this.#death !== undefined) return;
    const message = `Server "${this.#name}" closed its stdout: ${cause.message}`;
    const timer = this.#clock.setTimer(EXIT_AFTER_EOF_GRACE_MS, () => {
      this.#exitWaiters.delete(wake);
      this.#die("stdout_closed", message);
    });
    const wake = () => this.#clock.clearTimer(timer);
    this.#exitWaiters.add(wake);
  }

  #onExit(status: ExitStatus): void {
    if (this.#exit !== undefined) return;
    this.#exit = status;
    const how = status.signal === null ? `with code ${status.code}` : `on signal ${status.signal}`;
    this.#die("exited", `Server "${this.#name}" exited ${how}`);
    const waiters = [...this.#exitWaiters];
    this.#exitWaiters.clear();
    for (const wake of waiters) wake();
  }

  // ---- death and retirement ----

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
    if (this.#opened && options.retire !== false) void this.#retire(this.#retirementTimeoutMs);
  }

  #handshakeFailure(error: ClientError): StartFailure {
    const tail = this.stderrTail();
    switch (error.kind) {
      case "unavailable":
        return {
          kind: "handshake_failed",
          message: `${error.message} before answering initialize`,
          stderrTail: tail,
        };
      case "call_timed_out":
        return {
          kind: "handshake_failed",
          message: `Server "${this.#name}" did not answer initialize within ` +
            `${this.#connectTimeoutMs} ms; check its command or raise connectTimeoutMs`,
          stderrTail: tail,
        };
      default:
        return {
          kind: "handshake_failed",
          message: `Server "${this.#name}" failed the handshake: ${error.message}`,
          stderrTail: tail,
        };
    }
  }

  async #failStart(failure: StartFailure): Promise<Result<ServerInfo, StartError>> {
    if (this.#state === "connecting") this.#state = "failed";
    this.#die("not_connected", `Server "${this.#name}" failed to start: ${failure.message}`);
    const cleanup = await this.#retire(this.#retirementTimeoutMs);
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

  #retire(timeoutMs: number): Promise<Result<RetirementEvidence, RetirementError>> {
    if (this.#retirement === undefined) {
      const running = this.#escalate(timeoutMs);
      this.#retirement = running;
      // A failed retirement may be tried again later: the exit may come yet.
      void running.then((outcome) => {
        if (!outcome.ok && this.#retirement === running) this.#retirement = undefined;
      });
    }
    return this.#retirement;
  }

  async #escalate(timeoutMs: number): Promise<Result<RetirementEvidence, RetirementError>> {
    if (!this.#opened) return ok({ kind: "no_resource" });
    const start = this.#clock.now();
    const deadlineAt = start + timeoutMs;
    if (this.#exit === undefined) {
      if (this.#escalation === "none") this.#escalation = "stdin_closed";
      this.#transport.closeStdin();
      await this.#waitExit(start + timeoutMs * STDIN_GRACE_SHARE);
    }
    if (this.#exit === undefined) {
      if (this.#escalation !== "sigkill") this.#escalation = "sigterm";
      this.#transport.signal("SIGTERM");
      await this.#waitExit(start + timeoutMs * SIGTERM_GRACE_SHARE);
    }
    if (this.#exit === undefined) {
      this.#escalation = "sigkill";
      this.#transport.signal("SIGKILL");
      await this.#waitExit(deadlineAt);
    }
    const status = this.#exit;
    if (status === undefined) {
      return err({
        kind: "retirement_timed_out",
        timeoutMs,
        escalation: this.#escalation,
        message: `Server "${this.#name}" (pid ${this.#pid ?? "unknown"}) did not exit within ` +
          `${timeoutMs} ms of its retirement, even after SIGKILL; do not start a replacement ` +
          `until it is gone`,
      });
    }
    const drained = await this.#transport.drain(Math.max(0, deadlineAt - this.#clock.now()));
    await this.#transport.dispose();
    return ok({
      kind: "exited",
      pid: this.#pid ?? -1,
      code: status.code,
      signal: status.signal,
      drained,
      escalation: this.#escalation,
    });
  }

  #waitExit(at: number): Promise<void> {
    if (this.#exit !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.#clock.clearTimer(timer);
        resolve();
      };
      const timer = this.#clock.setTimer(at - this.#clock.now(), () => {
        this.#exitWaiters.delete(wake);
        resolve();
      });
      this.#exitWaiters.add(wake);
    });
  }

  #withDeadline<T>(
    running: Promise<Result<T, RetirementError>>,
    timeoutMs: number,
  ): Promise<Result<T, RetirementError>> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimer(timeoutMs, () => {
        resolve(err({
          kind: "retirement_timed_out",
          timeoutMs,
          escalation: this.#escalation,
          message: `Server "${this.#name}" was not confirmed gone within ${timeoutMs} ms ` +
            `(last step: ${this.#escalation}); do not start a replacement until it is`,
        }));
      });
      void running.then((outcome) => {
        this.#clock.clearTimer(timer);
        resolve(outcome);
      });
    });
  }
}
