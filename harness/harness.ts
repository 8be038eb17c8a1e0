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

import type { Generated } from "../codegen/generate.ts";
import { Census } from "../client/census.ts";
import type { ServerSpec } from "../spec/mod.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../spec/check.ts";
import { ResidentChecker } from "../runner/checker.ts";
import * as guard from "../custody/exit_guard.ts";
import { Runner } from "../runner/runner.ts";
import { SandboxSlots } from "../runner/slots.ts";
import type { SearchOptions } from "../runner/discovery.ts";
import { bootOne } from "./_boot_one.ts";
import { routeCalls } from "./_call.ts";
import { ToolIndex } from "./_discovery.ts";
import { DEFAULT_SURFACE_BUDGET_BYTES, MIN_SURFACE_BUDGET_BYTES } from "./budget.ts";
import type { BootOptions, Harness, ServerReport } from "./types.ts";

export type * from "./types.ts";
export * from "./budget.ts";

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
  if (options.prepareRunner !== undefined && typeof options.prepareRunner !== "boolean") {
    throw new TypeError("Cannot boot: prepareRunner is not a boolean");
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
  specs: readonly ServerSpec[],
  options: BootOptions,
): Promise<Harness> {
  const started = performance.now();
  const reports = new Map<string, ServerReport>();
  // Every server's boot runs to its end before a throw leaves, so that the
  // retirement that follows finds no start still under way.
  const settled = await Promise.allSettled(specs.map(async (spec) => {
    const report = await bootOne(census, spec.name, started, options);
    options.onServer?.(report);
    return report;
  }));
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
  // The surface, the search and describe, all made from the reports. When a
  // server's listing changes, its report is replaced and the index is built
  // anew from the same map (`index = new ToolIndex(reports, budget)`): every
  // reader below, a program's requests included, reads through `index`.
  const budget = options.surfaceBudgetBytes ?? DEFAULT_SURFACE_BUDGET_BYTES;
  // deno-lint-ignore prefer-const
  let index = new ToolIndex(reports, budget);
  const discovery = {
    search: (query: string, searchOptions?: SearchOptions) => index.search(query, searchOptions),
    describe: (server: string, tool: string) => index.describe(server, tool),
  };

  const call = routeCalls(census, reports);

  const runner = new Runner({
    modules,
    // A run that ends cancels its calls still in flight: the signal reaches the client.
    call: (server, tool, args, callOptions) =>
      call(server, tool, args, callOptions?.signal ? { signal: callOptions.signal } : {}),
    ...(options.maxSandboxes === undefined ? {} : { maxSandboxes: options.maxSandboxes }),
    ...(options.warmSandboxes === undefined ? {} : { warmSandboxes: options.warmSandboxes }),
    checker,
    discovery,
  });
  if (options.prepareRunner) runner.prepare();

  return {
    census,
    get surface() {
      return index.surface;
    },
    modules,
    reports,
    call,
    search: discovery.search,
    describe: discovery.describe,
    run: (source, runOptions = {}) => runner.run(source, runOptions),
    runnerStats: () => runner.stats(),
    retire: async (retireOptions) => {
      await runner.retire();
      return await census.retire(retireOptions);
    },
  };
}
