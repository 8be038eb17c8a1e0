/**
 * The main thread's handle on one MCP server. The server's process and the
 * client state machine, the one a client has (`worker/machine.ts`), live in
 * a Web Worker; this handle routes: each method posts a request and awaits
 * its settlement, and decodes what the result means.
 *
 * Lifecycle ({@linkcode ClientState}): the handle's state is what the
 * worker's machine last reported (`thread/state.ts`), its death latched
 * there; `parked` (no worker, no process) until `connect`, which makes it
 * `connecting`. Only where no worker can be asked does the handle answer by
 * itself, with the same rules: a client never started, a worker that could
 * not be made, a worker lost. Who closes what: the worker retires the
 * process, within the deadline it is given; this handle terminates the
 * worker only after the retirement is confirmed (or the worker is lost), and
 * declares a worker that does not answer in time lost. Every call has a
 * main-thread timer at its deadline (`_tickets.ts`), so neither a hung
 * server nor a hung worker can hold a caller past it. What the worker asks
 * of the main thread on tickets of its own (group signals, the drain check,
 * a remote server's credentials from its sign-in) is answered by `_asks.ts`.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import type { OAuthFailure, OAuthStatus, TokenStore } from "../oauth/mod.ts";
import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ClientError, StartError } from "../thread/outcomes.ts";
import type { RetirementError, RetirementEvidence } from "../thread/evidence.ts";
import type { ServerInfo } from "../thread/server_info.ts";
import {
  cannotConnect,
  type ClientState,
  parkedReport,
  retiredAtOnce,
  type StateReport,
  unavailableOf,
} from "../thread/state.ts";
import type { FromWorker, WorkerAsk } from "../thread/from_worker.ts";
import {
  encodeMalformed,
  encodeRetire,
  encodeSettledAsk,
  type RequestMethod,
  type ToWorker,
} from "../thread/to_worker.ts";
import { ByteTail } from "../worker/tail.ts";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  type OAuthSettings,
  type ServerSpec,
  WORKER_GRACE_MS,
} from "../spec/mod.ts";
import { callParams, checkTimeout } from "./_checks.ts";
import { Custody } from "../custody/custody.ts";
import { decodeCallResult, listFresh } from "./_results.ts";
import { ToolWatchers } from "./_tool_watch.ts";
import type { ToolListing } from "./tool_listing.ts";
import { decodeServerInfo } from "../thread/server_info.ts";
import { type Decode, Tickets } from "./_tickets.ts";
import { createWorker, grantOf, noWorker, startMessage } from "./_worker_launch.ts";
import type { WorkerPermissions } from "./permissions.ts";
import { WorkerLink } from "../thread/link.ts";
import { answerAsk } from "./_asks.ts";
import { type SignIn, signInOf } from "./_sign_in.ts";

export type { WorkerPermissions } from "./permissions.ts";
export type { ToolListing } from "./tool_listing.ts";

/** Options of a {@linkcode Client}. */
export type ClientOptions = {
  /** How its worker runs; `"inherit"` by default. */
  permissions?: WorkerPermissions;
  /** Default deadline of `retire`, and of the cleanup after a failed start. */
  retirementTimeoutMs?: number;
  /** The sign-in of a remote server whose spec has no `oauth` of its own. */
  oauth?: OAuthSettings;
  /** Where a sign-in keeps its tokens; a `FileTokenStore` in the user's config folder by default. */
  tokenStore?: TokenStore;
};

/** Options of one call. */
export type CallOptions = {
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the call when aborted (it settles as `call_timed_out`, `aborted: true`). */
  signal?: AbortSignal;
};

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
  /** What the worker's machine last reported; with no worker to ask, what is known without one. */
  #report: StateReport = parkedReport();
  #link: WorkerLink | undefined;
  #tickets: Tickets;
  #custody = new Custody();
  #info: ServerInfo | undefined;
  #tail = new ByteTail();
  #connecting: Promise<Result<ServerInfo, StartError>> | undefined;
  #startSettle: ((outcome: Result<ServerInfo, StartError>) => void) | undefined;
  #startTimer: ReturnType<typeof setTimeout> | undefined;
  #retireWaiters = new Set<(outcome: Result<RetirementEvidence, RetirementError>) => void>();
  #signIn: SignIn | undefined;
  #toolWatchers = new ToolWatchers();

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
    this.#signIn = signInOf(spec, options);
    this.#tickets = new Tickets(this.name, {
      batch: (text) => this.#link?.batch(text),
      message: (message, transfer) => this.#link?.post(message, transfer),
    });
  }

  /** Where the client is in its life: what its worker last reported. */
  get state(): ClientState {
    return this.#report.state;
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

  /** What the server's sign-in knows, without any secret; `undefined` when it signs in with none. */
  signInStatus(): OAuthStatus | undefined {
    return this.#signIn?.session.status();
  }

  /**
   * Finishes a sign-in that `connect` left as `needs_auth`, with the query
   * the browser came back to the redirect URI with (`code`, `state`, `iss`);
   * the tokens go to the token store, for the next start of the server.
   */
  async completeSignIn(callback: URLSearchParams): Promise<Result<void, OAuthFailure>> {
    const session = this.#signIn?.session;
    if (session === undefined) throw new TypeError(`Server "${this.name}" has no sign-in`);
    const done = await session.completeSignIn(callback);
    return done.ok ? ok(undefined) : done;
  }

  /** The newest bytes of the server's stderr (up to 64 KiB), decoded leniently. */
  stderrTail(): string {
    return this.#tail.text();
  }

  /**
   * Starts the worker, spawns the server and runs the handshake. Calling it
   * again returns the same outcome; a client retired before it was started
   * is `transport_failed`. A start that failed after spawning has retired
   * its process, with the evidence in the error.
   */
  connect(): Promise<Result<ServerInfo, StartError>> {
    if (this.#connecting !== undefined) return this.#connecting;
    if (this.state !== "parked") {
      return Promise.resolve(err(cannotConnect(this.name, this.state, this.stderrTail())));
    }
    this.#connecting = this.#connect();
    return this.#connecting;
  }

  #connect(): Promise<Result<ServerInfo, StartError>> {
    const spec = this.spec;
    const connectTimeoutMs = spec.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#custody.hold();
    let worker: Worker;
    try {
      worker = createWorker(this.name, this.#permissions, grantOf(spec));
    } catch (error) {
      this.#custody.release();
      // No worker to report: the client failed, nothing was spawned.
      const failed = noWorker(this.name, error);
      this.#report = failed.report;
      return Promise.resolve(err(failed.error));
    }
    const link = new WorkerLink(worker, this.name, {
      event: (event) => this.#onEvent(event),
      lost: (message) => this.#lost(message),
    });
    this.#link = link;
    // What the start makes of the machine, before it says so.
    this.#report = { ...this.#report, state: "connecting" };
    const signIn = this.#signIn !== undefined;
    this.#post(startMessage(spec, connectTimeoutMs, this.#retirementTimeoutMs, link.rings, signIn));
    this.#signIn?.watch((message) => this.#post(message));
    return new Promise((resolve) => {
      this.#startSettle = resolve;
      const backstop = connectTimeoutMs + this.#retirementTimeoutMs + WORKER_GRACE_MS;
      this.#startTimer = setTimeout(() => {
        link.lose(`The worker of "${this.name}" did not finish starting within ${backstop} ms`);
      }, backstop);
    });
  }

  /** Lists every tool the server offers (following pages, one deadline). */
  listTools(options: { timeoutMs?: number } = {}): Promise<Result<ToolDescriptor[], ClientError>> {
    return this.listing(options).then((listed) => listed.ok ? ok(listed.value.tools) : listed);
  }

  /** Lists every tool as `listTools` does, with how long the listing stays fresh, when said. */
  listing(options: { timeoutMs?: number } = {}): Promise<Result<ToolListing, ClientError>> {
    const page = (params: string, ms: number) => this.#request("tools/list", params, ms, undefined);
    const era = this.#info?.era ?? "legacy";
    return listFresh(this.name, page, { timeoutMs: this.#timeout(options.timeoutMs), era });
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

  /** Calls `listener` whenever the server says its tools changed; returns what stops it. */
  watchTools(listener: () => void): () => void {
    return this.#toolWatchers.add(listener);
  }

  /** Checks the server answers within the deadline. */
  ping(options: CallOptions = {}): Promise<Result<void, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#request("ping", "", timeoutMs, options.signal, PONG);
  }

  /**
   * Retires the server: stdin closed, SIGTERM, SIGKILL to its process group,
   * within one deadline (or, for a remote server, its session released).
   * Evidence only on its real exit, or `no_resource` for a client that never
   * spawned. An error is never permission to start a replacement.
   */
  retire(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.#retirementTimeoutMs, "timeoutMs");
    // Nothing to stop: the evidence is known, or nothing was ever started.
    const atOnce = retiredAtOnce(this.#report, this.name);
    if (atOnce !== undefined) {
      this.#report = atOnce;
      this.#endWorker();
      return Promise.resolve(ok(atOnce.evidence));
    }
    const link = this.#link;
    if (link === undefined || link.closed) {
      this.#report = { ...this.#report, state: "retiring" };
      return Promise.resolve(err(this.#unconfirmed()));
    }
    // The tree as it stands while the server still lives: once it exits, its
    // descendants are reparented and only this record finds them.
    this.#custody.snapshot();
    this.#post(encodeRetire(timeoutMs));
    // The worker answers within the deadline; one that does not is lost.
    const backstop = timeoutMs + WORKER_GRACE_MS;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        link.lose(
          `The worker of "${this.name}" did not answer its retirement within ${backstop} ms`,
        );
      }, backstop);
      this.#retireWaiters.add((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
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
    method: RequestMethod,
    paramsText: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    decode?: Decode<T>,
  ): Promise<Result<T, ClientError>> {
    if (this.state !== "ready" || this.#link === undefined || this.#link.closed) {
      return Promise.resolve(err(this.#unavailable()));
    }
    return this.#tickets.request(method, paramsText, timeoutMs, signal, decode);
  }

  /** Why a call is refused now: the worker's latched death, or that the client is not ready. */
  #unavailable(): ClientError {
    return unavailableOf(this.#report, this.name, this.stderrTail());
  }

  // ---- events ----

  #post(message: ToWorker): void {
    this.#tickets.flush();
    this.#link?.post(message);
  }

  #onEvent(event: FromWorker): void {
    switch (event.kind) {
      case "answers": {
        const fault = this.#tickets.answers(event.tickets, event.ids, event.lines);
        if (fault === undefined) return;
        // The worker that sent them is lost; a line that is not its response
        // is told to the worker, whose machine dies of it and says so.
        if (fault.cause === "worker") this.#link?.lose(fault.message);
        else this.#post(encodeMalformed(fault.message, fault.cause));
        return;
      }
      case "settled":
        this.#tickets.settled(event.ticket, event.outcome);
        return;
      case "state":
        this.#report = { state: event.state, death: event.death, evidence: event.evidence };
        // What the worker's death did not settle (answers handed on, not yet
        // read here) settles with it.
        if (event.death !== null) this.#tickets.settleAll(this.#unavailable());
        return;
      case "stderr":
        this.#tail.append(event.bytes);
        return;
      case "spawned":
        this.#custody.spawned(event.pid);
        return;
      case "exited":
        this.#custody.exited(event.pid);
        return;
      case "request":
        this.#serve(event);
        return;
      case "started":
        this.#started(event.outcome);
        return;
      case "tools_changed":
        return this.#toolWatchers.tell();
      case "retired":
        for (const settle of [...this.#retireWaiters]) settle(event.outcome);
        this.#retireWaiters.clear();
        // The start is answered before the retirement: nothing is left to ask.
        if (event.outcome.ok) this.#endWorker();
        return;
    }
  }

  /** Does for the worker what it cannot (`_asks.ts`), and answers its ticket. */
  #serve(ask: WorkerAsk): void {
    const answer = answerAsk(ask, this.#custody, this.#signIn);
    if (!(answer instanceof Promise)) return this.#post(encodeSettledAsk(ask.ticket, answer));
    void answer.then((value) => this.#post(encodeSettledAsk(ask.ticket, value)));
  }

  #started(outcome: Result<JsonValue, StartError>): void {
    const settle = this.#startSettle;
    if (settle === undefined) return;
    this.#startSettle = undefined;
    clearTimeout(this.#startTimer);
    this.#custody.release();
    if (!outcome.ok) {
      // Nothing is left for the worker to do once the cleanup is confirmed,
      // unless a retirement asked meanwhile is still to be answered.
      if (this.#report.evidence !== null && this.#retireWaiters.size === 0) this.#endWorker();
      settle(outcome);
      return;
    }
    const info = decodeServerInfo(outcome.value);
    if (info === undefined) {
      this.#link?.lose(`The worker of "${this.name}" sent a malformed server info`);
      return;
    }
    this.#info = info;
    settle(ok(info));
  }

  // ---- a lost worker ----

  #unconfirmed(): RetirementError {
    return {
      kind: "retirement_unconfirmed",
      message: `The worker of "${this.name}" was lost before the exit of its server was seen; ` +
        `its process group was killed, but its exit is unconfirmed`,
    };
  }

  /**
   * The worker crashed, broke protocol or hung: it can report nothing more,
   * so its loss is the client's last report, and everything waiting settles
   * now.
   */
  #lost(message: string): void {
    const cleanupConfirmed = this.#custody.abandon();
    const report = this.#report;
    const state = report.state === "connecting"
      ? "failed"
      : report.state === "ready"
      ? "dead"
      : report.state;
    // A death the worker reported stays why calls are refused.
    const death = report.death ?? {
      kind: "unavailable" as const,
      cause: "worker_lost" as const,
      message,
      stderrTail: "",
    };
    this.#report = { state, death, evidence: report.evidence };
    this.#tickets.settleAll(this.#unavailable());
    const start = this.#startSettle;
    if (start !== undefined) {
      this.#startSettle = undefined;
      clearTimeout(this.#startTimer);
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
    this.#signIn?.stop();
  }

  #endWorker(): void {
    this.#signIn?.stop();
    this.#link?.end();
    this.#custody.end();
  }
}
