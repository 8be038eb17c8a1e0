/**
 * The bounds of the Streamable HTTP server transport: how large a request's
 * body may be, how long it may take to arrive and how many of its bytes may
 * wait across connections, how many sessions and requests it holds at once,
 * and how much may wait unread on one event stream.
 *
 * @module
 */

/**
 * The most bytes a POST's body may hold: 16 MiB, as a stdio line may. A
 * larger one is refused with 413 before it is read past the bound.
 */
export const MAX_HTTP_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of request bodies being read at once, across every connection: 64
 * MiB, four bodies of the largest size. A body's declared `Content-Length`
 * is counted from the start of its read (a chunked one as its bytes come),
 * until it has been read; one that would pass the bound is refused with 503
 * before it is read further, so that clients holding bodies open cannot make
 * the server buffer more.
 */
export const MAX_HTTP_BUFFERED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * How long, in milliseconds, a POST's body may take to arrive once its
 * headers have: 10 seconds. A host sends one JSON-RPC message at once, and a
 * body of `MAX_HTTP_BODY_BYTES` arrives within it at 14 Mbit/s. A body not
 * whole by then (one that stops, or says a longer `Content-Length` than it
 * sends) is answered 408 with `Connection: close`, and its bytes are let go.
 * `listenHttp`'s `bodyTimeoutMs` sets another.
 */
export const HTTP_BODY_TIMEOUT_MS = 10_000;

/**
 * How long, in milliseconds, `close()` lets the responses it just ended
 * (closed streams, cancellations, answers being written) finish sending
 * before it closes every connection: 2 seconds. A connection the server
 * cannot reuse (its body left unread) never closes by itself, so a close
 * that waited for it would wait for its client.
 */
export const HTTP_CLOSE_GRACE_MS = 2_000;

/**
 * Legacy-era sessions (2025-03-26 to 2025-11-25) open at once: 64. An
 * `initialize` past it ends the least recently used session that has no
 * request in flight and no GET stream open (its id is then 404, and its
 * client opens a new one); when every session is in use, it is refused with
 * 503. A 2026-07-28 request opens none.
 */
export const MAX_HTTP_SESSIONS = 64;

/**
 * Requests being answered at once, across every session: 256. One past it
 * is refused with 503 and never reaches the handler.
 */
export const MAX_HTTP_REQUESTS_IN_FLIGHT = 256;

/**
 * Bytes that may wait unread on one event stream (a request's, or a
 * session's GET stream): 4 MiB. A client that reads slower than the server
 * sends loses the stream: a request's stream ends and the request is
 * cancelled; a GET stream ends and may be opened again.
 */
export const MAX_STREAM_BACKLOG_BYTES = 4 * 1024 * 1024;

/**
 * Bytes of random in a token the server makes when none is given: 32,
 * written as 43 base64url characters.
 */
export const GENERATED_TOKEN_BYTES = 32;

/** The shortest token a caller may give: 16 characters. */
export const MIN_TOKEN_CHARS = 16;
