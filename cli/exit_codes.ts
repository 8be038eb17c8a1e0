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
/** Exit status of a command stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;
