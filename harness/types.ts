/**
 * What a harness is and says: the {@linkcode Harness} that `boot` returns,
 * its options, how each server's boot ended, and why a call was refused.
 *
 * @module
 */

import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import type { Result } from "../codec/result.ts";
import type { Generated, GenerateError } from "../codegen/generate.ts";
import type { Census, CensusOptions, RetirementReport } from "../client/census.ts";
import type { ClientError, ServerInfo, StartError } from "../client/errors.ts";
import type { CallOptions } from "../client/client.ts";
import type { ReadResourceResult, ResourceError } from "../client/resources.ts";
import type { RestartPlan, RestartRefusal } from "../client/supervisor.ts";
import type { HarnessRunOptions, RunReport } from "../runner/run.ts";
import type { RunnerStats } from "../runner/runner.ts";

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
  | { kind: "invalid_arguments"; server: string; tool: string; path: string; message: string };

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
    tools: readonly ToolDescriptor[];
    generated: Generated;
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
   * How many of this harness's runs hold a sandbox at once; more wait their
   * turn, within their own deadline. `DEFAULT_MAX_SANDBOXES` by default.
   */
  maxSandboxes?: number;
};

/** A booted set of servers: what the model reads, and where its calls go. */
export type Harness = {
  /** Every client, booted or failed; retire it with {@linkcode Harness.retire}. */
  readonly census: Census;
  /** What the model reads: how to write a program, then every ready server's block. */
  readonly surface: string;
  /** Each ready server's generated module, by server name, source held in memory. */
  readonly modules: ReadonlyMap<string, Generated>;
  /** How each server's boot ended, in catalog order. */
  readonly reports: ReadonlyMap<string, ServerReport>;
  /**
   * Calls one tool of one server, named by its wire name or by its function's
   * name in the generated module (`get-sum` or `get_sum`). Refuses, as a
   * {@linkcode CallDenial}, a server not in the catalog, a server that failed
   * at boot, a tool the server did not list (`unknown_tool`, with the closest
   * names), a tool that only task-augmented calls can reach
   * (`task_required`), and arguments JSON cannot carry (with the path).
   */
  call(
    server: string,
    tool: string,
    args: unknown,
    options?: CallOptions,
  ): Promise<Result<CallToolResult, CallDenial | ClientError>>;
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
   * Runs one model-written program against the ready servers' modules, with
   * the harness's resident checker and a sandbox started ahead.
   */
  run(source: string, options?: HarnessRunOptions): Promise<RunReport>;
  /** What the harness's code mode holds: its checker, its waiting sandbox, its runs. */
  runnerStats(): RunnerStats;
  /**
   * Retires code mode (runs in flight, the waiting sandbox, the checker),
   * then every server of the census, with evidence for each.
   */
  retire(options?: { timeoutMs?: number }): Promise<RetirementReport>;
};
