/**
 * The code-mode runner: runs model-written TypeScript programs against the
 * generated `mcp/<segment>.ts` modules, each in a separate Deno process with
 * no permission but reading its own build root, and reports what happened as
 * a value. A {@linkcode Runner} lives as long as its harness and keeps two
 * things warm between runs; {@linkcode runProgram} is the same run, one-shot.
 *
 * How a run goes:
 *
 * 1. The program's imports are found by the resident checker's TypeScript
 *    parser. It may import `./mcp/<segment>.ts` for a server of the harness,
 *    and `@loom/mcp/cap`; anything else (another path, a remote URL, `npm:`,
 *    `node:`, a computed dynamic import, a comment directive that names a
 *    file) is rejected before anything runs. Such a program is still
 *    type-checked, a misspelled module path read as the module it surely
 *    meant, so that one answer holds its every import problem and type error.
 * 2. Unless skipped, the resident checker type-checks the program against
 *    `cap.ts` and the generated modules, all held in memory: its compiler
 *    reads no file of the host but its own library declarations, and its
 *    world is the sandbox's program Worker as TypeScript's `lib.webworker`
 *    declares it, less what the sandbox cannot give (`Deno`, the network,
 *    storage; `runner/checker/_world.ts`). Type errors come back as
 *    diagnostics, with paths relative to the build root, their source lines
 *    and related places, and the program does not run. The check needs no
 *    sandbox slot: it starts as soon as the imports are known, while the run
 *    waits its turn for a slot (`maxSandboxes`), so programs started at once
 *    are checked while the ones before them run.
 * 3. A sandbox takes the program: a build root in a fresh temporary directory
 *    (`cap.ts`, every generated module, the bootstrap, worker prelude and tag
 *    vocabulary of `runner/sandbox/`, written from text this library carries,
 *    so it works when loaded from a remote URL; an import map and a private
 *    `DENO_DIR` beside the root), and a `deno run --no-prompt --no-remote
 *    --no-npm --no-config --no-lock --allow-read=<root>` process with
 *    `--disallow-code-generation-from-strings`, a V8 heap cap and an empty
 *    environment. Its main module, the bootstrap, starts the program's
 *    Worker (a main module could import any local JSON file with no
 *    permission; a Worker's loads are checked against the read permission).
 *    Sandboxes are started ahead, so a run usually finds one waiting: its
 *    process started, its Worker loaded, only `program.ts` and the modules
 *    it imports left to write. How many wait follows demand (one while a
 *    model thinks between programs, more for programs back to back or at
 *    once; `_pool.ts`). Each sandbox serves exactly one program.
 * 4. The host hands over a per-execution nonce on stdin; the program runs.
 *    Tool calls, console output and the end of the program travel to the
 *    host as nonce-authenticated lines on stdout; anything else the program
 *    prints is a log line, and nothing it prints can pose as a frame.
 * 5. Each call goes through the `call` of the options (the harness's), with
 *    the arguments rebuilt as the program passed them, so that the harness's
 *    interchange rules refuse what JSON cannot say, with its path; each read
 *    of a resource through its `read`, with the URI. Calls run
 *    concurrently. A program's `search` and `describe` (of `./tools.ts`) are
 *    answered by the `discovery` of the options (the harness's).
 *
 * Lifecycle: a run owns its sandbox from the handover: it returns only after
 * the sandbox's process has exited and every tool call it started has
 * settled (a call is bounded by the harness's own deadlines), and it removes
 * the sandbox's directory on every path. The runner owns the resident
 * checker's process and the sandboxes waiting for runs; nothing starts
 * before the first run or {@linkcode Runner.prepare}, and
 * {@linkcode Runner.retire} aborts the runs in flight, waits for them, kills
 * the waiting sandboxes, removes their directories and kills the checker's
 * process.
 *
 * @module
 */

import { ResidentChecker } from "./checker.ts";
import {
  aborted,
  aliasSegment,
  bySegment,
  checkerProblem,
  checkRefusal,
  deadline,
  explain,
  type Gate,
  gateImports,
  memoryCap,
  merged,
  named,
  nonce,
  oversize,
  pastDeadline,
  programFileName,
  rejected,
  runLimits,
  type RunSettings,
  segmentsOf,
  sources,
} from "./_admission.ts";
import type { ImportScan } from "../checker/protocol.ts";
import { SandboxSlots } from "./slots.ts";
import { DEFAULT_MAX_SANDBOXES, DEFAULT_WARM_SANDBOXES } from "./limits.ts";
import { runInSandbox } from "./_sandbox_run.ts";
import { phase } from "../../telemetry/spans.ts";
import { type Sandbox, startSandbox } from "./_sandbox.ts";
import { SandboxPool } from "./_pool.ts";
import type { Discovery } from "./discovery.ts";
import type { RunnerOptions, RunnerStats } from "./runner_options.ts";
import {
  CAP_SPECIFIER,
  type HarnessRunOptions,
  type RunModule,
  type RunOptions,
  type RunReport,
} from "./run.ts";
import { DEFAULT_CHECK_TIMEOUT_MS } from "./limits.ts";
import { withinBudget } from "./_budget.ts";
import { CAP_SOURCE, TOOLS_SOURCE } from "../../_generated/sandbox_sources.ts";

export type { RunnerOptions, RunnerStats } from "./runner_options.ts";

/** Runs programs for one harness, with a resident checker and a warm sandbox (see the module doc). */
export class Runner {
  #bySegment: ReadonlyMap<string, RunModule>;
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
  readonly #inflight = new Set<Promise<RunReport>>();
  readonly #stop = new AbortController();
  readonly #pool: SandboxPool;
  #retired = false;
  #runs = 0;
  #warmRuns = 0;

  /**
   * Makes a runner for these modules. Starts nothing; throws `TypeError` for
   * a module with an unusable segment or two modules sharing one.
   *
   * @example Run two programs, then retire
   * ```ts ignore
   * import { Runner } from "@loom/mcp";
   * const runner = new Runner({ modules: harness.modules, call: harness.call });
   * const first = await runner.run('export default 1 + 1;');
   * const second = await runner.run('export default "warm";');
   * await runner.retire();
   * ```
   */
  constructor(options: RunnerOptions) {
    if (typeof options?.call !== "function") {
      throw new TypeError("Cannot run the program: options.call is not a function");
    }
    this.#bySegment = bySegment(options.modules);
    this.#call = options.call;
    if (options.read !== undefined && typeof options.read !== "function") {
      throw new TypeError("Cannot run the program: options.read is not a function");
    }
    this.#read = options.read;
    if (options.features !== undefined && typeof options.features !== "function") {
      throw new TypeError("Cannot run the program: options.features is not a function");
    }
    this.#features = options.features;
    this.#discovery = options.discovery;
    this.#warm = options.warm ?? true;
    this.#memoryMb = memoryCap(options.memoryMb);
    this.#deno = options.denoExecutable ?? Deno.execPath();
    this.#tempDir = options.tempDir;
    this.#checker = options.checker ?? new ResidentChecker();
    this.#slots = new SandboxSlots(options.maxSandboxes ?? DEFAULT_MAX_SANDBOXES);
    const warmSandboxes = options.warmSandboxes ?? DEFAULT_WARM_SANDBOXES;
    if (!Number.isSafeInteger(warmSandboxes) || warmSandboxes < 1) {
      throw new RangeError(
        `Cannot run programs: warmSandboxes ${warmSandboxes} is not a positive integer`,
      );
    }
    this.#pool = new SandboxPool({
      start: () => this.#start(this.#deno, this.#memoryMb, this.#tempDir).catch(() => undefined),
      max: this.#warm ? warmSandboxes : 0,
    });
  }

  /** Starts the checker and, when warm, the first sandbox now rather than at the first run. */
  prepare(): void {
    if (this.#retired) return;
    this.#checker.start();
    this.#pool.fill();
    // A check of a program importing every module parses them all and warms
    // the compiler's paths for imports, so the first real check is a warm one.
    const imports = [...this.#bySegment.keys()].map((segment) => `import "./mcp/${segment}.ts";\n`);
    this.#checker.check(
      this.#files(`${imports.join("")}export {};\n`, this.#bySegment.keys(), this.#bySegment),
      {
        timeoutMs: DEFAULT_CHECK_TIMEOUT_MS,
        signal: this.#stop.signal,
      },
    ).catch(() => {});
  }
  /**
   * Replaces the modules programs are checked against and run with (a
   * server's listing changed): runs that start from now on use these; a run
   * under way keeps the modules it was checked against. Throws as the
   * constructor does.
   */
  replaceModules(modules: ReadonlyMap<string, RunModule>): void {
    this.#bySegment = bySegment(modules);
  }

  /** The checker's state, whether a sandbox waits, and how many runs found one. */
  stats(): RunnerStats {
    return {
      checker: this.#checker.stats(),
      warm: this.#pool.size > 0,
      waiting: this.#pool.size,
      ready: this.#pool.ready,
      runs: this.#runs,
      warmRuns: this.#warmRuns,
    };
  }

  /**
   * Runs one program in a sandbox and reports its outcome, its logs, its
   * tool calls and the limits it hit. Never throws for anything the program
   * does; throws `TypeError` or `RangeError` only for bad options. Once the
   * runner is retired a run is refused as a value (outcome `refused`), as a
   * harness's calls are then: a Ctrl-C that retires a harness during a turn
   * must not make the next program an unhandled rejection.
   */
  async run(source: string, options: HarnessRunOptions = {}): Promise<RunReport> {
    if (typeof source !== "string") {
      throw new TypeError(`Cannot run the program: it is ${typeof source}, not a string`);
    }
    const limits = runLimits(options);
    const checkTimeoutMs = deadline(
      "checkTimeoutMs",
      options.checkTimeoutMs,
      DEFAULT_CHECK_TIMEOUT_MS,
    );
    const programName = programFileName(options.programName);
    if (this.#retired) {
      const message =
        "Cannot run the program: its harness was retired; boot a new harness to run it";
      return {
        outcome: { kind: "refused", reason: "retired", message },
        logs: [],
        calls: [],
        limits,
      };
    }
    const run = { id: this.#runs++, programName: programName ?? "program.ts", source };
    const tooLarge = oversize(source);
    if (tooLarge !== undefined) return named(rejected([tooLarge], limits), programName);
    const signal = options.signal === undefined
      ? this.#stop.signal
      : AbortSignal.any([options.signal, this.#stop.signal]);
    const running = this.#run(source, {
      limits,
      checkTimeoutMs,
      typeCheck: options.typeCheck ?? true,
      signal,
      deno: options.denoExecutable ?? this.#deno,
      tempDir: options.tempDir ?? this.#tempDir,
      modules: this.#bySegment,
      context: {
        run,
        ...(options.approve === undefined ? {} : { approve: options.approve }),
        ...(options.onElicit === undefined ? {} : { onElicit: options.onElicit }),
        ...(options.onSample === undefined ? {} : { onSample: options.onSample }),
      },
      onProgress: options.onProgress,
    });
    this.#inflight.add(running);
    try {
      return named(await running, programName);
    } finally {
      this.#inflight.delete(running);
    }
  }

  /**
   * Aborts the runs in flight and waits for them, kills the sandboxes
   * waiting for programs and removes their directories, and kills the
   * checker's process. Idempotent.
   */
  async retire(): Promise<void> {
    this.#retired = true;
    this.#stop.abort();
    await Promise.allSettled([...this.#inflight]);
    await Promise.all([this.#pool.retire(), this.#checker.retire()]);
  }

  async #run(
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
    const gate = gateImports(scanned.scan, run.modules, source);
    if (gate.diagnostics.length > 0) return await this.#refuse(source, scanned.scan, gate, run);
    const segments = segmentsOf(scanned.scan, run.modules);
    // The check needs no slot: it starts now, so that programs at once are
    // checked while the ones before them hold the slots and run.
    const giveUp = new AbortController();
    const checking = run.typeCheck
      ? phase(
        "harness.run check",
        this.#checker.check(this.#files(source, segments, run.modules), {
          timeoutMs: run.checkTimeoutMs,
          signal: AbortSignal.any([signal, giveUp.signal]),
        }),
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
    const checked = await this.#checker.check(this.#files(source, named, run.modules), {
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
        return taken ?? this.#start(run.deno, limits.memoryMb, run.tempDir);
      })
      : this.#start(run.deno, limits.memoryMb, run.tempDir);
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
        sandbox = await this.#start(run.deno, limits.memoryMb, run.tempDir);
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

  /**
   * The build root the checker sees for `program`: it, `cap.ts`, `tools.ts`
   * and the modules of `segments` (those it imports): a module it does not
   * import costs its check nothing.
   */
  #files(
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

  #start(deno: string, memoryMb: number, tempDir: string | undefined): Promise<Sandbox> {
    return startSandbox({ deno, memoryMb, capSpecifier: CAP_SPECIFIER, tempDir });
  }
}

/**
 * Runs one program in a sandbox of its own and reports its outcome, its
 * logs, its tool calls and the limits it hit: a {@linkcode Runner} made for
 * this one run, retired before it returns. Never throws for anything the
 * program does; throws `TypeError` or `RangeError` only for bad options.
 *
 * @example Run a program against one server
 * ```ts ignore
 * import { runProgram } from "@loom/mcp";
 * const report = await runProgram(
 *   'import { echo } from "./mcp/echo.ts";\nexport default (await echo({ text: "hi" })).text;',
 *   { modules: harness.modules, call: harness.call },
 * );
 * if (report.outcome.kind === "returned") console.log(report.outcome.value);
 * ```
 */
export async function runProgram(source: string, options: RunOptions): Promise<RunReport> {
  const { modules, call, read, features, ...rest } = options ?? {};
  const runner = new Runner({
    modules,
    call,
    ...(read === undefined ? {} : { read }),
    ...(features === undefined ? {} : { features }),
    warm: false,
  });
  try {
    return await runner.run(source, rest);
  } finally {
    await runner.retire();
  }
}
