/**
 * The bounds of a serve loop: how many calls wait, how long a full queue may
 * stall before the loop reads on, how many abandoned runs it tolerates, and
 * how much of its replies may wait for a slow reader.
 *
 * @module
 */

/**
 * Tool calls read but not yet started at which the loop stops reading until
 * one starts: 1,024. Past it while the queue is stalled
 * ({@linkcode QUEUE_STALL_MS}), a call is refused with {@linkcode SERVER_BUSY}.
 */
export const MAX_QUEUED_CALLS = 1024;

/**
 * How long a full queue may go without a call starting before the loop reads
 * on (answering pings, obeying cancellations, refusing calls past the bound
 * with {@linkcode SERVER_BUSY}) instead of waiting: 1 s.
 */
export const QUEUE_STALL_MS = 1_000;

/**
 * Characters of the request lines of calls waiting to start (one per byte
 * of ASCII) at which the loop stops reading until a call starts, as at
 * {@linkcode MAX_QUEUED_CALLS}: 32 Mi, two lines of `MAX_LINE_BYTES`.
 */
export const MAX_QUEUED_CHARS = 32 * 1024 * 1024;

/**
 * Cancelled runs still going past their grace (abandoned) at which no call
 * starts: 8. Each may hold what its tool holds (sockets, children); until
 * one returns, every call is answered {@linkcode SERVER_BUSY}.
 */
export const MAX_ABANDONED_CALLS = 8;

/**
 * The JSON-RPC error code of a `tools/call` refused for a bound
 * ({@linkcode MAX_QUEUED_CALLS}, {@linkcode MAX_QUEUED_CHARS},
 * {@linkcode MAX_ABANDONED_CALLS}): -32005, in the range JSON-RPC 2.0 leaves
 * to servers (EIP-1474 gives it "limit exceeded"). The call never ran; sent
 * again once earlier calls are answered, it can succeed.
 */
export const SERVER_BUSY: number = -32005;

/** Reply bytes waiting for the channel past which the loop stops reading: 1 MiB. */
export const MAX_UNSENT_BYTES = 1024 * 1024;
