/**
 * The harness wiring in one call: prepare the census, connect every server in
 * parallel, list each one's tools, generate each module on the main thread,
 * and route calls (a program's, or the harness's own) to the right client.
 *
 * Lifecycle: {@linkcode boot} returns a {@linkcode Harness} that owns its
 * census. Every server of the catalog stays in the census until
 * {@linkcode Harness.retire}, those whose start, listing or generation failed
 * included: the harness that booted them is the one that retires them.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { CallToolResult, ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { toJson } from "../codec/interchange.ts";
import { quote } from "../codec/quote.ts";
import { bootSteps } from "./_boot_steps.ts";
import type { Generated, GenerateError } from "../codegen/generate.ts";
import { closestNames } from "../codegen/names.ts";
import { Census, type CensusOptions, type RetirementReport } from "../client/census.ts";
import type { ClientError, ServerInfo, StartError } from "../client/errors.ts";
import type { CallOptions } from "../client/client.ts";
import type { ServerSpec } from "../spec/mod.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../spec/check.ts";
import { type HarnessRunOptions, PROGRAM_CONVENTION, type RunReport } from "../runner/run.ts";
import { ResidentChecker } from "../runner/checker.ts";
import * as guard from "../custody/exit_guard.ts";
import { Runner, type RunnerStats } from "../runner/runner.ts";
import { SandboxSlots } from "../runner/slots.ts";

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
   * Gives up on the servers still starting (or listing) when aborted: each is
   * retired at once, within {@linkcode BOOT_ABORT_RETIREMENT_MS}, and its boot
   * settles as failed; `boot` then returns as usual, and the harness retires
   * what is left. A server already booted is left running.
   */
  signal?: AbortSignal;
};

/**
 * The deadline of the retirement of a server whose start a boot's signal
 * gave up on, in milliseconds: a server still starting has no work to save,
 * so it is stopped promptly (stdin closed, SIGTERM at 40%, SIGKILL at 80%).
 */
export const BOOT_ABORT_RETIREMENT_MS = 1_500;

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

/**
 * Boots every server of a catalog: publishes them all in a census before any
 * spawns, connects them in parallel, lists and generates each, and returns
 * the harness. Never throws for a server's failure: a server that failed to
 * start, list or generate is reported, left out of the surface, and kept in
 * the census for retirement.
 *
 * @example Boot, call, retire
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 * const catalog = await openCatalog("loom.toml", { strict: true });
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * const harness = await boot(catalog.value.servers);
 * console.log(harness.surface);
 * const result = await harness.call("memory", "read_graph", {});
 * console.log(result.ok);
 * await harness.retire();
 * ```
 */
export async function boot(
  specs: readonly ServerSpec[],
  options: BootOptions = {},
): Promise<Harness> {
  checkBootOptions(options);
  const census = Census.prepare(specs, options);
  // Code mode's checker, started now when asked: it loads while the servers start.
  // Its process is in the exit guard's custody like a server's, so a harness
  // that dies mid-check leaves no compiler running.
  const checker = new ResidentChecker({
    custody: { started: guard.track, exited: guard.untrack },
  });
  if (options.prepareRunner) checker.start();
  try {
    return await wire(census, checker, specs, options);
  } catch (error) {
    // Whatever threw (a progress callback, a step), nothing it started is left running.
    await checker.retire();
    await census.retire();
    throw error;
  }
}

function checkBootOptions(options: BootOptions): void {
  const { listTimeoutMs, capSpecifier, onServer } = options;
  if (listTimeoutMs !== undefined && !isTimeoutMs(listTimeoutMs)) {
    throw new RangeError(
      `Cannot boot: listTimeoutMs ${String(listTimeoutMs)} is not ${TIMEOUT_RULE}`,
    );
  }
  if (capSpecifier !== undefined && (typeof capSpecifier !== "string" || capSpecifier === "")) {
    throw new TypeError("Cannot boot: capSpecifier is not a non-empty string");
  }
  if (onServer !== undefined && typeof onServer !== "function") {
    throw new TypeError("Cannot boot: onServer is not a function");
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError("Cannot boot: signal is not an AbortSignal");
  }
  if (options.prepareRunner !== undefined && typeof options.prepareRunner !== "boolean") {
    throw new TypeError("Cannot boot: prepareRunner is not a boolean");
  }
  // Throws RangeError for a limit that is not a positive integer.
  if (options.maxSandboxes !== undefined) new SandboxSlots(options.maxSandboxes);
}

async function wire(
  census: Census,
  checker: ResidentChecker,
  specs: readonly ServerSpec[],
  options: BootOptions,
): Promise<Harness> {
  const started = performance.now();
  const reports = new Map<string, ServerReport>();
  // An abort retires every server whose boot has not ended: its start (or
  // listing) settles as failed, and the boot below ends with it.
  const booting = new Set(specs.map((spec) => spec.name));
  const giveUp = () => {
    for (const name of booting) {
      void census.clients.get(name)?.shutdown({ timeoutMs: BOOT_ABORT_RETIREMENT_MS });
    }
  };
  options.signal?.addEventListener("abort", giveUp, { once: true });
  if (options.signal?.aborted) giveUp();
  // Every server's boot runs to its end before a throw leaves, so that the
  // retirement that follows finds no start still under way.
  const settled = await Promise.allSettled(specs.map(async (spec) => {
    const report = await bootOne(census, spec.name, started, options);
    booting.delete(spec.name);
    options.onServer?.(report);
    return report;
  })).finally(() => options.signal?.removeEventListener("abort", giveUp));
  const outcomes: ServerReport[] = [];
  for (const outcome of settled) {
    if (outcome.status === "rejected") throw outcome.reason;
    outcomes.push(outcome.value);
  }
  const modules = new Map<string, Generated>();
  for (const report of outcomes) {
    reports.set(report.name, report);
    if (report.state === "ready") modules.set(report.name, report.generated);
  }
  const surface = renderSurface(modules);

  async function call(
    server: string,
    tool: string,
    args: unknown,
    callOptions: CallOptions = {},
  ): Promise<Result<CallToolResult, CallDenial | ClientError>> {
    const report = reports.get(server);
    if (report === undefined) {
      return err({
        kind: "unknown_server",
        server,
        message: `Cannot call ${quote(server)}: no such server in the catalog; known servers: ` +
          (reports.size === 0 ? "none" : [...reports.keys()].join(", ")),
      });
    }
    if (report.state === "failed") {
      return err({
        kind: "server_failed",
        server,
        cause: report.failure,
        message: `Cannot call server ${quote(server)}: it failed at boot (${report.message})`,
      });
    }
    const named = resolveTool(report.generated, server, String(tool));
    if (!named.ok) return named;
    const wire = named.value;
    const json = toJson(args);
    if (!json.ok) {
      return err({
        kind: "invalid_arguments",
        server,
        tool: wire,
        path: json.error.path,
        message: `Cannot call tool ${quote(wire)} of ${quote(server)}: ${json.error.message}`,
      });
    }
    if (!isJsonObject(json.value)) {
      return err({
        kind: "invalid_arguments",
        server,
        tool: wire,
        path: "$",
        message: `Cannot call tool ${quote(wire)} of ${quote(server)}: the arguments must be an ` +
          `object, not ${kindOf(json.value)}`,
      });
    }
    const client = census.clients.get(server);
    if (client === undefined) {
      // The census is built from the same specs; this cannot be reached.
      throw new TypeError(`Server ${quote(server)} is missing from the census`);
    }
    return await client.callTool(wire, json.value as JsonObject, callOptions);
  }

  const runner = new Runner({
    modules,
    // A run that ends cancels its calls still in flight: the signal reaches the client.
    call: (server, tool, args, callOptions) =>
      call(server, tool, args, callOptions?.signal ? { signal: callOptions.signal } : {}),
    ...(options.maxSandboxes === undefined ? {} : { maxSandboxes: options.maxSandboxes }),
    checker,
  });
  if (options.prepareRunner) runner.prepare();

  return {
    census,
    surface,
    modules,
    reports,
    call,
    run: (source, runOptions = {}) => runner.run(source, runOptions),
    runnerStats: () => runner.stats(),
    retire: async (retireOptions) => {
      await runner.retire();
      return await census.retire(retireOptions);
    },
  };
}

// A tool is named by its wire name or its function's identifier; the two
// never disagree, since generate() refuses a listing where they could.
function resolveTool(
  generated: Generated,
  server: string,
  tool: string,
): Result<string, CallDenial> {
  if (generated.omitted.has(tool)) {
    return err({
      kind: "task_required",
      server,
      tool,
      message: `Cannot call tool ${quote(tool)} of ${quote(server)}: it requires ` +
        "task-augmented calls, which this client does not make",
    });
  }
  const wires = new Set(generated.manifest.values());
  if (wires.has(tool)) return ok(tool);
  const wire = generated.manifest.get(tool);
  if (wire !== undefined) return ok(wire);
  const close = closestNames(tool, [...generated.manifest.keys()]);
  return err({
    kind: "unknown_tool",
    server,
    tool,
    suggestions: close,
    message: `Cannot call tool ${quote(tool)}: server ${quote(server)} did not list it` +
      (close.length === 0 ? "" : `; did you mean ${close.join(", ")}?`),
  });
}

async function bootOne(
  census: Census,
  name: string,
  started: number,
  options: BootOptions,
): Promise<ServerReport> {
  const client = census.clients.get(name);
  if (client === undefined) throw new TypeError(`Server ${quote(name)} is missing from the census`);
  const failed = (failure: BootFailure, stderrTail: string): ServerReport => ({
    state: "failed",
    name,
    failure,
    message: failure.error.message,
    stderrTail,
    elapsedMs: performance.now() - started,
  });
  const connected = await bootSteps.connect(client);
  if (!connected.ok) {
    return failed({ stage: "start", error: connected.error }, connected.error.stderrTail);
  }
  const listed = await bootSteps.list(
    client,
    options.listTimeoutMs === undefined ? {} : { timeoutMs: options.listTimeoutMs },
  );
  if (!listed.ok) {
    const tail = "stderrTail" in listed.error ? listed.error.stderrTail : "";
    return failed({ stage: "list", error: listed.error }, tail);
  }
  const generated = bootSteps.generate(
    name,
    listed.value,
    options.capSpecifier === undefined ? {} : { capSpecifier: options.capSpecifier },
  );
  if (!generated.ok) return failed({ stage: "generate", error: generated.error }, "");
  return {
    state: "ready",
    name,
    info: connected.value,
    tools: listed.value,
    generated: generated.value,
    elapsedMs: performance.now() - started,
  };
}

function renderSurface(modules: ReadonlyMap<string, Generated>): string {
  const blocks = [...modules.values()].map((generated) => generated.surface.trimEnd());
  const header = PROGRAM_CONVENTION.trimEnd();
  return blocks.length === 0
    ? `${header}\n\n// No MCP server is available.\n`
    : `${header}\n\n${blocks.join("\n\n")}\n`;
}

function kindOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
