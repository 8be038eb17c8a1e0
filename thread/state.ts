/**
 * Where a client is in its life: the states of the one state machine, which
 * runs in the worker, and which the main thread's handle reports.
 *
 * @module
 */

/**
 * Where a client is in its life, on either side of the worker boundary:
 * `parked` (nothing spawned), `connecting`, `ready`, `failed` (its start),
 * `dead` (its server was lost), `retiring`, `retired`.
 */
export type ClientState =
  | "parked"
  | "connecting"
  | "ready"
  | "failed"
  | "dead"
  | "retiring"
  | "retired";
