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

export * from "./host/diagnostics.ts";
export * from "./host/discovery.ts";
export * from "./host/run.ts";
export * from "./host/runner.ts";
export * from "./host/slots.ts";
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
} from "./host/checker.ts";
export type { ImportProblem, ImportScan, NamedImport } from "./checker/protocol.ts";
// Named by `ReadFunction`, `CallFunction` and `Discovery`, so this entry documents them.
export type { Result } from "../codec/result.ts";
export type { ResourceContents } from "../codec/protocol.ts";
