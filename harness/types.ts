/**
 * What a harness is and says: the {@linkcode Harness} that `boot` returns,
 * its options, how each server's boot ended, why a call was refused, and
 * what governs the tools a model may reach (the lists, the approval hook,
 * the pins).
 *
 * @module
 */

import type { ToolDescriptor } from "../codec/protocol.ts";
import type { Result } from "../codec/result.ts";
import type { Generated, GenerateError } from "../codegen/generate.ts";
import type { Census, CensusOptions, RetirementReport } from "../client/census.ts";
import type { ClientError, ServerInfo, StartError } from "../client/errors.ts";
import type { CallOptions } from "../client/client.ts";
import type {
  ReadResourceResult,
  ResourceError,
  ResourceSubscription,
} from "../client/resources.ts";
import type { Client, RequestOptions } from "../client/client.ts";
import type { SkillEntry, SkillError } from "../client/skills.ts";
import type {
  CompleteContext,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  PromptDescriptor,
  PromptError,
} from "../client/prompts.ts";
import type { ResourceDescriptor, ResourceTemplateDescriptor } from "../codec/resource_lists.ts";
import type { RestartPlan, RestartRefusal } from "../client/supervisor.ts";
import type { ServerRequestHandlers } from "../client/handlers.ts";
import type { Approve, CallResult, HarnessRunOptions, RunReport } from "../runner/host/run.ts";
import type { RunnerStats } from "../runner/host/runner.ts";
import type { SearchOptions, ToolMatch } from "../runner/host/discovery.ts";

/** Why a call was refused before it reached a server. */
export type CallDenial =
  | { kind: "unknown_server"; server: string; message: string }
  | {
    kind: "server_failed";
    server: string;
    /** What failed at boot: the start, the listing or the generation. */
    cause: BootFailure;
    message: string;
  }
  | {
    kind: "unknown_tool";
    server: string;
    tool: string;
    /** The server's function names closest to `tool`, best first; maybe none. */
    suggestions: string[];
    message: string;
  }
  | {
    kind: "task_required";
    server: string;
    /** The wire name of the tool. */
    tool: string;
    message: string;
  }
  | {
    kind: "invalid_arguments";
    server: string;
    tool: string;
    /** Where the arguments are wrong, as `$.a[3].b`. */
    path: string;
    /**
     * The rule broken: a JSON Schema keyword of the input schema (`type`,
     * `required`, `minimum`, ...), or `json` for a value JSON cannot carry.
     */
    rule: string;
    message: string;
  }
  | {
    /** The spec's `enabledTools` or `disabledTools` leave the tool out. */
    kind: "tool_disabled";
    server: string;
    tool: string;
    message: string;
  }
  | {
    /**
     * The tool's definition is not the one pinned (or it was added and not
     * accepted): it is withheld until accepted.
     */
    kind: "tool_changed";
    server: string;
    tool: string;
    message: string;
  }
  | {
    /** The approval hook denied the call (or threw, or outlived the call's deadline). */
    kind: "denied";
    server: string;
    tool: string;
    /** Why, as the hook said or as the harness found. */
    reason: string;
    message: string;
  };

/** Why a listed tool is not exposed: the lists leave it out, or its definition is not trusted. */
export type WithheldReason =
  /** The spec's `enabledTools` or `disabledTools` leave it out (refused as `tool_disabled`). */
  | "disabled"
  /** Its definition differs from the one pinned (refused as `tool_changed`). */
  | "changed"
  /** It is new since the pins were taken and was not accepted (refused as `tool_changed`). */
  | "added";

/** Something a person should know of a server's boot, which did not stop it. */
export type BootWarning = {
  /** A name in `enabledTools` or `disabledTools` matches no tool the server lists. */
  kind: "unlisted_tool";
  list: "enabledTools" | "disabledTools";
  /** The name as the list gives it. */
  tool: string;
  message: string;
};

/**
 * What a listing changed against the pins: tools new since, tools the
 * server no longer lists, and tools whose definition differs.
 */
export type ToolsChange = {
  server: string;
  /** `boot`: the listing differs from the pins given to `boot`; else what made the server be listed again. */
  cause: "boot" | "list_changed" | "ttl_expired";
  added: readonly ToolDescriptor[];
  /** The wire names of the tools no longer listed. */
  removed: readonly string[];
  /** The new definitions of the tools that changed. */
  changed: readonly ToolDescriptor[];
};

/**
 * What `onToolsChanged` decides: `true` accepts every change, `false` none,
 * `{ accept }` the tools it names (by wire name); `undefined` (or a handler
 * that throws) leaves the default: added and removed tools are accepted,
 * changed ones are withheld.
 */
export type ToolsDecision = undefined | boolean | { accept: readonly string[] };

/**
 * The pinned definitions of every server, as JSON data a harness can keep
 * (`harness.pins()`) and give back to `boot(specs, { pins })`: for each tool
 * the digest of its definition, and whether the server stopped listing it.
 */
export type PinSet = {
  version: 1;
  servers: { [server: string]: { [tool: string]: { digest: string; removed?: true } } };
};

/** Why `describe` has no block for a tool: the server or the tool is not one it can describe. */
export type DescribeDenial = Extract<
  CallDenial,
  {
    kind:
      | "unknown_server"
      | "server_failed"
      | "unknown_tool"
      | "task_required"
      | "tool_disabled"
      | "tool_changed";
  }
>;

/** What failed when a server was booted. */
export type BootFailure =
  | { stage: "start"; error: StartError }
  | { stage: "list"; error: ClientError }
  | { stage: "generate"; error: GenerateError }
  /**
   * A ready server died; `next` says what follows: a restart (the client's
   * spec asks for one, and its end is in evidence) or why none.
   */
  | { stage: "run"; error: ClientError; next: RestartPlan | RestartRefusal };

/** How one server's boot ended. */
export type ServerReport =
  | {
    state: "ready";
    name: string;
    info: ServerInfo;
    /** Every tool the server lists, exposed or not. */
    tools: readonly ToolDescriptor[];
    /** The module and surface of the tools exposed. */
    generated: Generated;
    /** The listed tools left out of the module and the surface, by wire name, with why. */
    withheld: ReadonlyMap<string, WithheldReason>;
    /** What a person should know of this server's boot (a name in a list it does not list). */
    warnings: readonly BootWarning[];
    /**
     * Milliseconds from the start of boot until the module was generated
     * (for a restart, from the death until the server was ready again).
     */
    elapsedMs: number;
    /** Which start of the server this is: absent for the boot's own, 2 and on for restarts. */
    generation?: number;
    /**
     * For a restart, how its listing compared with the one the module was
     * made from: `unchanged` (the module and surface stay) or `changed`
     * (they stay too until the harness adopts the new listing).
     */
    listing?: "unchanged" | "changed";
  }
  | {
    state: "failed";
    name: string;
    failure: BootFailure;
    /** The failure in one line a person can act on, with the stderr tail's last line if any. */
    message: string;
    /** The tail of the server's stderr, when the failure carried one. */
    stderrTail: string;
    elapsedMs: number;
    /** Which start of the server failed or died: absent for the boot's own start. */
    generation?: number;
  };

/** An entry of a listing the harness gathered, with the server it came from. */
export type ServerEntry<T> = T & { server: string };

/** Options of {@linkcode boot}. */
export type BootOptions = CensusOptions & {
  /** Deadline of the `tools/list` walk of each server, in milliseconds. */
  listTimeoutMs?: number;
  /** The specifier generated modules import; default `@loom/mcp/cap`. */
  capSpecifier?: string;
  /**
   * Called as each server's boot ends, in the order they end (for progress
   * output), and later at each death of a ready server (`failed`, stage
   * `run`) and each restart (`ready`, or `failed` at stage `start`, with its
   * `generation`). When it throws during boot, boot still finishes, retires
   * every server, and then rethrows the first such error; later, a throw is
   * ignored.
   */
  onServer?: (report: ServerReport) => void;
  /**
   * Start code mode's resident checker while the servers start, and the
   * first sandbox once their modules exist, instead of at the first
   * {@linkcode Harness.run} (default `false`: a harness that never runs a
   * program starts neither).
   */
  prepareRunner?: boolean;
  /**
   * Record each tool call's arguments and result on its `tools/call` span
   * (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, as JSON text)
   * when spans are exported (`OTEL_DENO=true`). Off by default: arguments
   * and results may hold secrets, and a trace backend is read by more people
   * than the harness's own log.
   */
  traceToolContent?: boolean;
  /**
   * How many of this harness's runs hold a sandbox at once; more wait their
   * turn, within their own deadline. `DEFAULT_MAX_SANDBOXES` by default.
   */
  maxSandboxes?: number;
  /**
   * Gives up on the servers still starting (or listing) when aborted: each is
   * retired at once, within `BOOT_ABORT_RETIREMENT_MS`, and its boot settles
   * as failed; `boot` then returns as usual, and the harness retires what is
   * left. A server already booted is left running.
   */
  signal?: AbortSignal;
  /**
   * Asked about every call that would otherwise be sent, a program's and
   * `harness.call`'s, and every read of a resource a program makes
   * (`request.resource`), one at a time in the order they were made (a
   * run's own `approve` replaces it for that run's). A denial is the call's
   * `denied` refusal.
   */
  approve?: Approve;
  /**
   * Decides on what a listing changed against the pins (at boot, when pins
   * were given, and at every re-listing); awaited before the listing is
   * adopted. Without it, added and removed tools are accepted and changed
   * ones withheld until accepted.
   */
  onToolsChanged?: (change: ToolsChange) => ToolsDecision | Promise<ToolsDecision>;
  /**
   * The pins a harness kept (`harness.pins()`, as given or as its JSON
   * text): a server's tools are judged against them rather than trusted on
   * first sight. Throws `TypeError` for pins that do not read.
   */
  pins?: PinSet | string;
  /**
   * The most sandboxes kept started ahead, waiting for programs;
   * `DEFAULT_WARM_SANDBOXES` by default. One waits while programs come one
   * at a time (a model thinking between them); programs back to back or at
   * once raise how many wait, up to this, and a minute without programs
   * lowers it to one again. Each waiting sandbox holds about 50 MB.
   */
  warmSandboxes?: number;
  /**
   * The folder each sandbox's temporary build root is made in (a `loom-run-`
   * directory per sandbox, removed with it); the system's temporary folder
   * by default.
   */
  sandboxTempDir?: string;
  /**
   * How many bytes the surface may take, from `MIN_SURFACE_BUDGET_BYTES`
   * up; `DEFAULT_SURFACE_BUDGET_BYTES` (16 KiB) by default. When every ready
   * server's block fits, the surface holds them all; otherwise it is an
   * index that fits: one line per server, as many tool names as room allows,
   * and how to find the rest with {@linkcode Harness.search} (in a program,
   * `search` and `describe` of `./tools.ts`). The same listings give the
   * same bytes.
   */
  surfaceBudgetBytes?: number;
};

/** A booted set of servers: what the model reads, and where its calls go. */
export type Harness = {
  /** Every client, booted or failed; retire it with {@linkcode Harness.retire}. */
  readonly census: Census;
  /**
   * What the model reads: how to write a program, then every ready server's
   * block, or, past the surface budget, an index of the servers and how to
   * discover their tools; kept true as servers' listings change (read it
   * again each turn).
   */
  readonly surface: string;
  /**
   * Each ready server's generated module of the tools it exposes, by server
   * name, source held in memory; replaced when its listing changes.
   */
  readonly modules: ReadonlyMap<string, Generated>;
  /** How each server's boot ended, in catalog order (a ready one's listing kept current). */
  readonly reports: ReadonlyMap<string, ServerReport>;
  /**
   * Calls one tool of one server, named by its wire name or by its function's
   * name in the generated module (`get-sum` or `get_sum`). Refuses, as a
   * {@linkcode CallDenial}, a server not in the catalog, a server that failed
   * at boot, a tool the server did not list (`unknown_tool`, with the closest
   * names), a tool that only task-augmented calls can reach
   * (`task_required`), a tool the lists leave out (`tool_disabled`) or whose
   * definition is not trusted (`tool_changed`), arguments JSON cannot carry
   * or that break the tool's input schema (`invalid_arguments`, with the
   * path and the rule), and a call the approval hook denies (`denied`).
   */
  call(
    server: string,
    tool: string,
    args: unknown,
    options?: CallOptions,
  ): Promise<Result<CallResult, CallDenial | ClientError>>;
  /**
   * Reads one resource of one server by its URI (`resources/read`), such as
   * the `uri` of a `resource_link` a tool returned; refused for a server not
   * in the catalog, one that failed at boot, and one that declared no
   * resources. A URI the server did not offer is still sent.
   */
  readResource(
    server: string,
    uri: string,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<Result<ReadResourceResult, CallDenial | ClientError | ResourceError>>;
  /**
   * Lists the prompts of one server, or, with none named, of every ready
   * server that declared `prompts`, in catalog order; each prompt says its
   * server. The first server's failure fails the listing. `options` go with
   * each server's request: an abort gives the listing up.
   */
  listPrompts(
    server?: string,
    options?: RequestOptions,
  ): Promise<Result<ServerEntry<PromptDescriptor>[], CallDenial | ClientError | PromptError>>;
  /** Gets one prompt of one server with its arguments filled (`Client.getPrompt`). */
  getPrompt(
    server: string,
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: RequestOptions,
  ): Promise<Result<GetPromptResult, CallDenial | ClientError | PromptError>>;
  /** Completes one argument of a prompt or a resource template of one server (`Client.complete`). */
  complete(
    server: string,
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: CompleteContext,
  ): Promise<Result<CompleteResult, CallDenial | ClientError | PromptError>>;
  /** Lists the resources of one server, or of every ready server that declared `resources`. */
  listResources(
    server?: string,
    options?: RequestOptions,
  ): Promise<Result<ServerEntry<ResourceDescriptor>[], CallDenial | ClientError | ResourceError>>;
  /** Lists the resource templates of one server, or of every ready server that declared `resources`. */
  listResourceTemplates(
    server?: string,
  ): Promise<
    Result<ServerEntry<ResourceTemplateDescriptor>[], CallDenial | ClientError | ResourceError>
  >;
  /**
   * Lists the skills of one server, or, with none named, of every ready
   * server that declared the skills extension, in catalog order; each entry
   * says its server (`Client.listSkills`). No file is read.
   */
  listSkills(
    server?: string,
  ): Promise<Result<ServerEntry<SkillEntry>[], CallDenial | ClientError | SkillError>>;
  /** Reads one skill of one server, every file checked against its entry (`Client.readSkill`). */
  readSkill(
    server: string,
    name: string,
    options?: RequestOptions,
  ): Promise<
    Result<
      Extract<Awaited<ReturnType<Client["readSkill"]>>, { ok: true }>["value"],
      CallDenial | ClientError | ResourceError | SkillError
    >
  >;
  /** Hears the updates of one resource of one server until unsubscribed (`Client.subscribeResource`). */
  subscribeResource(
    server: string,
    uri: string,
    onUpdated: (uri: string) => void,
    options?: RequestOptions,
  ): Promise<Result<ResourceSubscription, CallDenial | ClientError | ResourceError>>;
  /**
   * Runs one model-written program against the ready servers' modules, with
   * the harness's resident checker and a sandbox started ahead.
   *
   * A run's own `onElicit` and `onSample` replace boot's for what a server
   * asks during this run's calls (its reads and gets of prompts too): a
   * 2026-07-28 `input_required` round and a `-32042` error are always known
   * to be a call's (or a read's, or a get's); a legacy server's
   * `elicitation/create` or `sampling/createMessage` is the run's when only
   * that run's calls are in flight on the server (and that call's when it is
   * the only one). Anything else is answered by boot's handler. The program's
   * call waits for the answer within the call's deadline and the run's; the
   * approvals and limits stand; when the run ends first, the question is
   * settled (an elicitation as `cancel`, a sampling request refused) and a
   * late answer dropped. The call's record in the report counts what it
   * asked (`asked`), and the tool is marked on the surface as one that may
   * ask the user.
   *
   * What a server may ask is decided at its start: the `elicitation` and
   * `sampling` capabilities are declared (at `initialize`, and in a
   * 2026-07-28 request's envelope) only for the handlers given to `boot`.
   * With none there, a server is never told it may ask: a legacy one does not
   * send the request (and may hide the tools that need it), one that sends it
   * anyway is refused, and a run's handler is not asked. To leave the answers
   * to runs, give `boot` a handler that declines (`async () => ({ action:
   * "decline" })`).
   */
  run(
    source: string,
    options?:
      & Omit<HarnessRunOptions, "onElicit" | "onSample">
      & Pick<ServerRequestHandlers, "onElicit" | "onSample">,
  ): Promise<RunReport>;
  /**
   * The tools across every ready server that best match what `query` asks
   * for, best first, at most `options.limit` (`DEFAULT_SEARCH_LIMIT`); each
   * with its surface line. Ranked by MiniSearch over the tools' names,
   * titles, descriptions and parameter names. Throws `TypeError` for a query
   * that is not a string and `RangeError` for one past
   * `MAX_SEARCH_QUERY_CHARS` or a limit that is not an integer from 1 to
   * `MAX_SEARCH_LIMIT`. Starts nothing.
   */
  search(query: string, options?: SearchOptions): ToolMatch[];
  /**
   * One tool's whole block, named by its wire name or its function's name:
   * how to import it, the type aliases it names, its function with every
   * type and the full description, as its module declares it. Refuses, as a
   * {@linkcode DescribeDenial}, a server not in the catalog or failed at boot,
   * a tool it did not list (with the closest names), and a tool its lists or
   * pins withhold (`tool_disabled`, `tool_changed`).
   */
  describe(server: string, tool: string): Result<string, DescribeDenial>;
  /**
   * Starts code mode now, as boot's `prepareRunner` does: the resident
   * checker, which then parses every server's module, and the first
   * sandbox, so that the next {@linkcode Harness.run} finds both ready. For
   * a harness that boots without them (they hold memory a harness that
   * never runs a program would not spend) and learns a program is coming,
   * as `serveHarness` does at its host's first `search_tools` or
   * `describe_tool`. Once only: a later call, or one after
   * {@linkcode Harness.retire}, does nothing; a run started first does not
   * stop it from checking every module ahead.
   */
  prepareRunner(): void;
  /** What the harness's code mode holds: its checker, its waiting sandbox, its runs. */
  runnerStats(): RunnerStats;
  /** The pinned definitions of every server, as JSON data to keep and give back to `boot`. */
  pins(): PinSet;
  /**
   * Accepts withheld definitions of a server now (changed or added tools;
   * every one when `tools` is absent): they are pinned, and the module and
   * the surface regenerated. Resolves to the wire names accepted.
   */
  acceptTools(server: string, tools?: readonly string[]): Promise<string[]>;
  /**
   * Retires code mode (runs in flight, the waiting sandbox, the checker),
   * then every server of the census, with evidence for each.
   */
  retire(options?: { timeoutMs?: number }): Promise<RetirementReport>;
};
