/**
 * The supervised restart of a server, opt-in per server: its policy in a
 * `ServerSpec` (`restart: { max, backoffMs }`), the defaults of its
 * fields and the backoff it waits. The client's supervisor
 * (`client/supervisor.ts`) runs it, by the one rule that authorizes a
 * replacement.
 *
 * @module
 */

/** How a server that died is started again: at most `max` attempts, backing off from `backoffMs`. */
export type RestartPolicy = {
  /** The most attempts in a row ({@linkcode DEFAULT_RESTART_MAX} when absent); a failed start counts. */
  max?: number;
  /** The wait before the first attempt, doubled for each next one, in ms ({@linkcode DEFAULT_RESTART_BACKOFF_MS}). */
  backoffMs?: number;
};

/** A {@linkcode RestartPolicy} with its defaults written out. */
export type ResolvedRestartPolicy = { max: number; backoffMs: number };

/** Attempts in a row when a policy does not say: 3. */
export const DEFAULT_RESTART_MAX = 3;
/** The first backoff when a policy does not say, in ms: 500. */
export const DEFAULT_RESTART_BACKOFF_MS = 500;
/** The most attempts in a row a policy may ask for: 100. */
export const MAX_RESTART_ATTEMPTS = 100;
/** The longest a backoff grows to, however many attempts came before, in ms: 30 s. */
export const RESTART_BACKOFF_CAP_MS = 30_000;
/**
 * How long a generation must have been ready for its death to start a new
 * count of attempts, in ms: 60 s. A server that dies soon after each start
 * uses up its attempts; one that dies once an hour is always restarted.
 */
export const RESTART_STABLE_MS = 60_000;

/** Writes out the defaults of a policy's absent fields. */
export function resolveRestart(policy: RestartPolicy): ResolvedRestartPolicy {
  return {
    max: policy.max ?? DEFAULT_RESTART_MAX,
    backoffMs: policy.backoffMs ?? DEFAULT_RESTART_BACKOFF_MS,
  };
}

/**
 * The wait before attempt `attempt` (1 for the first), in ms: `backoffMs`
 * doubled for each attempt before it, at most {@linkcode RESTART_BACKOFF_CAP_MS}.
 *
 * @example The waits of the default policy
 * ```ts
 * import { restartDelay } from "@loom/mcp/client";
 * const policy = { max: 3, backoffMs: 500 };
 * console.log([1, 2, 3].map((n) => restartDelay(policy, n))); // [500, 1000, 2000]
 * ```
 */
export function restartDelay(policy: ResolvedRestartPolicy, attempt: number): number {
  const doubled = policy.backoffMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(doubled, Math.max(RESTART_BACKOFF_CAP_MS, policy.backoffMs));
}
