/**
 * What a run is admitted with: its options checked into limits, the modules
 * checked into segments, the imports a program may have (the gate over the
 * checker's scan), and the diagnostics a run is rejected with. Private to
 * the runner; all pure but `nonce`.
 *
 * @module
 */

import { closestNames } from "../../codegen/names.ts";
import type { ImportScan } from "../checker/protocol.ts";
import { VIRTUAL_ROOT } from "../checker/protocol.ts";
import { excerpt } from "../checker/_excerpt.ts";
import type { CheckOutcome, ScanOutcome } from "./checker.ts";
import { explainDiagnostics } from "./_explain.ts";
import {
  type CallContext,
  CAP_SPECIFIER,
  type Diagnostic,
  type HarnessRunOptions,
  MAX_PROGRAM_BYTES,
  type RunModule,
  type RunOptions,
  type RunReport,
} from "./run.ts";
import {
  DEFAULT_MAX_CALLS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_RUN_MEMORY_MB,
  DEFAULT_RUN_TIMEOUT_MS,
  MIN_RUN_MEMORY_MB,
} from "./limits.ts";
import { TOOLS_SPECIFIER } from "./discovery.ts";
import { moduleSegment } from "../../codegen/names.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../../settings/check.ts";

const MODULE_PATH = /^\.\/mcp\/([^/]+)\.ts$/;
// Any specifier that ends like a server's module: `../mcp/echo.ts`, `./mcp/echo`, `mcp/echo.js`.
const MODULE_LIKE = /(?:^|\/)mcp\/([^/?#]+?)(?:\.[jt]s)?$/;

/** A positive integer option, or its default; anything else is caller misuse. */
export function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`Cannot run the program: "${name}" is ${value}, not a positive integer`);
  }
  return value;
}

/** A deadline option, or its default; one that breaks the timeout rule is caller misuse. */
export function deadline(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!isTimeoutMs(value)) {
    throw new RangeError(`Cannot run the program: "${name}" is ${value}, not ${TIMEOUT_RULE}`);
  }
  return value;
}

/** The heap cap option, or its default; below the least is caller misuse. */
export function memoryCap(value: number | undefined): number {
  const memoryMb = positiveInteger("memoryMb", value, DEFAULT_RUN_MEMORY_MB);
  if (memoryMb < MIN_RUN_MEMORY_MB) {
    throw new RangeError(
      `Cannot run the program: "memoryMb" is ${memoryMb}, less than ${MIN_RUN_MEMORY_MB}`,
    );
  }
  return memoryMb;
}

/** A run's limits from its options, none hit yet; a bad option is caller misuse. */
export function runLimits(options: HarnessRunOptions): RunReport["limits"] {
  return {
    timeoutMs: deadline("timeoutMs", options.timeoutMs, DEFAULT_RUN_TIMEOUT_MS),
    memoryMb: memoryCap(options.memoryMb),
    maxCalls: positiveInteger("maxCalls", options.maxCalls, DEFAULT_MAX_CALLS),
    maxOutputBytes: positiveInteger(
      "maxOutputBytes",
      options.maxOutputBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
    ),
    hit: [],
  };
}

/** The `programName` option: a file name, or undefined for the default. */
export function programFileName(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || /\p{Cc}/u.test(value)) {
    throw new TypeError("Cannot run the program: programName is not a printable file name");
  }
  return value;
}

/** The segments of the modules a scanned program imports, each once, in import order. */
export function segmentsOf(scan: ImportScan, modules: ReadonlyMap<string, RunModule>): string[] {
  const segments = new Set<string>();
  for (const { specifier } of scan.imports) {
    const segment = MODULE_PATH.exec(specifier)?.[1];
    if (segment !== undefined && modules.has(segment)) segments.add(segment);
  }
  return [...segments];
}

/** The segment of the module an alias resolves to (`mcp/<segment>.ts`). */
export function aliasSegment([, path]: readonly [string, string]): string {
  return path.replace(/^mcp\//, "").replace(/\.ts$/, "");
}

function exportsOf(module: RunModule): string[] {
  if (module.manifest !== undefined) return [...module.manifest.keys()];
  return [...module.source.matchAll(/^export function ([A-Za-z_][A-Za-z0-9_]*)\(/gm)].map((m) =>
    m[1] as string
  );
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** A fresh per-execution nonce: 32 hex digits. */
export function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function report(outcome: RunReport["outcome"], limits: RunReport["limits"]): RunReport {
  return { outcome, logs: [], calls: [], limits };
}

/** The report of a run aborted before it ran. */
export function aborted(limits: RunReport["limits"]): RunReport {
  const message = "The run was aborted by its caller";
  return report({ kind: "killed", reason: "aborted", message }, limits);
}

/** The report of a run that reached its deadline before its program started. */
export function pastDeadline(limits: RunReport["limits"], stage: string): RunReport {
  limits.hit.push("timeout");
  const message = `The run reached its deadline of ${limits.timeoutMs} ms while ${stage}`;
  return report({ kind: "killed", reason: "timeout", message }, limits);
}

// A stack frame's place in the program's own file: `at program.ts:3:7`, `(program.ts:3:7)`.
const PROGRAM_FRAME = /^(\s+at (?:.*[\s(])?)program\.ts:(?=\d)/gm;

/**
 * The report with its diagnostics, or its stack's frames, naming the program
 * `name` instead of `program.ts` (the file a program came from, as its
 * author knows it). A thrown message is the program's own text, left as it is.
 */
export function named(report: RunReport, name: string | undefined): RunReport {
  if (name === undefined) return report;
  if (report.outcome.kind === "threw") {
    const stack = report.outcome.stack.replace(PROGRAM_FRAME, (_, before) => `${before}${name}:`);
    return { ...report, outcome: { ...report.outcome, stack } };
  }
  if (report.outcome.kind !== "rejected") return report;
  const rename = <T extends { file: string }>(place: T): T =>
    place.file === "program.ts" ? { ...place, file: name } : place;
  const diagnostics = report.outcome.diagnostics.map((diagnostic) => {
    const out = rename(diagnostic);
    return out.related === undefined ? out : { ...out, related: out.related.map(rename) };
  });
  return { ...report, outcome: { kind: "rejected", diagnostics } };
}

/** The report of a run rejected before it ran. */
export function rejected(diagnostics: Diagnostic[], limits: RunReport["limits"]): RunReport {
  return report({ kind: "rejected", diagnostics }, limits);
}

/** The one diagnostic of a scan or check that gave no verdict. */
export function checkerProblem(
  what: string,
  outcome: CheckOutcome | ScanOutcome,
  timeoutMs: number,
): Diagnostic {
  const why = outcome.kind === "timed_out"
    ? `it ran past ${timeoutMs} ms`
    : outcome.kind === "too_large"
    ? "it took more memory than the checker allows"
    : outcome.kind === "unavailable"
    ? outcome.message
    : outcome.kind;
  return { file: "program.ts", line: 1, column: 1, message: `Cannot ${what}: ${why}` };
}

/**
 * Each module by its segment; throws `TypeError` for an unusable segment or
 * two modules sharing one.
 */
export function bySegment(modules: ReadonlyMap<string, RunModule>): Map<string, RunModule> {
  const out = new Map<string, RunModule>();
  for (const [server, module] of modules) {
    // The segment names a file of the build root and an import specifier.
    const segment = moduleSegment(module.segment);
    if (!segment.ok) {
      throw new TypeError(
        `Cannot run the program: server "${server}" has the unusable segment ` +
          `${JSON.stringify(module.segment)}: ${segment.error.reason}`,
      );
    }
    if (out.has(module.segment)) {
      throw new TypeError(
        `Cannot run the program: two servers share the segment "${module.segment}"`,
      );
    }
    out.set(module.segment, module);
  }
  return out;
}

/** The rejection of a source past {@linkcode MAX_PROGRAM_BYTES}, if it is. */
export function oversize(source: string): Diagnostic | undefined {
  // A UTF-8 text holds at least as many bytes as UTF-16 code units.
  if (source.length <= MAX_PROGRAM_BYTES && utf8Bytes(source) <= MAX_PROGRAM_BYTES) {
    return undefined;
  }
  return {
    file: "program.ts",
    line: 1,
    column: 1,
    message: `Cannot run the program: its source is larger than ${MAX_PROGRAM_BYTES} bytes ` +
      `(at least ${source.length}); write a shorter program`,
  };
}

/** What the import gate found: its diagnostics, and the modules misspelled imports surely meant. */
export type Gate = {
  diagnostics: Diagnostic[];
  /** A specifier that names no module, and the build-root path of the one it surely meant. */
  aliases: [string, string][];
};

/** The server module a specifier that is not one surely meant, if exactly one is close. */
function meant(specifier: string, modules: ReadonlyMap<string, RunModule>): string | undefined {
  const name = MODULE_LIKE.exec(specifier)?.[1];
  if (name === undefined) return undefined;
  if (modules.has(name)) return name;
  const close = closestNames(name, modules.keys());
  return close.length === 1 ? close[0] : undefined;
}

const NONE_ABSENT: ReadonlyMap<string, string> = new Map();

/**
 * The scan's problems, then every import that is not one of `modules` or the
 * cap, each with the line of `source` it is on; one of a server in `absent`
 * (which failed at boot) says why it has no module, and a specifier close to
 * exactly one module says which, and becomes an alias the check reads as
 * that module.
 */
export function gateImports(
  scan: ImportScan,
  modules: ReadonlyMap<string, RunModule>,
  source: string,
  absent: ReadonlyMap<string, string> = NONE_ABSENT,
): Gate {
  let lines: string[] | undefined;
  const at = (line: number, column: number, length: number) => {
    // Split once, and only for a program the gate refuses.
    lines ??= source.split("\n");
    const text = lines[line - 1]?.replace(/\r$/, "");
    return text === undefined ? {} : { excerpt: excerpt(text, column, length) };
  };
  const diagnostics: Diagnostic[] = scan.problems.map((problem) => ({
    file: "program.ts",
    ...problem,
    ...at(problem.line, problem.column, 1),
  }));
  const aliases: [string, string][] = [];
  for (const { specifier, line, column } of scan.imports) {
    if (specifier === CAP_SPECIFIER || specifier === TOOLS_SPECIFIER) continue;
    const segment = MODULE_PATH.exec(specifier)?.[1];
    if (segment !== undefined && modules.has(segment)) continue;
    const known = [...modules.keys()].map((name) => `"./mcp/${name}.ts"`).join(", ");
    const why = segment === undefined ? undefined : absent.get(segment);
    if (why !== undefined) {
      diagnostics.push({
        file: "program.ts",
        line,
        column,
        message: `Cannot import "${specifier}": ${why}, so this harness has no module of it ` +
          `(available: ${known || "none"})`,
        ...at(line, column, specifier.length + 2),
      });
      continue;
    }
    const close = meant(specifier, modules);
    if (close !== undefined) aliases.push([specifier, `mcp/${close}.ts`]);
    let message = segment !== undefined
      ? `Cannot import "${specifier}": no server of this harness has that module ` +
        `(available: ${known || "none"})`
      : `Cannot import "${specifier}": a program may import only its servers' modules ` +
        `(${known || "none"}), "${CAP_SPECIFIER}" and "${TOOLS_SPECIFIER}"`;
    if (close !== undefined) {
      message +=
        `; did you mean "./mcp/${close}.ts"? The rest of the check reads it as that module`;
    }
    diagnostics.push({
      file: "program.ts",
      line,
      column,
      message,
      ...at(line, column, specifier.length + 2),
    });
  }
  return { diagnostics, aliases };
}

/**
 * The gate's diagnostics, then the checker's, less those the gate already
 * made at the same place (the compiler's "Cannot find module" of an import
 * the gate refused).
 */
export function merged(gate: readonly Diagnostic[], checked: readonly Diagnostic[]): Diagnostic[] {
  const places = new Set(gate.map((each) => `${each.file}:${each.line}:${each.column}`));
  return [
    ...gate,
    ...checked.filter((each) => !places.has(`${each.file}:${each.line}:${each.column}`)),
  ];
}

/**
 * Diagnostics for the model: a missing export named with the closest ones of
 * its module, also of a module imported by a misspelled path (an alias).
 */
export function explain(
  diagnostics: Diagnostic[],
  modules: ReadonlyMap<string, RunModule>,
  aliases: readonly (readonly [string, string])[] = [],
): Diagnostic[] {
  const exports = new Map([...modules].map(([segment, module]) => [segment, exportsOf(module)]));
  for (const [specifier, path] of aliases) {
    const named = MODULE_PATH.exec(specifier)?.[1];
    const module = modules.get(path.replace(/^mcp\//, "").replace(/\.ts$/, ""));
    if (named !== undefined && module !== undefined) exports.set(named, exportsOf(module));
  }
  // The checker's virtual root; its paths already come relative.
  return explainDiagnostics(diagnostics, { exports, hostRoots: [VIRTUAL_ROOT] });
}

// What one run is held to, settled from its options before it starts.
export type RunSettings = {
  limits: RunReport["limits"];
  checkTimeoutMs: number;
  typeCheck: boolean;
  signal: AbortSignal;
  deno: string;
  tempDir: string | undefined;
  /** The modules the run is checked against and runs with, whatever replaces them meanwhile. */
  modules: ReadonlyMap<string, RunModule>;
  /** The servers without a module, by the segment theirs would have, with why. */
  absent: ReadonlyMap<string, string>;
  /** What each of its calls tells the harness's call: the run, and its approval hook. */
  context: Omit<CallContext, "signal" | "resource" | "onProgress">;
  /** Hears what each call reports while it runs, with its call id. */
  onProgress: RunOptions["onProgress"];
};

/** The source of each of `modules` that `segments` names, by segment. */
export function sources(
  segments: Iterable<string>,
  modules: ReadonlyMap<string, RunModule>,
): Map<string, string> {
  const found = new Map<string, string>();
  for (const segment of segments) {
    const module = modules.get(segment);
    if (module !== undefined) found.set(segment, module.source);
  }
  return found;
}

/** What a run's check refuses it as (aborted, rejected, or the checker's problem), or none. */
export function checkRefusal(
  checked: CheckOutcome,
  run: RunSettings,
): RunReport | undefined {
  const { limits } = run;
  if (checked.kind === "passed") return undefined;
  if (checked.kind === "aborted") return aborted(limits);
  if (checked.kind === "failed") return rejected(explain(checked.diagnostics, run.modules), limits);
  return rejected([checkerProblem("type-check the program", checked, run.checkTimeoutMs)], limits);
}
