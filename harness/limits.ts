/**
 * The bounds of what a harness does on its own: how often it lists a server
 * again, what it keeps of a denial's reason, and the surface budget (how many
 * bytes of the model's context the surface may take: a harness whose
 * servers' blocks fit shows them whole; past the budget the smallest are
 * shown whole beside an index of the rest). Each is a bound a server (or a
 * hook) cannot move.
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

/**
 * The surface budget of `boot` by default, in UTF-8 bytes: 16 KiB, about
 * 4,000 tokens, a few percent of a model's context.
 */
export const DEFAULT_SURFACE_BUDGET_BYTES = 16 * 1024;

/**
 * The least surface budget `boot` accepts, in UTF-8 bytes: 4 KiB, what the
 * program convention and the discovery instructions need with room to spare.
 * An index always fits a budget this large or larger.
 */
export const MIN_SURFACE_BUDGET_BYTES = 4 * 1024;

/** The most characters of a server's description its index line keeps. */
export const MAX_SERVER_NOTE_CHARS = 120;
