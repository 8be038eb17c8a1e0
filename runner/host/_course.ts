/**
 * The course of each run a `Runner` takes, from its source to its
 * report: the imports found by the resident checker's scan, the gate over
 * them (a refused program still type-checked, for one answer with every
 * problem), the check beside the wait for a sandbox slot, and the admitted
 * program run in a sandbox, waiting or started for it. Private to the runner.
 *
 * Lifecycle: a run holds its slot from its grant until it returns, and owns
 * the sandbox it takes or starts: whatever becomes of the run, the sandbox is
 * disposed and the pool told the run left before {@linkcode RunCourse.run}
 * returns. The checker, the slots and the pool are the runner's, and closed
 * by its `retire`.
 *
 * @module
 */

import type { ResidentChecker } from "./checker.ts";
import {
  aborted,
  aliasSegment,
  checkerProblem,
  checkRefusal,
  explain,
  type Gate,
  gateImports,
  merged,
  nonce,
  pastDeadline,
  rejected,
  type RunSettings,
  segmentsOf,
  sources,
} from "./_admission.ts";
import type { ImportScan } from "../checker/protocol.ts";
import type { SandboxSlots } from "./slots.ts";
import { runInSandbox } from "./_sandbox_run.ts";
import { phase } from "../../telemetry/spans.ts";
import { type Sandbox, startSandbox } from "./_sandbox.ts";
import type { SandboxPool } from "./_pool.ts";
import type { Discovery } from "./discovery.ts";
import { CAP_SPECIFIER, type RunModule, type RunOptions, type RunReport } from "./run.ts";
import { withinBudget } from "./_budget.ts";
import { CAP_SOURCE, TOOLS_SOURCE } from "../../_generated/sandbox_sources.ts";

/** What a run's course uses of its runner. */
export type CourseParts = {
  /** The runner's resident checker. */
  checker: ResidentChecker;
  /** The sandbox slots runs wait for. */
  slots: SandboxSlots;
  /** The sandboxes started ahead. */
  pool: SandboxPool;
  /** Whether runs take sandboxes started ahead. */
  warm: boolean;
  /** The heap cap of the sandboxes started ahead. */
  memoryMb: number;
  /** The executable of the sandboxes started ahead. */
  deno: string;
  /** Where the sandboxes started ahead make their directories. */
  tempDir: string | undefined;
  /** Answers a program's `search` and `describe`. */
  discovery: Discovery | undefined;
  /** Carries one tool call. */
  call: RunOptions["call"];
  /** Carries one read of a resource. */
  read: RunOptions["read"];
  /** Answers a program's prompts and resource listings. */
  features: RunOptions["features"];
};

/** The runs of one runner, from source to report (see the module doc). */
export class RunCourse {
  readonly #call: RunOptions["call"];
  readonly #read: RunOptions["read"];
  readonly #features: RunOptions["features"];
  readonly #discovery: Discovery | undefined;
  readonly #warm: boolean;
  readonly #memoryMb: number;
  readonly #deno: string;
  readonly #tempDir: string | undefined;
  readonly #checker: ResidentChecker;
  readonly #slots: SandboxSlots;
  readonly #pool: SandboxPool;
  #warmRuns = 0;

  /** The course of the runs of the runner whose parts these are. */
  constructor(parts: CourseParts) {
    this.#call = parts.call;
    this.#read = parts.read;
    this.#features = parts.features;
    this.#discovery = parts.discovery;
    this.#warm = parts.warm;
    this.#memoryMb = parts.memoryMb;
    this.#deno = parts.deno;
    this.#tempDir = parts.tempDir;
    this.#checker = parts.checker;
    this.#slots = parts.slots;
    this.#pool = parts.pool;
  }

  /** How many runs found a sandbox waiting. */
  get warmRuns(): number {
    return this.#warmRuns;
  }

  /** Takes one run from its source to its report. */
  async run(
    source: string,
    run: RunSettings,
  ): Promise<RunReport> {
    const { limits, signal } = run;
    if (signal.aborted) return aborted(limits);
    const scanned = await this.#checker.scan(source, { timeoutMs: run.checkTimeoutMs, signal });
    if (scanned.kind === "aborted") return aborted(limits);
    if (scanned.kind !== "scanned") {
      return rejected(
        [checkerProblem("find the program's imports", scanned, run.checkTimeoutMs)],
        limits,
      );
    }
    const gate = gateImports(scanned.scan, run.modules, source, run.absent);
    if (gate.diagnostics.length > 0) return await this.#refuse(source, scanned.scan, gate, run);
    const segments = segmentsOf(scanned.scan, run.modules);
    // The check needs no slot: it starts now, so that programs at once are
    // checked while the ones before them hold the slots and run.
    const giveUp = new AbortController();
    const files = checkerFiles(source, segments, run.modules);
    const checking = run.typeCheck
      ? phase(
        "harness.run check",
        this.#checker.check(files, {
          vouched: vouchedOf(files),
          timeoutMs: run.checkTimeoutMs,
          signal: AbortSignal.any([signal, giveUp.signal]),
        }),
        (checked) => checked.kind === "passed" ? undefined : { type: checked.kind },
      )
      : undefined;
    // Awaited below; a failure is the run's to report.
    checking?.catch(() => {});

    // A slot before any sandbox: the wait counts in the run's deadline. A
    // program its check refuses does not wait for one.
    const waitStarted = performance.now();
    const noSlot = new AbortController();
    const granting = this.#slots.acquire(
      limits.timeoutMs,
      AbortSignal.any([signal, noSlot.signal]),
    );
    if (checking !== undefined) {
      const first = await Promise.race([
        granting.then(() => undefined),
        checking.then((checked) => ({ checked })),
      ]);
      if (first !== undefined) {
        const refused = checkRefusal(first.checked, run);
        if (refused !== undefined) {
          noSlot.abort();
          const grant = await granting;
          if (grant.kind === "granted") grant.release();
          return refused;
        }
      }
    }
    const grant = await granting;
    if (grant.kind !== "granted") {
      // No slot, no run: its check is no longer wanted.
      giveUp.abort();
      if (grant.kind === "aborted") return aborted(limits);
      return pastDeadline(limits, "waiting for a sandbox slot");
    }
    const programMs = Math.max(1, Math.ceil(limits.timeoutMs - (performance.now() - waitStarted)));
    try {
      return await this.#runAdmitted(source, segments, run, programMs, checking);
    } finally {
      grant.release();
    }
  }

  /**
   * The rejection of a program whose imports the gate refused: with its type
   * errors too, checked with each misspelled module read as the one it meant,
   * so that one answer holds every problem. No sandbox is involved.
   */
  async #refuse(
    source: string,
    scan: ImportScan,
    gate: Gate,
    run: RunSettings,
  ): Promise<RunReport> {
    const { limits, signal } = run;
    if (!run.typeCheck) return rejected(gate.diagnostics, limits);
    const named = [...segmentsOf(scan, run.modules), ...gate.aliases.map(aliasSegment)];
    const files = checkerFiles(source, named, run.modules);
    const checked = await this.#checker.check(files, {
      vouched: vouchedOf(files),
      timeoutMs: run.checkTimeoutMs,
      signal,
      aliases: gate.aliases,
    });
    if (checked.kind === "aborted") return aborted(limits);
    if (checked.kind !== "failed") return rejected(gate.diagnostics, limits);
    const found = explain(checked.diagnostics, run.modules, gate.aliases);
    return rejected(merged(gate.diagnostics, found), limits);
  }

  async #runAdmitted(
    source: string,
    segments: readonly string[],
    run: RunSettings,
    programMs: number,
    checking: ReturnType<ResidentChecker["check"]> | undefined,
  ): Promise<RunReport> {
    const { limits, signal } = run;

    // A sandbox waiting with the same heap cap and executable is chosen now
    // and used once the check passes; without one, a sandbox starts beside
    // the check.
    const fits = this.#warm && limits.memoryMb === this.#memoryMb && run.deno === this.#deno &&
      run.tempDir === this.#tempDir;
    this.#pool.enter();
    const pending: Promise<Sandbox | undefined> = fits
      ? this.#pool.take().then((taken) => {
        if (taken !== undefined) this.#warmRuns++;
        return taken ?? startRunSandbox(run.deno, limits.memoryMb, run.tempDir);
      })
      : startRunSandbox(run.deno, limits.memoryMb, run.tempDir);
    // Awaited below; a failure to start is the run's to report.
    pending.catch(() => {});
    let sandbox: Sandbox | undefined;
    try {
      if (checking !== undefined) {
        const refused = checkRefusal(await checking, run);
        if (refused !== undefined) return refused;
      }
      if (signal.aborted) return aborted(limits);
      sandbox = await pending;
      if (sandbox === undefined) {
        sandbox = await startRunSandbox(run.deno, limits.memoryMb, run.tempDir);
      }
      await sandbox.hand(source, sources(segments, run.modules));
      const ran = await phase(
        "harness.run execute",
        runInSandbox({
          child: sandbox.child,
          stdoutHead: sandbox.stdoutHead(),
          discovery: this.#discovery,
          nonce: nonce(),
          rootUrl: sandbox.rootUrl,
          rootPath: sandbox.rootPath,
          call: this.#call,
          read: this.#read,
          features: this.#features,
          context: run.context,
          timeoutMs: programMs,
          runTimeoutMs: limits.timeoutMs,
          memoryMb: limits.memoryMb,
          maxCalls: limits.maxCalls,
          maxOutputBytes: limits.maxOutputBytes,
          signal,
          onProgress: run.onProgress,
        }),
        (report) => report.outcome.kind === "returned" ? undefined : { type: report.outcome.kind },
      );
      const { outcome } = ran;
      if (
        outcome.kind === "killed" && outcome.reason !== "channel" && outcome.reason !== "aborted"
      ) {
        limits.hit.push(outcome.reason);
      }
      return withinBudget({ outcome, logs: ran.logs, calls: ran.calls, limits });
    } finally {
      if (sandbox === undefined) sandbox = await pending.catch(() => undefined);
      await sandbox?.dispose();
      // Beyond the one a take starts when it empties the pool after a miss, the next
      // sandboxes start once this one is gone and no run is in flight, not
      // while programs run: a start is tens of ms of CPU, which on a small
      // machine the programs would otherwise share.
      this.#pool.leave();
    }
  }
}

/**
 * The build root the checker sees for `program`: it, `cap.ts`, `tools.ts`
 * and the modules of `segments` (those it imports): a module it does not
 * import costs its check nothing.
 */
export function checkerFiles(
  program: string,
  segments: Iterable<string>,
  modules: ReadonlyMap<string, RunModule>,
): [string, string][] {
  const files: [string, string][] = [
    ["program.ts", program],
    ["cap.ts", CAP_SOURCE],
    ["tools.ts", TOOLS_SOURCE],
  ];
  for (const [segment, source] of sources(segments, modules)) {
    files.push([`mcp/${segment}.ts`, source]);
  }
  return files;
}

/**
 * What the runner vouches for in a checker build root (see
 * `CheckOptions.vouched`): every file but the program, that is `cap.ts`,
 * `tools.ts` and the server modules, which `deno check` passes alone (the
 * modules by the generator's contract, tested with `deno check` itself).
 */
export function vouchedOf(files: readonly (readonly [string, string])[]): string[] {
  return files.map(([path]) => path).filter((path) => path !== "program.ts");
}

/** Starts a sandbox for runs with this executable, heap cap and temporary directory. */
export function startRunSandbox(
  deno: string,
  memoryMb: number,
  tempDir: string | undefined,
): Promise<Sandbox> {
  return startSandbox({ deno, memoryMb, capSpecifier: CAP_SPECIFIER, tempDir });
}
