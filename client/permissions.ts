/**
 * How a client's worker runs: with least privilege, or inheriting the
 * harness's permissions.
 *
 * @module
 */

/**
 * How client workers run: `"least"` grants each worker only what it needs
 * (running its one command, or reaching its one host), which needs Deno's
 * `--unstable-worker-options`; `"inherit"` gives it the harness's own.
 */
export type WorkerPermissions = "least" | "inherit";
