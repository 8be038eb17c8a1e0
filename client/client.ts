/**
 * The main thread's handle on one MCP server. The server's process and the
 * client state machine, the one a client has (`client/worker/machine.ts`), live in
 * a Web Worker; this handle routes: each method posts a request and awaits
 * its settlement, and decodes what the result means. Each feature's requests
 * are made by a private part of its own (`_tool_requests.ts`,
 * `_prompt_requests.ts`, `_resource_requests.ts`, `_skill_requests.ts`), and
 * what the server tells unasked is handed on by `_notices.ts`.
 *
 * Lifecycle ({@linkcode ClientState}): the handle's state is what the
 * worker's machine last reported (`client/thread/state.ts`), its death latched
 * there; `parked` (no worker, no process) until `connect`, which makes it
 * `connecting`. Only where no worker can be asked does the handle answer by
 * itself, with the same rules: a client never started, a worker that could
 * not be made, a worker lost. One start of the server is a generation
 * (`_generation.ts`: its worker, its tickets, the custody of its process);
 * a client whose spec asks for `restart` is started again when it dies,
 * only on the evidence that the dead one is gone (`_succession.ts`,
 * `supervisor.ts`), and the handle stays the same. Who closes what: the
 * worker retires the process, within the deadline it is given; the
 * generation terminates the worker only after the retirement is confirmed
 * (or the worker is lost), and declares a worker that does not answer in
 * time lost. Every call has a main-thread timer at its deadline
 * (`_tickets.ts`), so neither a hung server nor a hung worker can hold a
 * caller past it. The main thread's share in controlling the process (group
 * signals, the drain check, the exit guard) is `client/custody/custody.ts`,
 * asked by the worker on tickets of its own.
 *
 * @module
 */

import type { JsonObject } from "../codec/json.ts";
import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import { ok, type Result } from "../codec/result.ts";
import type { ClientError, StartError } from "./thread/outcomes.ts";
import type { RetirementError, RetirementEvidence } from "./thread/evidence.ts";
import type { ServerInfo } from "./thread/server_info.ts";
import type { ClientState } from "./thread/state.ts";
import { ByteTail } from "./transport/stdio/tail.ts";
import { callDeadlineMs, DEFAULT_RETIREMENT_TIMEOUT_MS, type ServerSpec } from "../settings/mod.ts";
import type { OAuthFailure, OAuthStatus } from "../oauth/mod.ts";
import type { ResourceDescriptor, ResourceTemplateDescriptor } from "../codec/resource_lists.ts";
import type { SkillEntry } from "../codec/skills.ts";
import { checkTimeout } from "./_checks.ts";
import { Notices } from "./_notices.ts";
import { type SignIn, signInOf } from "./_sign_in.ts";
import type { Decode } from "./_tickets.ts";
import type { Generation } from "./_generation.ts";
import { Succession } from "./_succession.ts";
import { checkLogOptions } from "./_logs.ts";
import { checkHandlers, servedBy, ServerAnswers } from "./_answers.ts";
import { ToolRequests } from "./_tool_requests.ts";
import { type PromptHost, PromptRequests } from "./_prompt_requests.ts";
import { ResourceRequests } from "./_resource_requests.ts";
import { SkillRequests } from "./_skill_requests.ts";
import type { ToolListing } from "./tool_listing.ts";
import type { ReadResourceResult, ResourceError, ResourceSubscription } from "./resources.ts";
import type { GenerationEvent, GenerationRecord } from "./supervisor.ts";
import type { WorkerPermissions } from "./permissions.ts";
import type {
  CompleteContext,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  PromptDescriptor,
  PromptError,
} from "./prompts.ts";
import type { SkillError } from "./skills.ts";
import type { CallOptions, ClientOptions, RequestOptions } from "./client_options.ts";

export type { WorkerPermissions } from "./permissions.ts";
export type { ToolListing } from "./tool_listing.ts";
export type { CallOptions, ClientOptions, RequestOptions } from "./client_options.ts";

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
  #succession: Succession;
  #signIn: SignIn | undefined;
  #notices: Notices;
  #tools: ToolRequests;
  #prompts: PromptRequests;
  #resources: ResourceRequests;
  #skills: SkillRequests;

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
    const optionalTasks = options.optionalTasks ?? false;
    this.#signIn = signInOf(spec, options);
    const logs = checkLogOptions(options, `Cannot create client ${JSON.stringify(spec.name)}`);
    checkHandlers(options, `Cannot create client "${spec.name}"`);
    const served = servedBy(options, spec.roots ?? options.roots);
    const answers = new ServerAnswers(this.name, options, spec.roots ?? options.roots);
    // What every request needs of the client: its generation now, a deadline, and the answers.
    const requests: PromptHost = {
      server: this.name,
      generation: () => this.#generation,
      timeout: (timeoutMs) => this.#timeout(timeoutMs),
      answers,
    };
    this.#tools = new ToolRequests({ ...requests, optionalTasks, served });
    this.#prompts = new PromptRequests(requests);
    this.#resources = new ResourceRequests({ ...requests, restarts: spec.restart !== undefined });
    this.#skills = new SkillRequests({
      ...requests,
      readResource: (uri, options) => this.readResource(uri, options),
    });
    this.#notices = new Notices({
      server: this.name,
      generation: () => this.#generation,
      onLog: logs.onLog,
      updated: (notice) => this.#resources.updated(notice),
      completed: (elicitationId) => answers.completed(elicitationId),
      renewed: () => (this.#generation.tellLevel(), this.#resources.renewed()),
    });
    this.#succession = new Succession({
      spec: this.spec,
      permissions: this.#permissions,
      retirementTimeoutMs: this.#retirementTimeoutMs,
      tail: this.#tail,
      ready: () => {
        this.#notices.ready();
        this.#resources.ready();
      },
      signIn: this.#signIn,
      toolsChanged: () => this.#notices.toolsChanged(),
      logLevel: spec.logLevel ?? logs.logLevel,
      notice: (notice) => this.#notices.noticed(notice),
      served,
      answers,
    });
    this.#succession.listen((event) => this.#resources.generationEvent(event));
  }

  /** The generation of the moment: the one every request asks. */
  get #generation(): Generation {
    return this.#succession.current;
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
    return this.#succession.records;
  }

  /**
   * Hears each death of a ready server, each restart and each failed one
   * (for a client whose spec asks for `restart`); returns how to stop.
   */
  listen(listener: (event: GenerationEvent) => void): () => void {
    return this.#succession.listen(listener);
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
    return this.#tools.listing(options);
  }

  /**
   * Calls `listener` whenever the server says its tools changed
   * (`notifications/tools/list_changed`); returns what stops it. A legacy
   * server tells it unasked; on a 2026-07-28 session that declared
   * `tools.listChanged`, the client keeps a `subscriptions/listen` open for
   * it while anyone watches.
   */
  watchTools(listener: () => void): () => void {
    return this.#notices.watch("tools", listener);
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
    return this.#notices.watch("prompts", listener);
  }

  /**
   * Calls `listener` whenever the server says its list of resources changed
   * (`notifications/resources/list_changed`); returns what stops it. A
   * legacy server tells it unasked; on a 2026-07-28 session that declared
   * `resources.listChanged`, the client keeps a `subscriptions/listen` open
   * for it while anyone watches.
   */
  watchResources(listener: () => void): () => void {
    return this.#notices.watch("resources", listener);
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
    return this.#tools.call(name, args, options);
  }

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
    return this.#resources.read(uri, options);
  }

  /**
   * Lists every prompt the server offers (`prompts/list`, following pages
   * under one deadline, at most `MAX_LIST_PAGES`); a server that declared no
   * `prompts` is refused before anything is sent (`prompts_not_declared`).
   */
  listPrompts(
    options: RequestOptions = {},
  ): Promise<Result<PromptDescriptor[], ClientError | PromptError>> {
    return this.#prompts.list(options);
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
    return this.#prompts.get(name, args, options);
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
    return this.#prompts.complete(ref, argument, context);
  }

  /**
   * Lists every resource the server offers (`resources/list`, following
   * pages, at most `MAX_LIST_PAGES`); a server that declared no `resources`
   * is refused before anything is sent (`resources_not_declared`).
   */
  listResources(
    options: RequestOptions = {},
  ): Promise<Result<ResourceDescriptor[], ClientError | ResourceError>> {
    return this.#resources.list(options);
  }

  /**
   * Lists every resource template the server offers
   * (`resources/templates/list`): RFC 6570 URI templates, whose arguments
   * `complete` may fill; refused as `listResources` is.
   */
  listResourceTemplates(
    options: RequestOptions = {},
  ): Promise<Result<ResourceTemplateDescriptor[], ClientError | ResourceError>> {
    return this.#resources.listTemplates(options);
  }

  /**
   * Hears a resource's updates (`notifications/resources/updated`), by its
   * URI, until `unsubscribe()`: `onUpdated` is given the URI the server says
   * changed (the one subscribed to, or a part of it, for a URI that ends in
   * `/`), and may read it again. Legacy sessions send `resources/subscribe`
   * and answer once the server did; 2026-07-28 sessions open a
   * `subscriptions/listen` for the URI and answer once the server
   * acknowledged it (each listen's updates are told to its own subscription
   * alone); an acknowledgment that leaves the URI out, or a listen ended
   * before it, is `subscription_refused`, and no acknowledgment within the
   * deadline `call_timed_out`, the listen cancelled either way.
   * `unsubscribe()` cancels the listen (and answers with how it ended). A
   * subscription outlives a restart of the server (it is made again on the
   * new one); its `ended` settles when it ends, saying why. A server that
   * declared no
   * `resources.subscribe` is refused before anything is sent
   * (`subscriptions_not_declared`). Throws `TypeError` on a URI that is not a
   * non-empty string or a listener that is not a function.
   */
  async subscribeResource(
    uri: string,
    onUpdated: (uri: string) => void,
    options: RequestOptions = {},
  ): Promise<Result<ResourceSubscription, ClientError | ResourceError>> {
    return await this.#resources.subscribe(uri, onUpdated, options);
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
    return await this.#skills.list(options);
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
    return await this.#skills.read(name, options);
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
    this.#succession.stop();
    this.#resources.retired();
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

  #timeout(value: number | undefined): number {
    return checkTimeout(callDeadlineMs(this.spec, value), "timeoutMs");
  }
}
