/**
 * The bounds of a gateway session: how much of a call's arguments an
 * approval shows, how long a 2026-07-28 host may take to come back with
 * what a parked run asked, and how many runs may wait so.
 *
 * @module
 */

/**
 * Characters of a call's arguments (as JSON) an approval's message quotes
 * before it cuts them with `…`: 400.
 */
export const MAX_APPROVAL_ARGS_CHARS = 400;

/**
 * How long, in milliseconds, a run parked on an `input_required` result
 * (a 2026-07-28 host asked for an approval or an elicitation) waits for the
 * host to retry with its answers before the question is taken as declined:
 * 10 minutes, as long as a person may take to answer.
 */
export const PARKED_RUN_TIMEOUT_MS = 600_000;

/**
 * Runs parked on an `input_required` result at once (a 2026-07-28 host was
 * asked, and its retry has not come), per gateway session: 16. A run that
 * asks nothing, or whose retry is being served, is not counted. When one
 * more must park, the run parked longest ago is given up: its questions are
 * answered as unanswered, it is stopped, and its retry is told so.
 *
 * Over HTTP every 2026-07-28 host shares one session, and so this bound:
 * such a host has no session, and nothing it sends tells it from another
 * (the bearer token is the server's, its address is loopback, its
 * `clientInfo` is whatever it claims). Giving up the oldest keeps the share
 * fair without knowing who is who: a host whose runs wait unanswered cannot
 * keep another's newer run from asking, since the runs that have waited
 * longest go first, whoever's they are. A host that parks runs faster than
 * others answer theirs can still push theirs out: only a session, which a
 * 2026-07-28 host does not open, would tell them apart.
 */
export const MAX_PARKED_RUNS = 16;

/**
 * Runs under way at once per gateway session, parked ones included: 64. A
 * `run_program` past it is answered at once with an `isError` result saying
 * to wait for one to end (each run waiting for a sandbox holds its program,
 * up to `MAX_PROGRAM_BYTES`: 100 programs of 1 MB at once held 447 MB). Over
 * HTTP every 2026-07-28 host shares one session, and so this bound.
 */
export const MAX_SESSION_RUNS = 64;

/**
 * How long a 2026-07-28 host may reuse the gateway's `tools/list` and
 * `server/discover` answers (`ttlMs`): 0, since `run_program`'s description
 * follows the servers' listings as they change; each listing is made
 * without touching a server, so asking again is cheap.
 */
export const GATEWAY_LISTING_TTL_MS = 0;

/**
 * How often, in milliseconds, a 2025 host's session compares the surface
 * behind `run_program`'s description with the one it last listed, and sends
 * `notifications/tools/list_changed` when they differ: 1 s, as often as the
 * harness lists a server again at most (`MIN_RELIST_INTERVAL_MS`).
 */
export const SURFACE_CHECK_INTERVAL_MS = 1_000;

/**
 * Characters of a downstream server's elicitation message that the host is
 * shown, quoted, before the rest is cut with `…`: 2,000. The message is the
 * server's text, put to the host's user under the gateway's name.
 */
export const MAX_FORWARDED_MESSAGE_CHARS = 2_000;
