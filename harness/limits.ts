/**
 * The bounds of what a harness does on its own: how often it lists a server
 * again, and what it keeps of a denial's reason. Each is a bound a server
 * (or a hook) cannot move.
 *
 * @module
 */

/**
 * The least time between two listings of one server, in milliseconds: 1 s.
 * A server that says its tools changed, however often, or whose listing
 * expires at once (`ttlMs: 0`), is listed at most once per interval.
 */
export const MIN_RELIST_INTERVAL_MS = 1_000;

/** The longest reason of a denial kept, in characters: 1,000. */
export const MAX_DENIAL_REASON_CHARS = 1_000;

/**
 * The deadline of the retirement of a server whose start a boot's signal
 * gave up on, in milliseconds: a server still starting has no work to save,
 * so it is stopped promptly (stdin closed, SIGTERM at 40%, SIGKILL at 80%).
 */
export const BOOT_ABORT_RETIREMENT_MS = 1_500;
