/**
 * The harness wiring in one call: prepare the census, connect every server in
 * parallel, list each one's tools, generate each module on the main thread,
 * and route calls (a program's, or the harness's own) to the right client.
 *
 * Lifecycle: {@linkcode boot} returns a {@linkcode Harness} that owns its
 * census. Every server of the catalog stays in the census until
 * {@linkcode Harness.retire}, those whose start, listing or generation failed
 * included: the harness that booted them is the one that retires them. It
 * also watches its ready servers' listings (`_live.ts`) until it retires:
 * its retirement stops that first.
 *
 * What a model may reach is governed here: the lists of each spec
 * (`enabledTools`, `disabledTools`), the pins of each tool's definition
 * (`pins`, `onToolsChanged`), the approval hook (`approve`), and the
 * schemas every call's values are checked against.
 *
 * @module
 */

import { Census } from "../client/census.ts";
import type { ServerSpec } from "../settings/mod.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../settings/check.ts";
import { ResidentChecker } from "../runner/host/checker.ts";
import * as guard from "../client/custody/exit_guard.ts";
import { Runner } from "../runner/host/runner.ts";
import { SandboxSlots } from "../runner/host/slots.ts";
import type { SearchOptions } from "../runner/host/discovery.ts";
import { ApprovalGate } from "./_approval.ts";
import { MIN_SURFACE_BUDGET_BYTES } from "./limits.ts";
import { routeCalls } from "./_call.ts";
import { LiveListings } from "./_live.ts";
import { readForProgram, readTimeout, routeReads } from "./_resources.ts";
import { routeAsks } from "./_prompts.ts";
import { keepBootListing, watchGenerations } from "./_restart.ts";
import { AskRouter } from "./_asking.ts";
import { featuresForProgram } from "./_features.ts";
import type { BootOptions, Harness } from "./types.ts";
import { inSpan } from "../telemetry/spans.ts";
import { MAX_TRACE_NAME_CHARS, traceText } from "../telemetry/mcp.ts";
import { callFailure, outcomeFailure } from "./_span_failures.ts";
import { withToolContent } from "../telemetry/mcp.ts";

export type * from "./types.ts";

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
 * const catalog = await openCatalog("loom.toml", { mode: "strict" });
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * const harness = await boot(catalog.value.servers);
 * console.log(harness.surface);
 * const result = await harness.call("memory", "read_graph", {});
 * console.log(result.ok);
 * await harness.retire();
 * ```
 *
 * @example Ask before every call that is not marked read-only, and keep the pins
 * ```ts ignore
 * import { boot } from "@loom/mcp";
 * const kept = await Deno.readTextFile("pins.json").catch(() => undefined);
 * const harness = await boot(specs, {
 *   pins: kept,
 *   approve: ({ server, tool, annotations }) =>
 *     annotations.readOnlyHint === true || confirm(`Call ${server}.${tool}?`),
 *   onToolsChanged: ({ server, changed }) => {
 *     console.error(`${server} changed ${changed.map((tool) => tool.name).join(", ")}`);
 *     return false;
 *   },
 * });
 * await Deno.writeTextFile("pins.json", JSON.stringify(harness.pins()));
 * ```
 */
export function boot(
  specs: readonly ServerSpec[],
  options: BootOptions = {},
): Promise<Harness> {
  return inSpan("harness.boot", { "loom.servers": specs.length }, () => booted(specs, options));
}

async function booted(specs: readonly ServerSpec[], options: BootOptions): Promise<Harness> {
  checkBootOptions(options);
  // What a server asks during a run's call may be the run's to answer: the
  // census is given the router's handlers in place of boot's own.
  const asking = new AskRouter(options, (server, tool) => live.markAsking(server, tool));
  const census = Census.prepare(specs, { ...options, ...asking.handlers() });
  // Throws TypeError for pins that do not read, before anything starts.
  const live = new LiveListings(census, options);
  // Code mode's checker, started now when asked: it loads while the servers start.
  // Its process is in the exit guard's custody like a server's, so a harness
  // that dies mid-check leaves no compiler running.
  const checker = new ResidentChecker({
    custody: { started: guard.track, exited: guard.untrack },
  });
  if (options.prepareRunner) checker.start();
  try {
    return await wire(census, checker, live, asking, options);
  } catch (error) {
    // Whatever threw (a progress callback, a step), nothing it started is left running.
    live.stop();
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
  for (const key of ["prepareRunner", "traceToolContent"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") {
      throw new TypeError(`Cannot boot: ${key} is not a boolean`);
    }
  }
  for (const key of ["approve", "onToolsChanged", "onElicit", "onSample"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new TypeError(`Cannot boot: ${key} is not a function`);
    }
  }
  // Throws RangeError for a limit that is not a positive integer.
  if (options.maxSandboxes !== undefined) new SandboxSlots(options.maxSandboxes);
  const warm = options.warmSandboxes;
  if (warm !== undefined && (!Number.isSafeInteger(warm) || warm < 1)) {
    throw new RangeError(`Cannot boot: warmSandboxes ${String(warm)} is not a positive integer`);
  }
  const budget = options.surfaceBudgetBytes;
  if (
    budget !== undefined &&
    (!Number.isSafeInteger(budget) || budget < MIN_SURFACE_BUDGET_BYTES)
  ) {
    throw new RangeError(
      `Cannot boot: surfaceBudgetBytes ${String(budget)} is not an integer of at least ` +
        `${MIN_SURFACE_BUDGET_BYTES}`,
    );
  }
}

async function wire(
  census: Census,
  checker: ResidentChecker,
  live: LiveListings,
  asking: AskRouter,
  options: BootOptions,
): Promise<Harness> {
  await live.boot();
  // A program's calls and reads wait in the same queue for the same hook.
  const gate = new ApprovalGate();
  const routed = routeCalls({
    census,
    reports: live.reports,
    exposures: live.exposures,
    gate,
    approve: options.approve,
    // Without a handler at boot nothing may ask: the calls need no following.
    ...(asking.active ? { asking } : {}),
  });
  // Tool content reaches a span only when the harness asked for it.
  const call: typeof routed = options.traceToolContent === true
    ? (...args) => withToolContent(() => routed(...args))
    : routed;
  const readResource = routeReads(census, live.reports);
  const reads = {
    gate,
    reports: live.reports,
    approve: options.approve,
    timeoutMs: readTimeout(census),
  };
  const asks = routeAsks(census, live.reports);
  // A restarted server whose listing changed is listed again as a change
  // said by the server would be: the pins decide on it.
  const unwatch = watchGenerations(census, live.reports, options, (server, pinned, fresh) => {
    const adoption = keepBootListing(server, pinned, fresh);
    if (adoption === "changed") live.restarted(server);
    return adoption;
  });

  // The surface, the search and describe read the listings as they are now,
  // a program's requests included: the index is made anew at each change.
  const discovery = {
    search: (query: string, searchOptions?: SearchOptions) =>
      live.index.search(query, searchOptions),
    describe: (server: string, tool: string) => live.index.describe(server, tool),
  };

  const runner = new Runner({
    modules: live.modules,
    absent: () => live.absent(),
    // A run that ends cancels its calls and reads still in flight: the signal
    // reaches the client; the run and its own approval hook reach the approval.
    call: (server, tool, args, context = {}) => {
      const { signal, onProgress } = context;
      return call(server, tool, args, {
        ...(signal === undefined ? {} : { signal }),
        ...(onProgress === undefined ? {} : { onProgress }),
      }, context);
    },
    // A read or a prompt's get is followed as a call is: what its server asks meanwhile is the run's.
    read: (server, uri, context) =>
      asking.follow(
        server,
        context,
        () => readForProgram(readResource, reads, server, uri, context),
      ),
    features: featuresForProgram(
      asks,
      reads,
      (server, context, send) => asking.follow(server, context, send),
    ),
    ...(options.maxSandboxes === undefined ? {} : { maxSandboxes: options.maxSandboxes }),
    ...(options.warmSandboxes === undefined ? {} : { warmSandboxes: options.warmSandboxes }),
    ...(options.sandboxTempDir === undefined ? {} : { tempDir: options.sandboxTempDir }),
    checker,
    discovery,
  });
  live.modulesChanged = (modules) => runner.replaceModules(modules);
  if (options.prepareRunner) runner.prepare();

  return {
    census,
    get surface() {
      return live.surface;
    },
    modules: live.modules,
    reports: live.reports,
    call: (server, tool, args, callOptions = {}) =>
      inSpan(
        "harness.call",
        {
          "loom.server": traceText(String(server), MAX_TRACE_NAME_CHARS),
          "gen_ai.tool.name": traceText(String(tool), MAX_TRACE_NAME_CHARS),
        },
        () => call(server, tool, args, callOptions, undefined),
        callFailure,
      ),
    ...asks,
    // The harness's own read and get are in flight as its calls are: a legacy
    // question meanwhile may be theirs, so it is not taken for a run's.
    readResource: (server, uri, readOptions) =>
      asking.follow(server, undefined, () => readResource(server, uri, readOptions)),
    getPrompt: (server, name, args, getOptions) =>
      asking.follow(server, undefined, () => asks.getPrompt(server, name, args, getOptions)),
    search: discovery.search,
    describe: discovery.describe,
    run: async (source, runOptions = {}) => {
      for (const key of ["approve", "onElicit", "onSample"] as const) {
        if (runOptions[key] !== undefined && typeof runOptions[key] !== "function") {
          throw new TypeError(`Cannot run the program: ${key} is not a function`);
        }
      }
      // The marks of tools seen to ask appear once no run is under way.
      live.runStarted();
      try {
        return await inSpan(
          "harness.run",
          {},
          () => runner.run(source, runOptions),
          (report) => outcomeFailure(report.outcome),
        );
      } finally {
        live.runEnded();
      }
    },
    prepareRunner: () => runner.prepare(),
    runnerStats: () => runner.stats(),
    pins: () => live.pins(),
    acceptTools: (server, tools) => live.acceptTools(server, tools),
    retire: (retireOptions) =>
      inSpan(
        "harness.retire",
        {},
        async () => {
          live.stop();
          unwatch();
          await runner.retire();
          return await census.retire(retireOptions);
        },
        (retired) =>
          retired.confirmed
            ? undefined
            : { type: "retirement_unconfirmed", message: "a server's exit was not confirmed" },
      ),
  };
}
