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
import { bootOne } from "./_boot_one.ts";
import { routeCalls } from "./_call.ts";
import { readAsCall, routeReads } from "./_resources.ts";
import { watchGenerations } from "./_restart.ts";
import { renderSurface } from "./_surface.ts";
import type { BootOptions, Harness, ServerReport } from "./types.ts";

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
  const surface = renderSurface(modules);

  const call = routeCalls(census, reports);
  const readResource = routeReads(census, reports);
  const unwatch = watchGenerations(census, reports, options);

  const runner = new Runner({
    modules,
    // A run that ends cancels its calls still in flight: the signal reaches
    // the client; a read of a resource goes to its server as one.
    call: (server, tool, args, callOptions = {}) => {
      const { signal, onProgress, resource } = callOptions;
      if (resource === true) return readAsCall(readResource, server, args, signal);
      return call(server, tool, args, {
        ...(signal === undefined ? {} : { signal }),
        ...(onProgress === undefined ? {} : { onProgress }),
      });
    },
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
    readResource,
    run: (source, runOptions = {}) => runner.run(source, runOptions),
    runnerStats: () => runner.stats(),
    retire: async (retireOptions) => {
      unwatch();
      await runner.retire();
      return await census.retire(retireOptions);
    },
  };
}
