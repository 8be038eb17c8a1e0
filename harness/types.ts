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
import type { HarnessRunOptions, RunReport } from "../runner/run.ts";
import type { RunnerStats } from "../runner/runner.ts";
import type { SearchOptions, ToolMatch } from "../runner/discovery.ts";

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

/** Why `describe` has no block for a tool: the server or the tool is not one it can describe. */
export type DescribeDenial = Extract<
  CallDenial,
  { kind: "unknown_server" | "server_failed" | "unknown_tool" | "task_required" }
>;

/** What failed when a server was booted. */
export type BootFailure =
  | { stage: "start"; error: StartError }
  | { stage: "list"; error: ClientError }
  | { stage: "generate"; error: GenerateError };

/** How one server's boot ended. */
export type ServerReport =
  | {
    state: "ready";
    name: string;
    info: ServerInfo;
    tools: readonly ToolDescriptor[];
    generated: Generated;
    /** Milliseconds from the start of boot until the module was generated. */
    elapsedMs: number;
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
  };

/** Options of {@linkcode boot}. */
export type BootOptions = CensusOptions & {
  /** Deadline of the `tools/list` walk of each server, in milliseconds. */
  listTimeoutMs?: number;
  /** The specifier generated modules import; default `@loom/mcp/cap`. */
  capSpecifier?: string;
  /**
   * Called as each server's boot ends, in the order they end (for progress
   * output). When it throws, boot still finishes, retires every server, and
   * then rethrows the first such error.
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
  /**
   * The most sandboxes kept started ahead, waiting for programs;
   * `DEFAULT_WARM_SANDBOXES` by default. One waits while programs come one
   * at a time (a model thinking between them); programs back to back or at
   * once raise how many wait, up to this, and a minute without programs
   * lowers it to one again. Each waiting sandbox holds about 50 MB.
   */
  warmSandboxes?: number;
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
   * discover their tools.
   */
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
   * Runs one model-written program against the ready servers' modules, with
   * the harness's resident checker and a sandbox started ahead.
   */
  run(source: string, options?: HarnessRunOptions): Promise<RunReport>;
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
   * {@linkcode DescribeDenial}, a server not in the catalog or failed at boot
   * and a tool it did not list (with the closest names).
   */
  describe(server: string, tool: string): Result<string, DescribeDenial>;
  /** What the harness's code mode holds: its checker, its waiting sandbox, its runs. */
  runnerStats(): RunnerStats;
  /**
   * Retires code mode (runs in flight, the waiting sandbox, the checker),
   * then every server of the census, with evidence for each.
   */
  retire(options?: { timeoutMs?: number }): Promise<RetirementReport>;
};
