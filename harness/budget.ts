/**
 * The surface budget: how many bytes of the model's context the surface may
 * take. A harness whose servers' blocks fit shows them whole; past the
 * budget the surface is an index of the servers with as many tool names as
 * fit, and the model finds the rest with `search` and `describe`.
 *
 * @module
 */

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
