/**
 * The main thread's handle on one MCP server. The server's process and the
 * client state machine, the one a client has (`client/worker/machine.ts`), live in
 * a Web Worker; this handle routes: each method posts a request and awaits
 * its settlement, and decodes what the result means.
 *
 * Lifecycle ({@linkcode ClientState}): the handle's state is what the
 * worker's machine last reported (`client/thread/state.ts`), its death latched
 * there; `parked` (no worker, no process) until `connect`, which makes it
 * `connecting`. Only where no worker can be asked does the handle answer by
 * itself, with the same rules: a client never started, a worker that could
 * not be made, a worker lost. One start of the server is a generation
 * (`_generation.ts`: its worker, its tickets, the custody of its process);
 * a client whose spec asks for `restart` is started again when it dies,
 * only on the evidence that the dead one is gone (`supervisor.ts`), and the
 * handle stays the same. Who closes what: the worker retires the process,
 * within the deadline it is given; the generation terminates the worker only
 * after the retirement is confirmed (or the worker is lost), and declares a
 * worker that does not answer in time lost. Every call has a main-thread
 * timer at its deadline (`_tickets.ts`), so neither a hung server nor a hung
 * worker can hold a caller past it. The main thread's share in controlling
 * the process (group signals, the drain check, the exit guard) is
 * `client/custody/custody.ts`, asked by the worker on tickets of its own.
 *
 * @module
 */

import { compactJson, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { callTimedOut, type ClientError, type StartError } from "./thread/outcomes.ts";
import type { InputRequired } from "./thread/era.ts";
import type { RetirementError, RetirementEvidence } from "./thread/evidence.ts";
import type { ServerInfo } from "./thread/server_info.ts";
import type { ClientState } from "./thread/state.ts";
import type { CallProgress } from "./thread/progress.ts";
import { ByteTail } from "./transport/stdio/tail.ts";
import {
  callDeadlineMs,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  MAX_INPUT_ROUNDS,
  type OAuthSettings,
  type ServerSpec,
} from "../settings/mod.ts";
import { resolveRestart } from "../settings/restart.ts";
import { callParams, checkTimeout } from "./_checks.ts";
import { decodeCallResult, listFresh } from "./_results.ts";
import { ToolWatchers } from "./_tool_watch.ts";
import type { ToolListing } from "./tool_listing.ts";
import { type SignIn, signInOf } from "./_sign_in.ts";
import type { OAuthFailure, OAuthStatus, TokenStore } from "../oauth/mod.ts";
import type { Decode } from "./_tickets.ts";
import { type Follow, followOf } from "./_progress.ts";
import { type TaskSupport, taskTools } from "./tasks.ts";
import { Generation } from "./_generation.ts";
import {
  declaresResources,
  decodeReadResult,
  type ReadResourceResult,
  type ResourceError,
  resourcesNotDeclared,
} from "./resources.ts";
import {
  type GenerationEnd,
  type GenerationEvent,
  type GenerationRecord,
  Generations,
  replacementRefusal,
  Supervisor,
} from "./supervisor.ts";
import type { WorkerPermissions } from "./permissions.ts";
import type { ServerRequestHandlers } from "./handlers.ts";
import { checkHandlers, servedBy, ServerAnswers, URL_ELICITATION_REQUIRED } from "./_answers.ts";
import type { ServedRequests } from "./thread/asked.ts";

export type { WorkerPermissions } from "./permissions.ts";
export type { ToolListing } from "./tool_listing.ts";

/** Options of a {@linkcode Client}. */
export type ClientOptions = {
  /** How its worker runs; `"inherit"` by default. */
  permissions?: WorkerPermissions;
  /** Default deadline of `retire`, and of the cleanup after a failed start. */
  retirementTimeoutMs?: number;
  /** Call the tools whose `taskSupport` is `"optional"` as tasks too (default `false`). */
  optionalTasks?: boolean;
  /** The sign-in of a remote server whose spec has no `oauth` of its own. */
  oauth?: OAuthSettings;
  /** Where a sign-in keeps its tokens; a `FileTokenStore` in the user's config folder by default. */
  tokenStore?: TokenStore;
} & ServerRequestHandlers;

/** Options of one call. */
export type CallOptions = {
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the call when aborted (it settles as `call_timed_out`, `aborted: true`). */
  signal?: AbortSignal;
  /**
   * Hears the call's progress, in order, until its answer: the server's
   * `notifications/progress` (a `progressToken` is sent only when this is
   * given) and, for a task, each status and its message; server text made
   * inert and cut to `MAX_PROGRESS_MESSAGE_CHARS`.
   */
  onProgress?: (progress: CallProgress) => void;
  /** Each report moves the deadline to `timeoutMs` after it (as the official SDK's option). */
  resetTimeoutOnProgress?: boolean;
  /** The most the whole call may take, progress or not, in milliseconds. */
  maxTotalTimeoutMs?: number;
  /**
   * Call the tool as a task when its listing says `taskSupport: "optional"`
   * (the client's `optionalTasks` by default); a `"required"` one always is,
   * when the server runs tasks.
   */
  task?: boolean;
};

/** One round of a call that may ask for input: its result, or what it asks. */
type CallRound =
  | { kind: "complete"; result: CallToolResult }
  | { kind: "input"; asked: InputRequired };

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
  #tail = new ByteTail();
  #history = new Generations();
  #generation: Generation;
  #supervisor: Supervisor | undefined;
  #listeners = new Set<(event: GenerationEvent) => void>();
  #optionalTasks: boolean;
  #taskTools = new Map<string, TaskSupport>();
  #signIn: SignIn | undefined;
  #toolWatchers = new ToolWatchers();
  #served: ServedRequests;
  #answers: ServerAnswers;

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
    this.#optionalTasks = options.optionalTasks ?? false;
    this.#signIn = signInOf(spec, options);
    checkHandlers(options, `Cannot create client "${spec.name}"`);
    this.#served = servedBy(options, spec.roots ?? options.roots);
    this.#answers = new ServerAnswers(this.name, options, spec.roots ?? options.roots);
    if (spec.restart !== undefined) {
      this.#supervisor = new Supervisor(this.name, resolveRestart(spec.restart), {
        retireDead: () => this.#generation.retireDead(),
        renew: (end) => this.#renew(end),
        generations: this.#history,
        told: (event) => this.#tell(event),
      });
    }
    this.#generation = this.#newGeneration();
  }

  #newGeneration(): Generation {
    return new Generation({
      spec: this.spec,
      permissions: this.#permissions,
      retirementTimeoutMs: this.#retirementTimeoutMs,
      tail: this.#tail,
      history: this.#history,
      died: (death) => {
        if (this.#supervisor === undefined) this.#history.update({ death });
        else void this.#supervisor.died(death);
      },
      ready: () => this.#supervisor?.ready(),
      unavailable: (base) => this.#supervisor?.unavailable(base) ?? base,
      signIn: this.#signIn,
      toolsChanged: () => this.#toolWatchers.tell(),
      served: this.#served,
      answers: this.#answers,
    });
  }

  /** Where the client is in its life: what its worker last reported. */
  get state(): ClientState {
    return this.#generation.state;
  }

  /** Whether its worker runs with least privilege or inherits. */
  get permissions(): WorkerPermissions {
    return this.#permissions;
  }

  /** The server's handshake, once ready. */
  get serverInfo(): ServerInfo | undefined {
    return this.#generation.info;
  }

  /** The server's pid once spawned (the current generation's). */
  get pid(): number | undefined {
    return this.#generation.pid;
  }

  /** Every start of the server so far (one, unless it was restarted), the first first. */
  get generations(): readonly GenerationRecord[] {
    return this.#history.records;
  }

  /**
   * Hears each death of a ready server, each restart and each failed one
   * (for a client whose spec asks for `restart`); returns how to stop.
   */
  listen(listener: (event: GenerationEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(event: GenerationEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener that throws changes nothing of the client.
      }
    }
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
    return this.#generation.connect();
  }

  /** Lists every tool the server offers (following pages, one deadline). */
  listTools(options: { timeoutMs?: number } = {}): Promise<Result<ToolDescriptor[], ClientError>> {
    return this.listing(options).then((listed) => listed.ok ? ok(listed.value.tools) : listed);
  }

  /** Lists every tool as `listTools` does, with how long the listing stays fresh, when said. */
  listing(options: { timeoutMs?: number } = {}): Promise<Result<ToolListing, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    const generation = this.#generation;
    const info = generation.info;
    const page = (params: string, ms: number) =>
      generation.request("tools/list", params, ms, undefined);
    return listFresh(this.name, page, { timeoutMs, era: generation.era }).then((listed) => {
      // Which tools run as tasks, by the listing of the generation that answered.
      if (listed.ok && generation === this.#generation) {
        this.#taskTools = taskTools(info, listed.value.tools);
      }
      return listed;
    });
  }

  /** Calls `listener` whenever the server says its tools changed; returns what stops it. */
  watchTools(listener: () => void): () => void {
    return this.#toolWatchers.add(listener);
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

  /**
   * Calls one tool. An `isError` result is a success value; failures are
   * `unavailable`, `call_timed_out`, `server_error` or `result_malformed`.
   * A tool the listing marks `taskSupport: "required"` (or `"optional"`,
   * when asked) is called as a task, when the server runs tasks: created,
   * polled and its result fetched, an ordinary call to the caller.
   * Throws `TypeError` when `args` cannot be said in JSON.
   */
  callTool(
    name: string,
    args: JsonObject,
    options: CallOptions = {},
  ): Promise<Result<CallToolResult, ClientError>> {
    const params = callParams(name, args);
    const timeoutMs = this.#timeout(options.timeoutMs);
    const support = this.#taskTools.size === 0 ? undefined : this.#taskTools.get(name);
    const task = support === "required" ||
      (support === "optional" && (options.task ?? this.#optionalTasks));
    const follow = followOf(options, task);
    // A task's input arrives by its status, not by its result.
    const send = task
      ? () =>
        this.#generation.request(
          "tools/call",
          params,
          timeoutMs,
          options.signal,
          this.#decodeCall,
          follow,
        )
      : () => this.#callRounds(name, params, timeoutMs, options.signal, follow);
    if (!this.#served.elicit) return send();
    return send().then(async (called) => {
      // A server that needs the user to visit a URL first says so (-32042):
      // once onElicit accepted every one, the call is made once more.
      if (called.ok || called.error.kind !== "server_error") return called;
      const error = called.error.error;
      if (error.code !== URL_ELICITATION_REQUIRED) return called;
      return await this.#answers.satisfyUrlRequired(error.data, name) ? send() : called;
    });
  }

  /**
   * A call whose result may ask for input (2026-07-28 `input_required`):
   * each input request answered by the handlers, the call made again with
   * the `inputResponses` and the echoed `requestState` (a new request, so a
   * new JSON-RPC id), at most `MAX_INPUT_ROUNDS` rounds, all within the
   * call's deadline.
   */
  async #callRounds(
    tool: string,
    params: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    follow: Follow | undefined,
  ): Promise<Result<CallToolResult, ClientError>> {
    const started = performance.now();
    let sent = params;
    for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
      const left = Math.ceil(timeoutMs - (performance.now() - started));
      if (left <= 0) return err(callTimedOut(this.name, "tools/call", timeoutMs, false));
      const answered = await this.#generation.request(
        "tools/call",
        sent,
        left,
        signal,
        this.#decodeRound,
        follow,
      );
      if (!answered.ok) return answered;
      const value = answered.value;
      if (value.kind === "complete") return ok(value.result);
      const responses: JsonObject = {};
      for (const [key, request] of Object.entries(value.asked.inputRequests)) {
        const response = await this.#answers.inputResponse(request, tool);
        if (!response.ok) {
          return err({
            kind: "result_malformed",
            method: "tools/call",
            message: `Cannot answer input request ${JSON.stringify(key)} of server ` +
              `"${this.name}": ${response.error}`,
          });
        }
        responses[key] = response.value;
      }
      const extra: JsonObject = { inputResponses: responses };
      if (value.asked.requestState !== undefined) extra.requestState = value.asked.requestState;
      sent = `${params.slice(0, -1)},${compactJson(extra).slice(1)}`;
    }
    return err({
      kind: "result_malformed",
      method: "tools/call",
      message: `Server "${this.name}" still asked for input after ${MAX_INPUT_ROUNDS} rounds ` +
        `of tool ${JSON.stringify(tool)}; the call is given up`,
    });
  }

  // Decodes one round of a call that may ask for input.
  #decodeRound = (value: JsonValue): Result<CallRound, ClientError> => {
    const asked = this.#generation.era.inputRequired(value);
    if (asked !== undefined) return ok({ kind: "input", asked });
    const decoded = this.#decodeCall(value);
    return decoded.ok ? ok({ kind: "complete", result: decoded.value }) : decoded;
  };

  // Decodes a tools/call result in the step that settles the call.
  #decodeCall = (value: JsonValue) => decodeCallResult(this.name, value, this.#generation.era);

  /**
   * Reads one resource by its URI (`resources/read`), such as the `uri` of a
   * `resource_link` a tool returned: its contents, text or base64 blob, each
   * within `MAX_RESOURCE_BYTES`. A URI the server did not offer is still
   * sent; a server that declared no `resources` is refused before anything
   * is sent (`resources_not_declared`).
   */
  readResource(
    uri: string,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Result<ReadResourceResult, ClientError | ResourceError>> {
    if (typeof uri !== "string") {
      throw new TypeError(`Cannot read a resource: its uri ${String(uri)} is not a string`);
    }
    const timeoutMs = this.#timeout(options.timeoutMs);
    const generation = this.#generation;
    if (generation.state === "ready" && !declaresResources(generation.info)) {
      return Promise.resolve({ ok: false, error: resourcesNotDeclared(this.name) });
    }
    const era = generation.era.name;
    const decode = (value: JsonValue) =>
      decodeReadResult(this.name, value, era) as Result<ReadResourceResult, ClientError>;
    return generation.request(
      "resources/read",
      compactJson({ uri }),
      timeoutMs,
      options.signal,
      decode,
    );
  }

  /** Checks the server answers within the deadline. */
  ping(options: CallOptions = {}): Promise<Result<void, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#generation.request("ping", "", timeoutMs, options.signal, PONG);
  }

  /**
   * Retires the server: stdin closed, SIGTERM, SIGKILL to its process group,
   * within one deadline (or, for a remote server, its session released).
   * Evidence only on its real exit, or `no_resource` for a client that never
   * spawned. An error is never permission to start a replacement; nothing is
   * started again once it was asked.
   */
  retire(
    options: { timeoutMs?: number } = {},
  ): Promise<Result<RetirementEvidence, RetirementError>> {
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.#retirementTimeoutMs, "timeoutMs");
    this.#supervisor?.stop();
    return this.#generation.retire(timeoutMs);
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

  /** Starts a new generation, on the evidence that the last one is gone. */
  #renew(end: GenerationEnd): Promise<Result<ServerInfo, StartError>> {
    // The supervisor's rule, checked again where the replacement is made.
    const refused = replacementRefusal(end);
    if (refused !== undefined) {
      throw new TypeError(`Cannot start server "${this.name}" again: ${refused.message}`);
    }
    this.#generation.end();
    this.#generation = this.#newGeneration();
    return this.#generation.connect();
  }

  #timeout(value: number | undefined): number {
    return checkTimeout(callDeadlineMs(this.spec, value), "timeoutMs");
  }
}
