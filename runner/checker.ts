/**
 * The resident checker, main-thread side: one Worker holding TypeScript's
 * compiler over a closed, in-memory world (`runner/compiler/`), kept for the
 * life of a runner, answering import scans and type checks one at a time.
 *
 * Guarantees:
 * - A check has a deadline. A program written to make the compiler work
 *   without end is stopped by terminating the Worker (V8 interrupts even a
 *   synchronous loop); the check reports `timed_out` and a fresh Worker
 *   replaces the old one. The host never waits on a stuck compiler.
 * - Its memory is measured and bounded: after every check the Worker reports
 *   its heap, and one past {@linkcode MAX_CHECKER_HEAP_BYTES} is replaced;
 *   during a check the process's resident memory is sampled, and a check that
 *   grows it past {@linkcode MAX_CHECK_GROWTH_BYTES} is stopped like a
 *   timeout.
 * - A Worker that crashes, faults or posts what the protocol does not know
 *   fails the request in flight with `unavailable` and is replaced.
 *
 * Lifecycle: nothing starts until {@linkcode ResidentChecker.start} or the
 * first request. {@linkcode ResidentChecker.retire} terminates the Worker,
 * fails every queued request with `unavailable`, and refuses later ones.
 *
 * @module
 */

import { type CheckerReply, decodeReply, type Diagnostic } from "./compiler/_protocol.ts";
import type { ImportScan } from "./compiler/_protocol.ts";

/** The most heap the checker's Worker may keep between checks: 768 MiB. */
export const MAX_CHECKER_HEAP_BYTES = 768 * 1024 * 1024;
/** The most the process's resident memory may grow during one check: 1 GiB. */
export const MAX_CHECK_GROWTH_BYTES = 1024 * 1024 * 1024;
/** How long the Worker may take to load the compiler and parse its libraries: 60 s. */
export const CHECKER_START_TIMEOUT_MS = 60_000;
/** How often the process's memory is sampled during a check, in milliseconds. */
const MEMORY_SAMPLE_MS = 50;

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
  /** The Worker's heap after its last check, in bytes; 0 before the first. */
  heapBytes: number;
  /** Checks and scans answered. */
  answered: number;
  /** Workers replaced (deadline, memory, crash). */
  replaced: number;
};

type Settled =
  | { kind: "answer"; reply: CheckerReply }
  | { kind: "timed_out" }
  | { kind: "too_large" }
  | { kind: "aborted" }
  | { kind: "unavailable"; message: string };

type Job = {
  request: { kind: "scan"; source: string } | { kind: "check"; files: [string, string][] };
  timeoutMs: number;
  signal: AbortSignal | undefined;
  settle: (settled: Settled) => void;
};

type Current = {
  worker: Worker;
  ready: Promise<boolean>;
  /** Set while a request is in flight: how to settle it from outside. */
  inflight: ((settled: Settled) => void) | undefined;
};

/** Deadline and abort of one scan or check. */
export type CheckerRequestOptions = {
  /** From the request's start in the Worker to its answer, in milliseconds. */
  timeoutMs: number;
  /** Aborting settles the request as `aborted` (and replaces a Worker busy with it). */
  signal?: AbortSignal | undefined;
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
  readonly #queue: Job[] = [];
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
  constructor() {
    // Resolved beside this module: a file or a remote URL alike.
    this.#url = new URL("./compiler/entry.ts", import.meta.url);
  }

  /** Starts the Worker now (it loads the compiler in the background). */
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
  async check(files: [string, string][], options: CheckerRequestOptions): Promise<CheckOutcome> {
    const settled = await this.#enqueue({ kind: "check", files }, options);
    if (settled.kind !== "answer") return settled;
    const reply = settled.reply;
    if (reply.kind !== "checked") return this.#unexpected(reply);
    this.#heapBytes = reply.heapBytes;
    if (reply.heapBytes > MAX_CHECKER_HEAP_BYTES) this.#replace();
    return reply.diagnostics.length === 0
      ? { kind: "passed" }
      : { kind: "failed", diagnostics: reply.diagnostics };
  }

  /** Terminates the Worker and fails every waiting request; later requests are refused. */
  retire(): Promise<void> {
    if (this.#retired) return Promise.resolve();
    this.#retired = true;
    const unavailable: Settled = { kind: "unavailable", message: "The checker was retired" };
    for (const job of this.#queue.splice(0)) job.settle(unavailable);
    this.#current?.inflight?.(unavailable);
    this.#current?.worker.terminate();
    this.#current = undefined;
    return Promise.resolve();
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
        if (!await current.ready) {
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
    const worker = new Worker(this.#url, { type: "module", name: "loom-checker" });
    const current: Current = { worker, ready: Promise.resolve(false), inflight: undefined };
    current.ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#startFailure = `it did not load within ${CHECKER_START_TIMEOUT_MS} ms`;
        worker.terminate();
        resolve(false);
      }, CHECKER_START_TIMEOUT_MS);
      worker.onmessage = (event: MessageEvent) => {
        const reply = decodeReply(event.data);
        if (reply.ok && reply.value.kind === "ready") {
          clearTimeout(timer);
          if (this.#current === current) this.#state = "ready";
          resolve(true);
          return;
        }
        if (current.inflight !== undefined) {
          current.inflight(
            reply.ok ? { kind: "answer", reply: reply.value } : {
              kind: "unavailable",
              message: reply.error.message,
            },
          );
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        clearTimeout(timer);
        const message = String(event.message ?? "the checker's Worker crashed");
        this.#startFailure = message;
        resolve(false);
        current.inflight?.({ kind: "unavailable", message: `The checker crashed: ${message}` });
        if (this.#current === current) this.#current = undefined;
        worker.terminate();
      };
    });
    return current;
  }

  /** Sends one request and waits for its answer, its deadline, its memory bound or an abort. */
  #send(current: Current, job: Job): Promise<Settled> {
    const id = this.#nextId++;
    return new Promise<Settled>((resolve) => {
      const baseline = Deno.memoryUsage().rss;
      const finish = (settled: Settled): void => {
        if (current.inflight !== finish) return;
        current.inflight = undefined;
        clearTimeout(timer);
        clearInterval(sampler);
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
      const sampler = setInterval(() => {
        if (Deno.memoryUsage().rss - baseline > MAX_CHECK_GROWTH_BYTES) {
          finish({ kind: "too_large" });
        }
      }, MEMORY_SAMPLE_MS);
      const onAbort = (): void => finish({ kind: "aborted" });
      job.signal?.addEventListener("abort", onAbort, { once: true });
      current.inflight = finish;
      current.worker.postMessage({ ...job.request, id });
    });
  }

  /** Terminates the current Worker and starts its replacement. */
  #replace(): void {
    const old = this.#current;
    this.#current = undefined;
    if (old === undefined) return;
    old.worker.terminate();
    this.#replaced++;
    if (!this.#retired) this.#current = this.#spawn();
  }
}
