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

import { compactJson, isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
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
  MAX_TIMEOUT_MS,
  type OAuthSettings,
  type ServerSpec,
} from "../settings/mod.ts";
import { resolveRestart } from "../settings/restart.ts";
import { callParams, checkTimeout } from "./_checks.ts";
import { decodeCallResult, listFresh } from "./_results.ts";
import { ToolWatchers } from "./_tool_watch.ts";
import { ListListen, type WatchedList } from "./_list_listen.ts";
import type { ToolListing } from "./tool_listing.ts";
import { type SignIn, signInOf } from "./_sign_in.ts";
import type { OAuthFailure, OAuthStatus, TokenStore } from "../oauth/mod.ts";
import type { Decode } from "./_tickets.ts";
import { type Follow, followOf } from "./_progress.ts";
import { type TaskSupport, taskTools } from "./tasks.ts";
import { Generation } from "./_generation.ts";
import {
  declaresResources,
  declaresSubscriptions,
  decodeReadResult,
  type ReadResourceResult,
  type ResourceError,
  resourcesNotDeclared,
  type ResourceSubscription,
  subscriptionsNotDeclared,
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
import type { LogEntry, LogOptions } from "./logs.ts";
import { checkLogOptions, logEntry } from "./_logs.ts";
import type { Notice } from "./thread/notices.ts";
import { listAll, type ListKind } from "./_lists.ts";
import {
  type CompleteContext,
  type CompleteResult,
  type CompletionReference,
  decodeCompletion,
  decodePrompt,
  type GetPromptResult,
  notDeclared,
  type PromptCapability,
  type PromptDescriptor,
  type PromptError,
} from "./prompts.ts";
import { decodePromptsPage } from "../codec/prompts.ts";
import {
  decodeResourcesPage,
  decodeResourceTemplatesPage,
  type ResourceDescriptor,
  type ResourceTemplateDescriptor,
} from "../codec/resource_lists.ts";
import type { ServerRequestHandlers } from "./handlers.ts";
import { checkHandlers, servedBy, ServerAnswers, URL_ELICITATION_REQUIRED } from "./_answers.ts";
import type { ServedRequests } from "./thread/asked.ts";
import { decodeSkillResult, decodeSkillsPage, type SkillEntry } from "../codec/skills.ts";
import {
  checkFrontmatter,
  checkSkillBounds,
  checkSkillFile,
  declaresSkills,
  findSkill,
  type SkillError,
  type SkillFile,
  skillsNotDeclared,
} from "./skills.ts";

export type { WorkerPermissions } from "./permissions.ts";
export type { ToolListing } from "./tool_listing.ts";

/** Options of a {@linkcode Client}. */
export type ClientOptions =
  & {
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
  }
  & LogOptions
  & ServerRequestHandlers;

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

/** Options of one request that is not a tool call: its deadline, and what gives up on it. */
export type RequestOptions = {
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the request when aborted (it settles as `call_timed_out`, `aborted: true`). */
  signal?: AbortSignal;
};

const PROMPTS: ListKind<PromptDescriptor> = {
  method: "prompts/list",
  noun: "prompts",
  decode: (value) => {
    const page = decodePromptsPage(value);
    return page.ok ? { ok: true, value: { ...page.value, entries: page.value.prompts } } : page;
  },
};

const RESOURCES: ListKind<ResourceDescriptor> = {
  method: "resources/list",
  noun: "resources",
  decode: (value) => {
    const page = decodeResourcesPage(value);
    return page.ok ? { ok: true, value: { ...page.value, entries: page.value.resources } } : page;
  },
};

const TEMPLATES: ListKind<ResourceTemplateDescriptor> = {
  method: "resources/templates/list",
  noun: "resource templates",
  decode: (value) => {
    const page = decodeResourceTemplatesPage(value);
    return page.ok
      ? { ok: true, value: { ...page.value, entries: page.value.resourceTemplates } }
      : page;
  },
};
const SKILLS: ListKind<SkillEntry> = {
  method: "skills/list",
  noun: "skills",
  decode: (value) => {
    const page = decodeSkillsPage(value);
    return page.ok ? { ok: true, value: { ...page.value, entries: page.value.skills } } : page;
  },
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
  #toolWatchers = new ToolWatchers("tools", () => this.#lists.update());
  #promptWatchers = new ToolWatchers("prompts", () => this.#lists.update());
  #resourceWatchers = new ToolWatchers("resources", () => this.#lists.update());
  // A modern session hears list changes only on a listen that asked for them.
  #lists = new ListListen(() => this.#generation, (list) => this.#watchersOf(list).watched);
  // The last skills listing, and the generation that answered it.
  #skills: { generation: Generation; entries: SkillEntry[] } | undefined;
  #onLog: ((entry: LogEntry) => void) | undefined;
  #logLevel: LogOptions["logLevel"];
  #subscriptions = new Set<{ uri: string; onUpdated: (uri: string) => void }>();
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
    const logs = checkLogOptions(options, `Cannot create client ${JSON.stringify(spec.name)}`);
    this.#onLog = logs.onLog;
    this.#logLevel = spec.logLevel ?? logs.logLevel;
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
      ready: () => {
        this.#supervisor?.ready();
        // The generation is ready once its start settles.
        queueMicrotask(() => this.#lists.update());
      },
      unavailable: (base) => this.#supervisor?.unavailable(base) ?? base,
      signIn: this.#signIn,
      toolsChanged: () => {
        this.#lists.heard();
        this.#toolWatchers.tell();
      },
      logLevel: this.#logLevel,
      notice: (notice) => this.#noticed(notice),
      served: this.#served,
      answers: this.#answers,
    });
  }

  /** What a server told: handed to whoever listens for it; a listener that throws changes nothing. */
  #noticed(notice: Notice): void {
    if (notice.kind === "log") return tell(() => this.#onLog?.(logEntry(this.name, notice)));
    if (notice.kind === "list_changed") {
      this.#lists.heard();
      if (notice.list === "prompts") return this.#promptWatchers.tell();
      return this.#resourceWatchers.tell();
    }
    if (notice.kind !== "resource_updated") return;
    for (const subscription of [...this.#subscriptions]) {
      // The server may name a part of what was subscribed to.
      const uri = subscription.uri;
      if (notice.uri === uri || (notice.uri.startsWith(uri) && uri.endsWith("/"))) {
        tell(() => subscription.onUpdated(notice.uri));
      }
    }
  }

  #watchersOf(list: WatchedList): ToolWatchers {
    if (list === "tools") return this.#toolWatchers;
    return list === "prompts" ? this.#promptWatchers : this.#resourceWatchers;
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

  /**
   * Lists every tool the server offers (following pages, one deadline); none,
   * without asking, for a server that declared no `tools`.
   */
  listTools(options: { timeoutMs?: number } = {}): Promise<Result<ToolDescriptor[], ClientError>> {
    return this.listing(options).then((listed) => listed.ok ? ok(listed.value.tools) : listed);
  }

  /** Lists every tool as `listTools` does, with how long the listing stays fresh, when said. */
  listing(options: { timeoutMs?: number } = {}): Promise<Result<ToolListing, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    const generation = this.#generation;
    const info = generation.info;
    // A server that offers prompts, resources or skills but declared no tools lists none.
    if (generation.state === "ready" && !isJsonObject(info?.capabilities.tools)) {
      return Promise.resolve(ok({ tools: [] }));
    }
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

  /**
   * Calls `listener` whenever the server says its tools changed
   * (`notifications/tools/list_changed`); returns what stops it. A legacy
   * server tells it unasked; on a 2026-07-28 session that declared
   * `tools.listChanged`, the client keeps a `subscriptions/listen` open for
   * it while anyone watches.
   */
  watchTools(listener: () => void): () => void {
    return this.#toolWatchers.add(listener);
  }

  /**
   * Calls `listener` whenever the server says its prompts changed
   * (`notifications/prompts/list_changed`); returns what stops it. A
   * listener that throws changes nothing of the client. A legacy server
   * tells it unasked; on a 2026-07-28 session that declared
   * `prompts.listChanged`, the client keeps a `subscriptions/listen` open for
   * it while anyone watches.
   */
  watchPrompts(listener: () => void): () => void {
    return this.#promptWatchers.add(listener);
  }

  /**
   * Calls `listener` whenever the server says its list of resources changed
   * (`notifications/resources/list_changed`); returns what stops it. A
   * legacy server tells it unasked; on a 2026-07-28 session that declared
   * `resources.listChanged`, the client keeps a `subscriptions/listen` open
   * for it while anyone watches.
   */
  watchResources(listener: () => void): () => void {
    return this.#resourceWatchers.add(listener);
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

  /**
   * Lists every prompt the server offers (`prompts/list`, following pages
   * under one deadline, at most `MAX_LIST_PAGES`); a server that declared no
   * `prompts` is refused before anything is sent (`prompts_not_declared`).
   */
  listPrompts(
    options: RequestOptions = {},
  ): Promise<Result<PromptDescriptor[], ClientError | PromptError>> {
    const refused = this.#undeclared("prompts");
    return refused ?? this.#list(PROMPTS, options);
  }

  /**
   * Gets one prompt with its arguments filled (`prompts/get`): its messages,
   * each a role and one content block. Every argument is a string; the
   * server says which it requires. Throws `TypeError` on a name that is not a
   * non-empty string or an argument that is not a string.
   */
  getPrompt(
    name: string,
    args: Readonly<Record<string, string>> = {},
    options: RequestOptions = {},
  ): Promise<Result<GetPromptResult, ClientError | PromptError>> {
    if (typeof name !== "string" || name === "") {
      throw new TypeError(
        `Cannot get a prompt: its name ${String(name)} is not a non-empty string`,
      );
    }
    const values = stringRecord(args, `Cannot get prompt ${JSON.stringify(name)}`);
    const refused = this.#undeclared("prompts");
    if (refused !== undefined) return refused;
    const era = this.#generation.era.name;
    return this.#ask(
      "prompts/get",
      compactJson({ name, arguments: values }),
      options,
      (value) => decodePrompt(this.name, value, era),
    );
  }

  /**
   * Asks the server to complete one argument of a prompt or of a resource
   * template (`completion/complete`): at most `MAX_COMPLETION_VALUES`
   * values. `context.arguments` are the values of the other arguments,
   * already chosen. A server that declared no `completions` is refused
   * before anything is sent (`completions_not_declared`). Throws `TypeError`
   * on a reference or an argument of the wrong shape.
   */
  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: CompleteContext = {},
  ): Promise<Result<CompleteResult, ClientError | PromptError>> {
    const reference = referenceOf(ref);
    if (
      typeof argument?.name !== "string" || argument.name === "" ||
      typeof argument.value !== "string"
    ) {
      throw new TypeError(
        "Cannot complete an argument: it needs a non-empty string name and a string value",
      );
    }
    const params: JsonObject = {
      ref: reference,
      argument: { name: argument.name, value: argument.value },
    };
    if (context.arguments !== undefined) {
      params.context = {
        arguments: stringRecord(context.arguments, "Cannot complete an argument"),
      };
    }
    const refused = this.#undeclared("completions");
    if (refused !== undefined) return refused;
    const era = this.#generation.era.name;
    return this.#ask(
      "completion/complete",
      compactJson(params),
      context,
      (value) => decodeCompletion(this.name, value, era),
    );
  }

  /**
   * Lists every resource the server offers (`resources/list`, following
   * pages, at most `MAX_LIST_PAGES`); a server that declared no `resources`
   * is refused before anything is sent (`resources_not_declared`).
   */
  listResources(
    options: RequestOptions = {},
  ): Promise<Result<ResourceDescriptor[], ClientError | ResourceError>> {
    const refused = this.#noResources();
    return refused ?? this.#list(RESOURCES, options);
  }

  /**
   * Lists every resource template the server offers
   * (`resources/templates/list`): RFC 6570 URI templates, whose arguments
   * `complete` may fill; refused as `listResources` is.
   */
  listResourceTemplates(
    options: RequestOptions = {},
  ): Promise<Result<ResourceTemplateDescriptor[], ClientError | ResourceError>> {
    const refused = this.#noResources();
    return refused ?? this.#list(TEMPLATES, options);
  }

  /**
   * Hears a resource's updates (`notifications/resources/updated`), by its
   * URI, until `unsubscribe()`: `onUpdated` is given the URI the server says
   * changed (the one subscribed to, or a part of it, for a URI that ends in
   * `/`), and may read it again. Legacy sessions send `resources/subscribe`
   * and answer once the server did; 2026-07-28 sessions open a
   * `subscriptions/listen` for the URI, which `unsubscribe()` cancels (and
   * which answers with how the listen ended). A server that declared no
   * `resources.subscribe` is refused before anything is sent
   * (`subscriptions_not_declared`). Throws `TypeError` on a URI that is not a
   * non-empty string or a listener that is not a function.
   */
  async subscribeResource(
    uri: string,
    onUpdated: (uri: string) => void,
    options: RequestOptions = {},
  ): Promise<Result<ResourceSubscription, ClientError | ResourceError>> {
    if (typeof uri !== "string" || uri === "") {
      throw new TypeError(`Cannot subscribe to a resource: its uri ${String(uri)} is empty`);
    }
    if (typeof onUpdated !== "function") {
      throw new TypeError(
        `Cannot subscribe to ${JSON.stringify(uri)}: onUpdated is not a function`,
      );
    }
    const generation = this.#generation;
    const refused = await this.#noResources();
    if (refused !== undefined) return refused;
    if (generation.state === "ready" && !declaresSubscriptions(generation.info)) {
      return { ok: false, error: subscriptionsNotDeclared(this.name) };
    }
    const entry = { uri, onUpdated };
    const style = generation.era.subscription;
    if (style.kind === "requests") {
      const params = compactJson({ uri });
      const timeoutMs = this.#timeout(options.timeoutMs);
      const answered = await generation.request(style.subscribe, params, timeoutMs, options.signal);
      if (!answered.ok) return answered;
      this.#subscriptions.add(entry);
      let ended: Promise<Result<void, ClientError>> | undefined;
      return ok({
        uri,
        unsubscribe: () => {
          this.#subscriptions.delete(entry);
          ended ??= generation.request(
            style.unsubscribe,
            params,
            this.#timeout(undefined),
            undefined,
          )
            .then((outcome) => outcome.ok ? ok(undefined) : outcome);
          return ended;
        },
      });
    }
    // The listen lasts until it is cancelled or the server ends it.
    const stop = new AbortController();
    this.#subscriptions.add(entry);
    const listening = generation
      .request(style.method, compactJson(style.params(uri)), MAX_TIMEOUT_MS, stop.signal)
      .then((outcome): Result<void, ClientError> => {
        this.#subscriptions.delete(entry);
        const cancelled = !outcome.ok && outcome.error.kind === "call_timed_out" &&
          outcome.error.aborted === true;
        return outcome.ok || cancelled ? ok(undefined) : outcome;
      });
    return ok({
      uri,
      unsubscribe: () => {
        this.#subscriptions.delete(entry);
        stop.abort();
        return listening;
      },
    });
  }

  /**
   * Lists every skill the server serves (`skills/list`, following pages, at
   * most `MAX_LIST_PAGES`), for a server that declared the skills extension
   * (`io.modelcontextprotocol/skills`) and `resources`; any other is refused
   * before anything is sent (`skills_not_declared`). Each entry is a skill's
   * `SKILL.md` URI, its frontmatter and the manifest of its files; no file is
   * read. The listing is held for `readSkill`.
   */
  async listSkills(
    options: RequestOptions = {},
  ): Promise<Result<SkillEntry[], ClientError | SkillError>> {
    const generation = this.#generation;
    if (generation.state === "ready" && !declaresSkills(generation.info)) {
      return err(skillsNotDeclared(this.name));
    }
    const listed = await this.#list(SKILLS, options);
    if (listed.ok) this.#skills = { generation, entries: listed.value };
    return listed;
  }

  /**
   * Reads one skill, by its frontmatter name or its `SKILL.md` URI, from the
   * listing `listSkills` last held (listed now when there is none; a URI no
   * listing has is asked for with `skills/get`). Its files are read only now,
   * the `SKILL.md` first, each checked against the entry (size, then SHA-256
   * digest) and the `SKILL.md`'s frontmatter against the entry's; the first
   * mismatch is `skill_mismatch` naming the file, and no file after it is
   * read. An entry past `MAX_SKILL_FILES`, `MAX_SKILL_FILE_BYTES` or
   * `MAX_SKILL_BYTES` is refused before any read (`skill_too_large`). One
   * deadline for the whole read. Throws `TypeError` on a name that is not a
   * non-empty string.
   */
  async readSkill(
    name: string,
    options: RequestOptions = {},
  ): Promise<
    Result<
      SkillEntry & {
        /** The `SKILL.md` after its frontmatter: the skill's instructions. */
        body: string;
        /** Every file, the `SKILL.md` first; its text, or its bytes in base64 (`blob`). */
        files: { uri: string; mimeType?: string; size: number; text?: string; blob?: string }[];
        /** `false` for a `"dynamic"` skill, of which only the `SKILL.md` is read. */
        verified: boolean;
      },
      ClientError | ResourceError | SkillError
    >
  > {
    if (typeof name !== "string" || name === "") {
      throw new TypeError(
        `Cannot read a skill: its name ${String(name)} is not a non-empty string`,
      );
    }
    const timeoutMs = this.#timeout(options.timeoutMs);
    const deadlineAt = performance.now() + timeoutMs;
    const left = () => ({
      timeoutMs: Math.max(0, deadlineAt - performance.now()),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const generation = this.#generation;
    if (generation.state === "ready" && !declaresSkills(generation.info)) {
      return err(skillsNotDeclared(this.name));
    }
    let entries = this.#skills?.generation === generation ? this.#skills.entries : undefined;
    if (entries === undefined) {
      const listed = await this.listSkills(left());
      if (!listed.ok) return listed;
      entries = listed.value;
    }
    let found: Result<SkillEntry, ClientError | SkillError> = findSkill(this.name, entries, name);
    if (!found.ok && found.error.kind === "skill_not_found" && name.includes("://")) {
      // A skill a listing need not show is still served by its URI.
      const era = generation.era;
      found = await generation.request(
        "skills/get",
        compactJson({ uri: name }),
        left().timeoutMs,
        options.signal,
        (value): Result<SkillEntry, ClientError> => {
          const type = era.checkResult("skills/get", value);
          const decoded = type.ok ? decodeSkillResult(value) : type;
          if (decoded.ok && decoded.value.uri === name) return decoded;
          return err({
            kind: "result_malformed",
            method: "skills/get",
            message: `Server "${this.name}" sent a malformed skills/get result for ${
              JSON.stringify(name)
            }: ${
              decoded.ok ? `it names another skill, ${decoded.value.uri}` : decoded.error.message
            }`,
          });
        },
      );
    }
    if (!found.ok) return found;
    const skill = found.value;
    const bounded = checkSkillBounds(this.name, skill);
    if (!bounded.ok) return bounded;
    const listed = skill.resources === "dynamic" ? [] : skill.resources;
    const read = async (
      uri: string,
    ): Promise<Result<SkillFile, ClientError | ResourceError | SkillError>> => {
      const answered = await this.readResource(uri, left());
      if (!answered.ok) return answered;
      const entry = listed.find((file) => file.uri === uri);
      return checkSkillFile(this.name, uri, entry, answered.value.contents);
    };
    const manifest = await read(skill.uri);
    if (!manifest.ok) return manifest;
    const front = await checkFrontmatter(this.name, skill, manifest.value);
    if (!front.ok) return front;
    const files = [manifest.value];
    for (const file of listed) {
      if (file.uri === skill.uri) continue;
      const got = await read(file.uri);
      if (!got.ok) return got;
      files.push(got.value);
    }
    return ok({ ...skill, body: front.value, files, verified: skill.resources !== "dynamic" });
  }

  #undeclared(capability: PromptCapability): Promise<Result<never, PromptError>> | undefined {
    const generation = this.#generation;
    if (generation.state !== "ready" || isJsonObject(generation.info?.capabilities[capability])) {
      return undefined;
    }
    return Promise.resolve({ ok: false, error: notDeclared(this.name, capability) });
  }

  #noResources(): Promise<Result<never, ResourceError>> | undefined {
    const generation = this.#generation;
    if (generation.state !== "ready" || declaresResources(generation.info)) return undefined;
    return Promise.resolve({ ok: false, error: resourcesNotDeclared(this.name) });
  }

  #list<T>(kind: ListKind<T>, options: RequestOptions): Promise<Result<T[], ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    const generation = this.#generation;
    const page = (params: string, ms: number) =>
      generation.request(kind.method, params, ms, options.signal);
    return listAll(this.name, kind, page, { timeoutMs, era: generation.era });
  }

  #ask<T>(
    method: "prompts/get" | "completion/complete",
    params: string,
    options: RequestOptions,
    decode: Decode<T>,
  ): Promise<Result<T, ClientError>> {
    const timeoutMs = this.#timeout(options.timeoutMs);
    return this.#generation.request(method, params, timeoutMs, options.signal, decode);
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
    // A sign-in request in flight (a dripping metadata answer, say) must not outlive retirement.
    const signedOff = this.#signIn?.close(timeoutMs);
    return this.#generation.retire(timeoutMs).then(async (outcome) => {
      await signedOff;
      return outcome;
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

/** Runs a caller's listener: one that throws changes nothing of the client. */
function tell(listener: () => void): void {
  try {
    listener();
  } catch {
    // The listener's failure is its own.
  }
}

/** A record of strings, copied; a value that is not a string is the caller's mistake. */
function stringRecord(record: Readonly<Record<string, string>>, what: string): JsonObject {
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new TypeError(`${what}: its arguments are not a record of strings`);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value !== "string") {
      throw new TypeError(`${what}: argument ${JSON.stringify(key)} is not a string`);
    }
    out[key] = value;
  }
  return out;
}

/** A completion reference, copied; one of another shape is the caller's mistake. */
function referenceOf(ref: CompletionReference): JsonObject {
  if (ref?.type === "ref/prompt" && typeof ref.name === "string" && ref.name !== "") {
    return { type: "ref/prompt", name: ref.name };
  }
  if (ref?.type === "ref/resource" && typeof ref.uri === "string" && ref.uri !== "") {
    return { type: "ref/resource", uri: ref.uri };
  }
  throw new TypeError(
    'Cannot complete an argument: its reference is not { type: "ref/prompt", name } or ' +
      '{ type: "ref/resource", uri }',
  );
}
