/**
 * A cap on the sandboxes that run at once: each run (its type check and its
 * sandbox process) holds one slot; the rest wait in order. A harness keeps
 * one per harness, so that many concurrent runs cannot exhaust the machine
 * (each sandbox is a Deno process of up to its heap cap plus the runtime).
 *
 * @module
 */

import { SANDBOXES_PER_CPU, WARM_SANDBOXES_PER_CPU } from "./limits.ts";

/** Sandboxes a harness runs at once by default: {@linkcode SANDBOXES_PER_CPU} per CPU. */
export const DEFAULT_MAX_SANDBOXES: number = SANDBOXES_PER_CPU *
  Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1);

/**
 * The most sandboxes a harness keeps started ahead by default:
 * {@linkcode WARM_SANDBOXES_PER_CPU} per CPU. One waits while programs come
 * one at a time; programs back to back or at once raise how many wait, up to
 * this (each waiting sandbox holds about 50 MB), and a minute without
 * programs ({@linkcode POOL_IDLE_MS}) lowers it to one again.
 */
export const DEFAULT_WARM_SANDBOXES: number = WARM_SANDBOXES_PER_CPU *
  Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1);

/**
 * How long after the last run ends, with none in flight, before a sandbox
 * starts ahead, in milliseconds: 25. Programs back to back (a loop, an
 * evaluation) follow each other more closely than that, so their burst does
 * not share the machine with sandboxes starting.
 */
export const POOL_QUIET_MS = 25;

/**
 * How long without a run before a harness keeps one sandbox started ahead
 * again instead of what its last burst of runs needed, in milliseconds: 60 s.
 */
export const POOL_IDLE_MS = 60_000;

/** What waiting for a slot came to: a release function, or why there is none. */
export type SlotGrant =
  | { kind: "granted"; release: () => void }
  | { kind: "timed_out" }
  | { kind: "aborted" };

/**
 * Slots for concurrent sandboxes, granted first come, first served.
 *
 * @example Hold a slot around one run
 * ```ts
 * import { SandboxSlots } from "@loom/mcp";
 * const slots = new SandboxSlots(2);
 * const grant = await slots.acquire(1_000);
 * if (grant.kind === "granted") grant.release();
 * console.log(slots.active); // 0
 * ```
 */
export class SandboxSlots {
  /** How many slots there are. */
  readonly limit: number;
  #active = 0;
  readonly #queue: (() => boolean)[] = [];

  /** Throws `RangeError` unless `limit` is a positive integer. */
  constructor(limit: number = DEFAULT_MAX_SANDBOXES) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`Cannot cap sandboxes: the limit ${limit} is not a positive integer`);
    }
    this.limit = limit;
  }

  /** Slots held now. */
  get active(): number {
    return this.#active;
  }

  /** Runs waiting for a slot now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Waits for a slot, at most `timeoutMs` and until `signal` aborts. A
   * granted slot must be released exactly once; releasing twice does nothing.
   */
  acquire(timeoutMs: number, signal?: AbortSignal): Promise<SlotGrant> {
    if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
    if (this.#active < this.limit && this.#queue.length === 0) {
      this.#active++;
      return Promise.resolve(this.#grant());
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (grant: SlotGrant): void => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(grant);
      };
      // Called when a slot frees; false when this waiter already gave up.
      const take = (): boolean => {
        if (settled) return false;
        this.#active++;
        finish(this.#grant());
        return true;
      };
      const leave = (kind: "timed_out" | "aborted"): void => {
        const index = this.#queue.indexOf(take);
        if (index >= 0) this.#queue.splice(index, 1);
        finish({ kind });
      };
      const onAbort = (): void => leave("aborted");
      const timer = setTimeout(() => leave("timed_out"), Math.max(0, timeoutMs));
      signal?.addEventListener("abort", onAbort);
      this.#queue.push(take);
    });
  }

  #grant(): SlotGrant {
    let released = false;
    return {
      kind: "granted",
      release: () => {
        if (released) return;
        released = true;
        this.#active--;
        while (this.#queue.length > 0 && this.#active < this.limit) {
          if ((this.#queue.shift() as () => boolean)()) break;
        }
      },
    };
  }
}
