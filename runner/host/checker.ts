/**
 * The resident checker, host side: one process holding TypeScript's compiler
 * over a closed, in-memory world (`runner/checker/`), kept for the life of a
 * runner, answering import scans and type checks one at a time. Why a process
 * and not a Web Worker, and how it is started without any permission, is
 * written in `_checker_process.ts`.
 *
 * Guarantees:
 * - A check has a deadline. A program written to make the compiler work
 *   without end is stopped by killing the process (SIGKILL: gone in about
 *   10 ms, where a terminated Worker would keep computing); the check reports
 *   `timed_out` and a fresh process replaces the old one. The host never
 *   waits on a stuck compiler, and nothing of it keeps running.
 * - Its memory is measured and bounded: after every check the process
 *   reports its heap, and one past {@linkcode MAX_CHECKER_HEAP_BYTES} is
 *   replaced; the process runs with a V8 heap cap of that plus
 *   {@linkcode MAX_CHECK_GROWTH_BYTES}, and a check that reaches it ends as
 *   `too_large`, its process with it.
 * - A process that exits, faults or writes what the protocol does not know
 *   fails the request in flight with `unavailable` and is replaced.
 *
 * Lifecycle: nothing starts until {@linkcode ResidentChecker.start} or the
 * first request. {@linkcode ResidentChecker.retire} kills the process, fails
 * every queued request with `unavailable`, refuses later ones, and resolves
 * once every process the checker started has exited. The `custody` option
 * hears of every pid (the harness gives its exit guard's), so that a process
 * left mid-check by a harness that dies is killed with its servers.
 *
 * @module
 */

import { CheckerProcess, type ProcessCustody } from "./_checker_process.ts";
import { type CheckerReply, decodeReply, type Diagnostic } from "../checker/protocol.ts";
import type { ImportScan } from "../checker/protocol.ts";

export type { ProcessCustody };

/** The most heap the checker's process may keep between checks: 768 MiB. */
export const MAX_CHECKER_HEAP_BYTES = 768 * 1024 * 1024;
/**
 * The most one check may grow the checker's heap past
 * {@linkcode MAX_CHECKER_HEAP_BYTES}: 1 GiB. The process's V8 heap cap is
 * the sum of the two.
 */
export const MAX_CHECK_GROWTH_BYTES = 1024 * 1024 * 1024;
/** How long the process may take to load the compiler and parse its libraries: 60 s. */
export const CHECKER_START_TIMEOUT_MS = 60_000;

const HEAP_CAP_MB = (MAX_CHECKER_HEAP_BYTES + MAX_CHECK_GROWTH_BYTES) / (1024 * 1024);

/** How a scan ended. */
export type ScanOutcome =
  | { kind: "scanned"; scan: ImportScan }
  | { kind: "timed_out" }
  | { kind: "too_large" }
  | { kind: "aborted" }
  | { kind: "unavailable"; message: string };

/** How a check ended. */
export type CheckOutcome =
  | { kind: "passed" }
  | { kind: "failed"; diagnostics: Diagnostic[] }
  | { kind: "timed_out" }
  | { kind: "too_large" }
  | { kind: "aborted" }
  | { kind: "unavailable"; message: string };

/** The checker's state and what it has cost, for reports and benchmarks. */
export type CheckerStats = {
  state: "idle" | "starting" | "ready" | "retired";
  /** The process's heap after its last check, in bytes; 0 before the first. */
  heapBytes: number;
  /** Checks and scans answered. */
  answered: number;
  /** Processes replaced (deadline, memory, crash). */
  replaced: number;
  /** The pid of the current process; undefined when none runs. */
  pid: number | undefined;
};

/** How a {@linkcode ResidentChecker} runs its process. */
export type ResidentCheckerOptions = {
  /** The Deno executable the process runs on; `Deno.execPath()` by default. */
  denoExecutable?: string | undefined;
  /** Told each process's pid when it starts and when its exit is seen. */
  custody?: ProcessCustody | undefined;
};

type Settled =
  | { kind: "answer"; reply: CheckerReply }
  | { kind: "timed_out" }
  | { kind: "too_large" }
  | { kind: "aborted" }
  | { kind: "unavailable"; message: string };

type Job = {
  request:
    | { kind: "scan"; source: string }
    | {
      kind: "check";
      files: [string, string][];
      aliases?: [string, string][];
      vouched?: string[];
    };
  timeoutMs: number;
  signal: AbortSignal | undefined;
  settle: (settled: Settled) => void;
};

type Current = {
  /** Undefined when the process could not be spawned. */
  process: CheckerProcess | undefined;
  ready: Promise<boolean>;
  /** Set while a request is in flight: how to settle it from outside. */
  inflight: ((settled: Settled) => void) | undefined;
};

/** Deadline and abort of one scan or check. */
export type CheckerRequestOptions = {
  /** From the request's start in the process to its answer, in milliseconds. */
  timeoutMs: number;
  /** Aborting settles the request as `aborted` (and replaces a process busy with it). */
  signal?: AbortSignal | undefined;
};

/** Deadline, abort and aliases of one check. */
export type CheckOptions = CheckerRequestOptions & {
  /**
   * Specifiers the program imports that name no file of the build root, each
   * with the build-root relative path to check it as (`["./mcp/sequential_thinking.ts",
   * "mcp/sequential-thinking.ts"]`): the module it surely meant, so that one
   * check also reports what the program takes from it.
   */
  aliases?: [string, string][] | undefined;
  /**
   * Files of the build root (relative paths) that have no diagnostics of
   * their own, as the modules `generate` makes and the sandbox's `cap.ts`
   * and `tools.ts`, each of which `deno check` passes alone: while the
   * program augments no global or module and nothing imports it, they are
   * read only for what the program takes from them, not checked in full.
   * The runner vouches for every file but `program.ts`; a file vouched for
   * wrongly has its own errors go unreported.
   */
  vouched?: readonly string[] | undefined;
};

/**
 * One resident checker (see the module doc). A {@linkcode Runner} makes its
 * own; a harness can make one early, start it while its servers start, and
 * give it to the runner it makes afterwards.
 *
 * @example Start a checker early, hand it to a runner
 * ```ts ignore
 * import { ResidentChecker, Runner } from "@loom/mcp";
 * const checker = new ResidentChecker();
 * checker.start();
 * // ... boot servers, generate modules ...
 * const runner = new Runner({ modules, call, checker });
 * ```
 */
export class ResidentChecker {
  readonly #url: URL;
  readonly #deno: string | undefined;
  readonly #custody: ProcessCustody | undefined;
  readonly #queue: Job[] = [];
  /** Every process killed or exited whose end is still to be awaited by `retire()`. */
  readonly #ending = new Set<Promise<void>>();
  #current: Current | undefined;
  #busy = false;
  #retired = false;
  #nextId = 0;
  #heapBytes = 0;
  #answered = 0;
  #replaced = 0;
  #startFailure = "";
  #state: "starting" | "ready" = "starting";

  /** Makes a checker; nothing starts until {@linkcode ResidentChecker.start} or a request. */
  constructor(options: ResidentCheckerOptions = {}) {
    if (options.denoExecutable !== undefined && typeof options.denoExecutable !== "string") {
      throw new TypeError("Cannot make the checker: denoExecutable is not a string");
    }
    const custody = options.custody;
    if (
      custody !== undefined &&
      (typeof custody?.started !== "function" || typeof custody.exited !== "function")
    ) {
      throw new TypeError("Cannot make the checker: custody has no started and exited functions");
    }
    // Resolved beside this module: a file or a remote URL alike.
    this.#url = new URL("../checker/entry.ts", import.meta.url);
    this.#deno = options.denoExecutable;
    this.#custody = custody;
  }

  /** Starts the process now (it loads the compiler in the background). */
  start(): void {
    if (this.#retired) return;
    this.#current ??= this.#spawn();
  }

  /** The checker's state and costs. */
  stats(): CheckerStats {
    return {
      state: this.#retired ? "retired" : this.#current === undefined ? "idle" : this.#state,
      heapBytes: this.#heapBytes,
      answered: this.#answered,
      replaced: this.#replaced,
      pid: this.#current?.process?.pid,
    };
  }

  /** Finds the modules a program names, with TypeScript's parser. */
  async scan(source: string, options: CheckerRequestOptions): Promise<ScanOutcome> {
    const settled = await this.#enqueue({ kind: "scan", source }, options);
    if (settled.kind !== "answer") return settled;
    const reply = settled.reply;
    if (reply.kind === "scanned") return { kind: "scanned", scan: reply.scan };
    return this.#unexpected(reply);
  }

  /** Type-checks `program.ts` among `files` (build-root relative path, text). */
  async check(files: [string, string][], options: CheckOptions): Promise<CheckOutcome> {
    const request: Job["request"] = { kind: "check", files };
    if (options.aliases !== undefined && options.aliases.length > 0) {
      request.aliases = options.aliases;
    }
    if (options.vouched !== undefined && options.vouched.length > 0) {
      request.vouched = [...options.vouched];
    }
    const settled = await this.#enqueue(request, options);
    if (settled.kind !== "answer") return settled;
    const reply = settled.reply;
    if (reply.kind !== "checked") return this.#unexpected(reply);
    this.#heapBytes = reply.heapBytes;
    if (reply.heapBytes > MAX_CHECKER_HEAP_BYTES) this.#replace();
    return reply.diagnostics.length === 0
      ? { kind: "passed" }
      : { kind: "failed", diagnostics: reply.diagnostics };
  }

  /**
   * Kills the process and fails every waiting request; later requests are
   * refused. Resolves once every process this checker started has exited.
   */
  async retire(): Promise<void> {
    if (!this.#retired) {
      this.#retired = true;
      const unavailable: Settled = { kind: "unavailable", message: "The checker was retired" };
      for (const job of this.#queue.splice(0)) job.settle(unavailable);
      this.#current?.inflight?.(unavailable);
      this.#current?.process?.kill();
      this.#current = undefined;
    }
    await Promise.all(this.#ending);
  }

  #unexpected(reply: CheckerReply): { kind: "unavailable"; message: string } {
    this.#replace();
    return {
      kind: "unavailable",
      message: reply.kind === "fault"
        ? `The checker failed: ${reply.message}`
        : `The checker answered a "${reply.kind}" out of turn`,
    };
  }

  #enqueue(request: Job["request"], options: CheckerRequestOptions): Promise<Settled> {
    if (this.#retired) {
      return Promise.resolve({ kind: "unavailable", message: "The checker was retired" });
    }
    if (options.signal?.aborted) return Promise.resolve({ kind: "aborted" });
    return new Promise<Settled>((resolve) => {
      const job: Job = {
        request,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        settle: resolve,
      };
      const onAbort = (): void => {
        const index = this.#queue.indexOf(job);
        if (index >= 0) {
          this.#queue.splice(index, 1);
          resolve({ kind: "aborted" });
        }
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      job.settle = (settled) => {
        options.signal?.removeEventListener("abort", onAbort);
        resolve(settled);
      };
      this.#queue.push(job);
      this.#pump();
    });
  }

  async #pump(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length > 0 && !this.#retired) {
        const job = this.#queue.shift() as Job;
        this.#current ??= this.#spawn();
        const current = this.#current;
        const started = await current.ready;
        if (this.#retired) {
          job.settle({ kind: "unavailable", message: "The checker was retired" });
          continue;
        }
        if (!started) {
          job.settle({
            kind: "unavailable",
            message: `The checker could not start: ${this.#startFailure}`,
          });
          if (this.#current === current) this.#current = undefined;
          continue;
        }
        if (this.#current !== current) {
          // Retired or replaced while starting.
          this.#queue.unshift(job);
          continue;
        }
        job.settle(await this.#send(current, job));
      }
    } finally {
      this.#busy = false;
    }
  }

  #spawn(): Current {
    this.#state = "starting";
    const ready = Promise.withResolvers<boolean>();
    const current: Current = { process: undefined, ready: ready.promise, inflight: undefined };
    let child: CheckerProcess | undefined;
    const timer = setTimeout(() => {
      this.#startFailure = `it did not load within ${CHECKER_START_TIMEOUT_MS} ms`;
      void child?.kill();
      ready.resolve(false);
    }, CHECKER_START_TIMEOUT_MS);
    const events = {
      reply: (data: unknown) => {
        const reply = decodeReply(data);
        if (reply.ok && reply.value.kind === "ready") {
          clearTimeout(timer);
          if (this.#current === current) this.#state = "ready";
          ready.resolve(true);
          return;
        }
        current.inflight?.(
          reply.ok
            ? { kind: "answer", reply: reply.value }
            : { kind: "unavailable", message: reply.error.message },
        );
      },
      fault: (message: string) => {
        current.inflight?.({ kind: "unavailable", message: `The checker failed: ${message}` });
      },
      exit: (message: string, outOfMemory: boolean) => {
        clearTimeout(timer);
        this.#startFailure = message;
        ready.resolve(false);
        current.inflight?.(
          outOfMemory
            ? { kind: "too_large" }
            : { kind: "unavailable", message: `The checker crashed: ${message}` },
        );
        if (this.#current === current) this.#current = undefined;
      },
    };
    try {
      child = new CheckerProcess(this.#url, events, {
        deno: this.#deno ?? Deno.execPath(),
        heapMb: HEAP_CAP_MB,
        custody: this.#custody,
      });
    } catch (error) {
      clearTimeout(timer);
      this.#startFailure = `its process could not be spawned: ${
        error instanceof Error ? error.message : String(error)
      }`;
      ready.resolve(false);
      return current;
    }
    current.process = child;
    const ending: Promise<void> = child.exited.then(() => {
      // Killed before it was ready, or gone: nothing waits on it any more.
      clearTimeout(timer);
      ready.resolve(false);
      this.#ending.delete(ending);
    });
    this.#ending.add(ending);
    return current;
  }

  /** Sends one request and waits for its answer, its deadline or an abort. */
  #send(current: Current, job: Job): Promise<Settled> {
    const id = this.#nextId++;
    return new Promise<Settled>((resolve) => {
      const finish = (settled: Settled): void => {
        if (current.inflight !== finish) return;
        current.inflight = undefined;
        clearTimeout(timer);
        job.signal?.removeEventListener("abort", onAbort);
        if (settled.kind === "answer") {
          this.#answered++;
          if (settled.reply.kind !== "fault" && "id" in settled.reply && settled.reply.id !== id) {
            settled = { kind: "unavailable", message: "The checker answered another request" };
            this.#replace();
          }
        } else if (settled.kind !== "unavailable" || this.#current === current) {
          // Stopped mid-check: the compiler's state is unknown.
          this.#replace();
        }
        resolve(settled);
      };
      const timer = setTimeout(() => finish({ kind: "timed_out" }), job.timeoutMs);
      const onAbort = (): void => finish({ kind: "aborted" });
      job.signal?.addEventListener("abort", onAbort, { once: true });
      current.inflight = finish;
      // Aborted while the process was starting: the listener came too late.
      if (job.signal?.aborted) return finish({ kind: "aborted" });
      current.process?.send({ ...job.request, id });
    });
  }

  /** Kills the current process and starts its replacement. */
  #replace(): void {
    const old = this.#current;
    this.#current = undefined;
    if (old === undefined) return;
    old.process?.kill();
    this.#replaced++;
    if (!this.#retired) this.#current = this.#spawn();
  }
}
