/**
 * The sandboxes a runner keeps started ahead, waiting for programs: a pool
 * whose size follows demand. Private to the runner.
 *
 * A sandbox takes about three times a bare `deno run` to start (the process,
 * its program Worker, the sandbox's modules; BENCHMARKS.md), and serves one
 * program. One sandbox started ahead is enough while a model thinks between
 * programs; programs back to back, or several at once, would each wait for
 * the next to start. So the pool keeps `target` sandboxes waiting, from one
 * up to its `max`: a run that finds none ready (a miss) raises the target by
 * one, and {@linkcode POOL_IDLE_MS} without a run sets it back to one and
 * disposes the rest (the first run after that is no miss: it starts its own,
 * as the first run of a harness does), so a harness that bursts keeps what its
 * bursts need and an idle one keeps one.
 *
 * Sandboxes start one at a time, the next once the one before is ready, and
 * only while no run is in flight and none has ended for
 * {@linkcode POOL_QUIET_MS}: a start is most of a core for tens of
 * milliseconds, which runs back to back or at once would otherwise share
 * (measured: BENCHMARKS.md). A burst of runs takes what waits; the pool
 * fills again once the burst is over. One exception: once programs have come
 * faster than sandboxes start (a miss raised the target past one), a take
 * that takes the last sandbox waiting or starting starts the next at once,
 * runs in flight or not: the next program would otherwise start its own only
 * when it arrives. A take that finds none starts nothing: its program starts
 * its own, and in a burst one more start would share the cores with all of
 * them (measured: BENCHMARKS.md, sixth pass). While programs come one at a time
 * (the target is one), a run never shares the machine with a start
 * (measured both ways: BENCHMARKS.md, "A cold sandbox").
 *
 * Lifecycle: the pool owns every sandbox it started until {@linkcode
 * SandboxPool.take} hands one to a run (which then owns it) or
 * {@linkcode SandboxPool.retire} disposes them. Nothing starts before the
 * first {@linkcode SandboxPool.fill}; its timers (the quiet one before a
 * start, the idle one while more than one sandbox waits) never keep the
 * process alive and are cleared at retire.
 *
 * @module
 */

import type { Sandbox } from "./_sandbox.ts";
import { POOL_IDLE_MS, POOL_QUIET_MS } from "./limits.ts";

type Entry = { promise: Promise<Sandbox | undefined>; sandbox: Sandbox | undefined };

/** A timer the pool arms: cancelled by the function it returns. */
export type Schedule = (run: () => void, ms: number) => () => void;

/** What a pool needs: how to start a sandbox, how many to keep at most, a clock and a timer. */
export type PoolOptions = {
  /** Starts one sandbox with the runner's settings; undefined when it cannot. */
  start: () => Promise<Sandbox | undefined>;
  /** The most sandboxes kept waiting; 0 keeps none. */
  max: number;
  /** Milliseconds of a monotonic clock; `performance.now` by default. */
  now?: () => number;
  /** Arms the idle timer; an unreferenced `setTimeout` by default. */
  schedule?: Schedule;
};

function unreferenced(run: () => void, ms: number): () => void {
  const id = setTimeout(run, ms);
  Deno.unrefTimer(id);
  return () => clearTimeout(id);
}

/** Sandboxes started ahead (see the module doc). */
export class SandboxPool {
  readonly #start: () => Promise<Sandbox | undefined>;
  readonly #max: number;
  readonly #now: () => number;
  readonly #schedule: Schedule;
  #entries: Entry[] = [];
  #starting: Entry | undefined;
  #target = 1;
  #lastTake = Number.NEGATIVE_INFINITY;
  #cancelIdle: (() => void) | undefined;
  #cancelQuiet: (() => void) | undefined;
  #active = 0;
  #lastEnd = Number.NEGATIVE_INFINITY;
  readonly #disposing = new Set<Promise<unknown>>();
  #retired = false;

  /** Makes an empty pool; starts nothing. */
  constructor(options: PoolOptions) {
    this.#start = options.start;
    this.#max = options.max;
    this.#now = options.now ?? (() => performance.now());
    this.#schedule = options.schedule ?? unreferenced;
  }

  /** Sandboxes started and waiting (ready or still starting). */
  get size(): number {
    return this.#entries.length;
  }

  /** How many are ready for a program now. */
  get ready(): number {
    return this.#entries.filter((entry) => entry.sandbox?.isReady === true).length;
  }

  /** How many the pool keeps waiting now. */
  get target(): number {
    return Math.min(this.#target, this.#max);
  }

  /** A run began: no sandbox starts until runs are over and quiet. */
  enter(): void {
    this.#active++;
    this.#cancelQuiet?.();
    this.#cancelQuiet = undefined;
  }

  /** A run ended (its sandbox disposed): once quiet, the pool fills again. */
  leave(): void {
    this.#active = Math.max(0, this.#active - 1);
    this.#lastEnd = this.#now();
    this.fill();
  }

  /**
   * Starts the next sandbox, unless one is starting, the target wait, or a
   * run is in flight or just ended (then it tries again once quiet).
   */
  fill(): void {
    if (this.#retired || this.#starting !== undefined) return;
    if (this.#entries.length >= this.target || this.#active > 0) return;
    const quietFor = this.#now() - this.#lastEnd;
    if (quietFor < POOL_QUIET_MS) {
      this.#cancelQuiet ??= this.#schedule(() => {
        this.#cancelQuiet = undefined;
        this.fill();
      }, POOL_QUIET_MS - quietFor);
      return;
    }
    this.#startOne();
  }

  /**
   * Starts one sandbox now, whatever runs are in flight, when none waits or
   * starts and programs have come faster than sandboxes start.
   */
  #refillEmpty(): void {
    if (this.#retired || this.#starting !== undefined || this.target < 2) return;
    if (this.#entries.length === 0) this.#startOne();
  }

  #startOne(): void {
    const entry: Entry = { promise: this.#start(), sandbox: undefined };
    this.#starting = entry;
    entry.promise = entry.promise.then(async (sandbox) => {
      if (sandbox === undefined || this.#retired) {
        this.#drop(entry);
        await sandbox?.dispose();
        return undefined;
      }
      entry.sandbox = sandbox;
      // The next starts once this one is ready (or could not be).
      sandbox.ready.then(() => this.#started(entry));
      return sandbox;
    }, () => {
      this.#drop(entry);
      return undefined;
    });
    this.#entries.push(entry);
  }

  /**
   * The sandbox for the next program, which the caller then owns: the first
   * one ready, else the oldest still starting, else undefined (none waits).
   * Taking none ready raises the target (but for the first take after a
   * pause).
   */
  async take(): Promise<Sandbox | undefined> {
    const now = this.#now();
    const paused = now - this.#lastTake > POOL_IDLE_MS;
    if (paused) this.#target = 1;
    this.#lastTake = now;
    // A sandbox that died waiting (killed, out of memory) is disposed, not counted.
    for (const entry of this.#entries.filter((each) => each.sandbox?.usable === false)) {
      this.#drop(entry);
      this.#keepDisposing(this.#dispose(entry));
    }
    let index = this.#entries.findIndex((entry) => entry.sandbox?.isReady === true);
    if (index < 0) {
      if (!paused) this.#target = Math.min(this.#max, this.#target + 1);
      index = 0;
    }
    this.#armIdle();
    while (index < this.#entries.length) {
      const [entry] = this.#entries.splice(index, 1) as [Entry];
      if (entry === this.#starting) this.#starting = undefined;
      this.#refillEmpty();
      const sandbox = await entry.promise;
      if (sandbox?.usable) return sandbox;
      await sandbox?.dispose();
      index = 0;
    }
    return undefined;
  }

  /** Disposes every sandbox still waiting; later fills start none. Idempotent. */
  async retire(): Promise<void> {
    this.#retired = true;
    this.#cancelIdle?.();
    this.#cancelIdle = undefined;
    this.#cancelQuiet?.();
    this.#cancelQuiet = undefined;
    const entries = this.#entries;
    this.#entries = [];
    await Promise.all([...entries.map((entry) => this.#dispose(entry)), ...this.#disposing]);
  }

  // A disposal retire() waits for.
  #keepDisposing(disposed: Promise<void>): void {
    this.#disposing.add(disposed);
    disposed.finally(() => this.#disposing.delete(disposed));
  }

  #dispose(entry: Entry): Promise<void> {
    return entry.promise.then((sandbox) => sandbox?.dispose(), () => {});
  }

  #started(entry: Entry): void {
    if (this.#starting === entry) this.#starting = undefined;
    this.fill();
  }

  // A timer only while the pool holds more than one: at its end, one is kept.
  #armIdle(): void {
    this.#cancelIdle?.();
    this.#cancelIdle = undefined;
    if (this.#retired || this.target <= 1) return;
    this.#cancelIdle = this.#schedule(() => {
      this.#cancelIdle = undefined;
      this.#target = 1;
      const extra = this.#entries.splice(1);
      if (this.#starting !== undefined && extra.includes(this.#starting)) {
        this.#starting = undefined;
      }
      for (const entry of extra) this.#keepDisposing(this.#dispose(entry));
    }, POOL_IDLE_MS);
  }

  #drop(entry: Entry): void {
    if (this.#starting === entry) this.#starting = undefined;
    const index = this.#entries.indexOf(entry);
    if (index >= 0) this.#entries.splice(index, 1);
  }
}
