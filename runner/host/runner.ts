/**
 * The code-mode runner: runs model-written TypeScript programs against the
 * generated `mcp/<segment>.ts` modules, each in a separate Deno process with
 * no permission but reading its own build root, and reports what happened as
 * a value. A {@linkcode Runner} lives as long as its harness and keeps two
 * things warm between runs; {@linkcode runProgram} is the same run, one-shot.
 *
 * How a run goes (`_course.ts`):
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
  bySegment,
  deadline,
  memoryCap,
  named,
  oversize,
  programFileName,
  rejected,
  runLimits,
} from "./_admission.ts";
import { SandboxSlots } from "./slots.ts";
import { DEFAULT_MAX_SANDBOXES, DEFAULT_WARM_SANDBOXES } from "./limits.ts";
import { SandboxPool } from "./_pool.ts";
import type { RunnerOptions, RunnerStats } from "./runner_options.ts";
import type { HarnessRunOptions, RunModule, RunOptions, RunReport } from "./run.ts";
import { DEFAULT_CHECK_TIMEOUT_MS } from "./limits.ts";
import { checkerFiles, RunCourse, startRunSandbox, vouchedOf } from "./_course.ts";

export type { RunnerOptions, RunnerStats } from "./runner_options.ts";

const NO_ABSENT: ReadonlyMap<string, string> = new Map();

/** Runs programs for one harness, with a resident checker and a warm sandbox (see the module doc). */
export class Runner {
  #bySegment: ReadonlyMap<string, RunModule>;
  #absent: RunnerOptions["absent"];
  readonly #memoryMb: number;
  readonly #deno: string;
  readonly #tempDir: string | undefined;
  readonly #checker: ResidentChecker;
  readonly #inflight = new Set<Promise<RunReport>>();
  readonly #stop = new AbortController();
  readonly #pool: SandboxPool;
  readonly #course: RunCourse;
  #retired = false;
  #prepared = false;
  #runs = 0;

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
    if (options.absent !== undefined && typeof options.absent !== "function") {
      throw new TypeError("Cannot run the program: options.absent is not a function");
    }
    this.#absent = options.absent;
    if (options.read !== undefined && typeof options.read !== "function") {
      throw new TypeError("Cannot run the program: options.read is not a function");
    }
    if (options.features !== undefined && typeof options.features !== "function") {
      throw new TypeError("Cannot run the program: options.features is not a function");
    }
    const warm = options.warm ?? true;
    this.#memoryMb = memoryCap(options.memoryMb);
    this.#deno = options.denoExecutable ?? Deno.execPath();
    this.#tempDir = options.tempDir;
    this.#checker = options.checker ?? new ResidentChecker();
    const slots = new SandboxSlots(options.maxSandboxes ?? DEFAULT_MAX_SANDBOXES);
    const warmSandboxes = options.warmSandboxes ?? DEFAULT_WARM_SANDBOXES;
    if (!Number.isSafeInteger(warmSandboxes) || warmSandboxes < 1) {
      throw new RangeError(
        `Cannot run programs: warmSandboxes ${warmSandboxes} is not a positive integer`,
      );
    }
    this.#pool = new SandboxPool({
      start: () =>
        startRunSandbox(this.#deno, this.#memoryMb, this.#tempDir).catch(() => undefined),
      max: warm ? warmSandboxes : 0,
    });
    this.#course = new RunCourse({
      checker: this.#checker,
      slots,
      pool: this.#pool,
      warm,
      memoryMb: this.#memoryMb,
      deno: this.#deno,
      tempDir: this.#tempDir,
      discovery: options.discovery,
      call: options.call,
      read: options.read,
      features: options.features,
    });
  }

  /**
   * Starts the checker and, when warm, the first sandbox now rather than at
   * the first run, and has the checker parse every module ahead. Once only:
   * a later call, or one after {@linkcode Runner.retire}, does nothing.
   */
  prepare(): void {
    if (this.#retired || this.#prepared) return;
    this.#prepared = true;
    this.#checker.start();
    this.#pool.fill();
    // A check of a program importing every module parses them all and warms
    // the compiler's paths for imports, so the first real check is a warm one.
    const imports = [...this.#bySegment.keys()].map((segment) => `import "./mcp/${segment}.ts";\n`);
    const files = checkerFiles(
      `${imports.join("")}export {};\n`,
      this.#bySegment.keys(),
      this.#bySegment,
    );
    this.#checker.check(files, {
      vouched: vouchedOf(files),
      timeoutMs: DEFAULT_CHECK_TIMEOUT_MS,
      signal: this.#stop.signal,
    }).catch(() => {});
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
      warmRuns: this.#course.warmRuns,
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
    const running = this.#course.run(source, {
      limits,
      checkTimeoutMs,
      typeCheck: options.typeCheck ?? true,
      signal,
      deno: options.denoExecutable ?? this.#deno,
      tempDir: options.tempDir ?? this.#tempDir,
      modules: this.#bySegment,
      absent: this.#absent?.() ?? NO_ABSENT,
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
