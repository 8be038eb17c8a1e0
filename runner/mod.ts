/**
 * Code mode: run model-written programs against the generated modules, in a
 * sandbox with no permission but reading its own build root, type-checked by
 * a resident checker. {@linkcode Runner} keeps the checker and the next
 * sandbox warm for a harness's life; {@linkcode runProgram} runs one program
 * on its own.
 *
 * @example Run a program against one server, one-shot
 * ```ts ignore
 * import { runProgram } from "@loom/mcp";
 * const report = await runProgram('export default 1 + 1;', { modules, call });
 * console.log(report.outcome); // { kind: "returned", value: 2 }
 * ```
 *
 * @module
 */

export * from "./diagnostics.ts";
export * from "./discovery.ts";
export * from "./run.ts";
export * from "./runner.ts";
export * from "./slots.ts";
export {
  CHECKER_START_TIMEOUT_MS,
  type CheckerRequestOptions,
  type CheckerStats,
  type CheckOptions,
  type CheckOutcome,
  MAX_CHECK_GROWTH_BYTES,
  MAX_CHECKER_HEAP_BYTES,
  ResidentChecker,
  type ScanOutcome,
} from "./checker.ts";
export type { ImportProblem, ImportScan, NamedImport } from "./compiler/protocol.ts";
