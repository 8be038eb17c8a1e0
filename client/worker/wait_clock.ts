/**
 * A clock whose timers wait on `Atomics.waitAsync`, for the client worker.
 *
 * Why not `setTimeout`: in Deno 2.9 the first `setTimeout` of an isolate
 * loads the runtime's Node-compatible timer modules, which costs every new
 * worker about 8 ms of CPU before its server can even be spawned (measured:
 * `tests/bench/sdk_bench.ts`, BENCHMARKS.md). `Atomics.waitAsync` with a
 * timeout is a V8 built-in and loads nothing.
 *
 * One wait is armed at a time, for the earliest live deadline; timers live in
 * a binary heap ordered by deadline, then by the order they were set.
 * Cancelling only forgets a timer: a cancelled entry is dropped when it
 * reaches the top, or when cancelled entries outnumber live ones, so calls
 * that settle long before their deadline cost no wake-up at all.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../transport/clock.ts";

type Entry = { id: number; at: number; callback: () => void };

/** Cancelled entries kept before the heap is rebuilt from the live ones. */
const SLACK = 64;

function earlier(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

/**
 * Timers on `Atomics.waitAsync`, with `performance.now()` as the time. Where
 * the runtime has no `Atomics.waitAsync`, `setTimeout` arms the wait instead.
 *
 * @example Run a callback after 5 ms
 * ```ts
 * import { WaitClock } from "./wait_clock.ts";
 * const clock = new WaitClock();
 * const keep = setTimeout(() => {}, 100); // a timer-less script would end first
 * clock.setTimer(5, () => {
 *   clearTimeout(keep);
 *   console.log("due");
 * });
 * ```
 */
export class WaitClock implements Clock {
  #cell = new Int32Array(new SharedArrayBuffer(4));
  #heap: Entry[] = [];
  #live = new Map<number, Entry>();
  #next = 1;
  /** When the armed wait ends, or Infinity when none is armed. */
  #armedAt = Infinity;
  /** Bumped on every arming, so a superseded wait that ends does nothing. */
  #generation = 0;
  #firing = false;
  #fallback: ReturnType<typeof setTimeout> | undefined;

  /** Milliseconds on a monotonic scale. */
  now(): number {
    return performance.now();
  }

  /** Runs `callback` once, `delayMs` from now (a negative or NaN delay is 0). */
  setTimer(delayMs: number, callback: () => void): TimerHandle {
    const id = this.#next++;
    const delay = delayMs > 0 ? delayMs : 0;
    const entry: Entry = { id, at: this.now() + delay, callback };
    this.#live.set(id, entry);
    this.#push(entry);
    // While due timers run, the wait is armed once they are done.
    if (!this.#firing && entry.at < this.#armedAt) this.#arm(entry.at);
    return { id };
  }

  /** Cancels a timer; cancelling a fired or cancelled timer does nothing. */
  clearTimer(handle: TimerHandle): void {
    if (typeof handle.id !== "number" || !this.#live.delete(handle.id)) return;
    if (this.#heap.length > 2 * this.#live.size + SLACK) this.#rebuild();
    // A fallback timeout would keep the event loop alive for nothing; an
    // armed wait costs nothing while pending, so it is left to end.
    if (this.#live.size === 0 && this.#fallback !== undefined) {
      ++this.#generation;
      this.#disarm();
      this.#armedAt = Infinity;
    }
  }

  /** Timers set and not yet fired or cancelled. */
  get pending(): number {
    return this.#live.size;
  }

  #arm(at: number): void {
    const generation = ++this.#generation;
    if (this.#armedAt !== Infinity) this.#disarm();
    this.#armedAt = at;
    const delay = Math.max(0, at - this.now());
    if (typeof Atomics.waitAsync !== "function") {
      this.#fallback = setTimeout(() => this.#fire(generation), delay);
      return;
    }
    const wait = Atomics.waitAsync(this.#cell, 0, 0, delay);
    if (wait.async) void wait.value.then(() => this.#fire(generation));
    else queueMicrotask(() => this.#fire(generation));
  }

  /** Ends the armed wait early; its generation is stale, so it fires nothing. */
  #disarm(): void {
    if (this.#fallback !== undefined) {
      clearTimeout(this.#fallback);
      this.#fallback = undefined;
      return;
    }
    Atomics.notify(this.#cell, 0);
  }

  #fire(generation: number): void {
    if (generation !== this.#generation) return;
    this.#armedAt = Infinity;
    this.#fallback = undefined;
    this.#firing = true;
    const now = this.now();
    try {
      for (;;) {
        const top = this.#heap[0];
        if (top === undefined) break;
        if (!this.#live.has(top.id)) {
          this.#pop();
          continue;
        }
        if (top.at > now) break;
        this.#pop();
        this.#live.delete(top.id);
        try {
          top.callback();
        } catch (error) {
          // Reported as setTimeout would, without stopping the other timers.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    } finally {
      this.#firing = false;
    }
    const next = this.#heap[0];
    if (next !== undefined) this.#arm(next.at);
  }

  #rebuild(): void {
    this.#heap = [...this.#live.values()].sort((a, b) => earlier(a, b) ? -1 : 1);
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    let index = heap.push(entry) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as Entry;
      if (!earlier(entry, above)) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && earlier(heap[right] as Entry, heap[left] as Entry)
        ? right
        : left;
      if (!earlier(heap[child] as Entry, last)) break;
      heap[index] = heap[child] as Entry;
      index = child;
    }
    heap[index] = last;
  }
}
