/**
 * A cap on the sandboxes that run at once: each run (its type check and its
 * sandbox process) holds one slot; the rest wait in order. A harness keeps
 * one per harness, so that many concurrent runs cannot exhaust the machine
 * (each sandbox is a Deno process of up to its heap cap plus the runtime).
 *
 * @module
 */

import { DEFAULT_MAX_SANDBOXES } from "./limits.ts";

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
