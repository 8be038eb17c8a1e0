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
 * one, and the first run after `POOL_IDLE_MS` without any sets it back to
 * one (and is no miss itself: the first run of a harness starts its own), so
 * a harness that bursts keeps what its bursts need and an idle one keeps one.
 * No clock runs between runs: the target moves only when a run takes a
 * sandbox.
 *
 * Lifecycle: the pool owns every sandbox it started until {@linkcode
 * SandboxPool.take} hands one to a run (which then owns it) or
 * {@linkcode SandboxPool.retire} disposes them. Nothing starts before the
 * first {@linkcode SandboxPool.fill}.
 *
 * @module
 */

import type { Sandbox } from "./_sandbox.ts";
import { POOL_IDLE_MS } from "./slots.ts";

type Entry = { promise: Promise<Sandbox | undefined>; sandbox: Sandbox | undefined };

/** What a pool needs: how to start a sandbox, how many to keep at most, and a clock. */
export type PoolOptions = {
  /** Starts one sandbox with the runner's settings; undefined when it cannot. */
  start: () => Promise<Sandbox | undefined>;
  /** The most sandboxes kept waiting; 0 keeps none. */
  max: number;
  /** Milliseconds of a monotonic clock; `performance.now` by default. */
  now?: () => number;
};

/** Sandboxes started ahead (see the module doc). */
export class SandboxPool {
  readonly #start: () => Promise<Sandbox | undefined>;
  readonly #max: number;
  readonly #now: () => number;
  #entries: Entry[] = [];
  #target = 1;
  #lastTake = Number.NEGATIVE_INFINITY;
  #retired = false;

  /** Makes an empty pool; starts nothing. */
  constructor(options: PoolOptions) {
    this.#start = options.start;
    this.#max = options.max;
    this.#now = options.now ?? (() => performance.now());
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

  /** Starts sandboxes until the target wait. */
  fill(): void {
    while (!this.#retired && this.#entries.length < this.target) {
      const entry: Entry = { promise: this.#start(), sandbox: undefined };
      entry.promise = entry.promise.then((sandbox) => {
        if (sandbox === undefined) this.#drop(entry);
        else if (this.#retired) return sandbox.dispose().then(() => undefined);
        entry.sandbox = sandbox;
        return sandbox;
      }, () => {
        this.#drop(entry);
        return undefined;
      });
      this.#entries.push(entry);
    }
  }

  /**
   * The sandbox for the next program, which the caller then owns: the first
   * one ready, else the oldest still starting, else undefined (none waits).
   * Taking none ready raises the target; the first take after
   * {@linkcode POOL_IDLE_MS} resets it to one first.
   */
  async take(): Promise<Sandbox | undefined> {
    const now = this.#now();
    // The first run after a pause is no sign of demand: the pool was idle.
    const paused = now - this.#lastTake > POOL_IDLE_MS;
    if (paused) this.#target = 1;
    this.#lastTake = now;
    let index = this.#entries.findIndex((entry) => entry.sandbox?.isReady === true);
    if (index < 0) {
      if (!paused) this.#target = Math.min(this.#max, this.#target + 1);
      index = 0;
    }
    while (index < this.#entries.length) {
      const [entry] = this.#entries.splice(index, 1) as [Entry];
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
    const entries = this.#entries;
    this.#entries = [];
    await Promise.all(entries.map(async (entry) => {
      const sandbox = await entry.promise.catch(() => undefined);
      await sandbox?.dispose();
    }));
  }

  #drop(entry: Entry): void {
    const index = this.#entries.indexOf(entry);
    if (index >= 0) this.#entries.splice(index, 1);
  }
}
