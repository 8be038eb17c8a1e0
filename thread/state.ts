/**
 * Where a client is in its life: the states of the one state machine, which
 * runs in the worker, and which the main thread's handle reports.
 *
 * @module
 */

/**
 * Every {@linkcode ClientState}, in the order of a client's life: `parked`
 * (nothing spawned), `connecting`, `ready`, `failed` (its start), `dead`
 * (its server was lost), `retiring`, `retired`.
 */
export const CLIENT_STATES = [
  "parked",
  "connecting",
  "ready",
  "failed",
  "dead",
  "retiring",
  "retired",
] as const;

/** Where a client is in its life, on either side of the worker boundary. */
export type ClientState = (typeof CLIENT_STATES)[number];
