/**
 * The monotonic clock a client's deadlines run on. Production uses timers;
 * tests inject {@linkcode ManualClock} and move time by hand, so no test of a
 * deadline ever sleeps.
 *
 * @module
 */

/** A cancellable timer handle. */
export type TimerHandle = { readonly id: ReturnType<typeof setTimeout> | number };

/** A monotonic clock with one-shot timers. */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences mean anything). */
  now(): number;
  /** Runs `callback` once, `delayMs` from now. */
  setTimer(delayMs: number, callback: () => void): TimerHandle;
  /** Cancels a timer; cancelling a fired or cancelled timer does nothing. */
  clearTimer(handle: TimerHandle): void;
}

/**
 * The real clock: `performance.now()` and `setTimeout`.
 *
 * @example Time a deadline
 * ```ts
 * import { systemClock } from "./clock.ts";
 * const timer = systemClock.setTimer(10, () => console.log("late"));
 * systemClock.clearTimer(timer);
 * ```
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (delayMs, callback) => ({ id: setTimeout(callback, Math.max(0, delayMs)) }),
  clearTimer: (handle) => clearTimeout(handle.id),
};

/**
 * A clock that moves only when told, for tests. Timers due at the same
 * instant fire in the order they were set.
 *
 * @example Fire a timer without waiting
 * ```ts
 * import { ManualClock } from "./clock.ts";
 * const clock = new ManualClock();
 * let fired = false;
 * clock.setTimer(1_000, () => fired = true);
 * clock.advance(1_000);
 * console.log(fired); // true
 * ```
 */
export class ManualClock implements Clock {
  #now = 0;
  #next = 1;
  #timers = new Map<number, { at: number; callback: () => void }>();

  /** The current time. */
  now(): number {
    return this.#now;
  }

  /** Schedules `callback` at `now() + delayMs`. */
  setTimer(delayMs: number, callback: () => void): TimerHandle {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + Math.max(0, delayMs), callback });
    return { id };
  }

  /** Cancels a timer. */
  clearTimer(handle: TimerHandle): void {
    if (typeof handle.id === "number") this.#timers.delete(handle.id);
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let dueId: number | undefined;
      let dueAt = Infinity;
      for (const [id, timer] of this.#timers) {
        if (timer.at <= target && timer.at < dueAt) {
          dueId = id;
          dueAt = timer.at;
        }
      }
      if (dueId === undefined) break;
      const timer = this.#timers.get(dueId);
      this.#timers.delete(dueId);
      this.#now = dueAt;
      timer?.callback();
    }
    this.#now = target;
  }
}
