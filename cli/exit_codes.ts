/**
 * The exit statuses of the `loom-mcp` command line, for scripts that run it.
 *
 * @example Tell a usage mistake from a failed server
 * ```ts
 * import { EXIT_FAILED, EXIT_USAGE } from "@loom/mcp/cli";
 * console.log(EXIT_FAILED, EXIT_USAGE); // 1 2
 * ```
 *
 * @module
 */

/** Exit status when everything worked. */
export const EXIT_OK = 0;
/** Exit status when a server failed to start, list or retire, or a call failed. */
export const EXIT_FAILED = 1;
/** Exit status for a usage mistake or a catalog that cannot be used. */
export const EXIT_USAGE = 2;
/**
 * Exit status when everything else worked but the catalog skipped entries
 * that are enabled (malformed, not servable, unexpanded): the file does not
 * do all it says. An entry the file disables is no such entry.
 * `--allow-skipped` makes it {@linkcode EXIT_OK}.
 */
export const EXIT_SKIPPED = 3;
/**
 * Exit status when a catalog file found in the project folder (not named)
 * was not trusted: refused without a terminal and without `--trust`, or
 * declined at the question. Nothing was started.
 */
export const EXIT_UNTRUSTED = 4;
/** Exit status of a command stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;
