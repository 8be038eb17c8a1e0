/**
 * The limits and default deadlines a client runs under: the census and the
 * catalog check against them, and a client's worker runs by them.
 *
 * @module
 */

/** Default deadline for a server's start, in milliseconds: 60 s. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
/** Default deadline of one call, in milliseconds: 60 s. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * The deadline of one request to a server (a call, a read, a listing, a
 * ping), in milliseconds: the one the caller gave, else the spec's
 * `callTimeoutMs`, else {@linkcode DEFAULT_CALL_TIMEOUT_MS}. The one place
 * that default is decided: the client and the harness both ask it. The value
 * is not checked here; whoever keeps the deadline refuses a bad one.
 *
 * @example
 * ```ts
 * import { callDeadlineMs } from "./limits.ts";
 * console.log(callDeadlineMs({})); // 60000
 * console.log(callDeadlineMs({ callTimeoutMs: 5_000 })); // 5000
 * console.log(callDeadlineMs({ callTimeoutMs: 5_000 }, 200)); // 200
 * ```
 */
export function callDeadlineMs(spec: { callTimeoutMs?: number }, given?: number): number {
  return given ?? spec.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
}
/** Default deadline of a whole retirement, in milliseconds: 5 s. */
export const DEFAULT_RETIREMENT_TIMEOUT_MS = 5_000;
/**
 * Time a worker is given beyond its own deadlines (a start's: handshake plus
 * cleanup; a retirement's) before the main thread declares it lost, in
 * milliseconds.
 */
export const WORKER_GRACE_MS = 2_000;
/** The bytes of a server's stderr kept, per server: 64 KiB, oldest dropped first. */
export const STDERR_TAIL_BYTES = 64 * 1024;
/**
 * The longest deadline anything takes, in milliseconds: 2^31 − 1 (about 24.8
 * days), the most a timer can wait; a longer one would fire at once.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/**
 * The first wait, in milliseconds, before a 2026-07-28 session opens again
 * the listen for list changes that its server ended; each wait after doubles.
 */
export const LIST_LISTEN_BACKOFF_MS = 250;
/** The longest wait, in milliseconds, between reopenings of a listen for list changes. */
export const MAX_LIST_LISTEN_BACKOFF_MS = 30_000;
/**
 * The most a whole `tools/list` listing may weigh, all its pages together, as
 * compact JSON text (counted in characters, one a byte for ASCII): 16 MiB. A
 * client stops following pages past it, or past `MAX_TOOLS` tools, and the
 * listing is refused as `listing_too_large`: a listing the generator would
 * refuse is never held whole. The largest of the 48 real listings the
 * project keeps is 180 KB (notion's).
 */
export const MAX_LISTING_BYTES = 16 * 1024 * 1024;

/**
 * The most bytes of one resource content a client hands back: 8 MiB of text
 * (UTF-8) or of a blob (counted from its base64 length, before anything is
 * decoded); past it the read is refused as `resource_too_large`. Half the
 * line cap: a content crosses as escaped text or base64 within one line.
 */
export const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;
/**
 * The most requests of a server's (elicitation, sampling, roots) a client
 * answers at once: 16. A person answers one elicitation at a time and the
 * rest wait their turn; past it a request is refused at once (-32603), so
 * that a flood costs neither memory nor a queue of questions.
 */
export const MAX_SERVER_REQUESTS_IN_FLIGHT = 16;
/**
 * The most rounds of a 2026-07-28 call whose result asks for input
 * (`input_required`, answered by a retry carrying `inputResponses`): 10,
 * all within the call's deadline; past it the call fails as
 * `result_malformed`, saying so.
 */
export const MAX_INPUT_ROUNDS = 10;
/** The most roots one server is told of (`roots/list`): 256. */
export const MAX_ROOTS = 256;
/** The most characters of a progress or task status message a caller is given: 500. */
export const MAX_PROGRESS_MESSAGE_CHARS = 500;
/** The interval a task is polled at when its server suggests none, in ms: 1 s. */
export const TASK_POLL_DEFAULT_MS = 1_000;
/** The shortest interval a task is polled at, whatever its server suggests, in ms: 100. */
export const TASK_POLL_MIN_MS = 100;
/** The longest interval a task is polled at, whatever its server suggests, in ms: 60 s. */
export const TASK_POLL_MAX_MS = 60_000;
/**
 * The most pages a prompts, resources or resource templates listing follows
 * (`prompts/list`, `resources/list`, `resources/templates/list`): 64, as
 * `MAX_TOOL_PAGES`; past it the listing is refused as `too_many_pages`. Each
 * listing is also held to {@linkcode MAX_LISTING_BYTES} of JSON text.
 */
export const MAX_LIST_PAGES = 64;
/**
 * The most characters of a server's log message data a handler is given, as
 * compact JSON: 8 KiB; longer data is handed on as the start of its text,
 * marked cut.
 */
export const MAX_LOG_DATA_CHARS = 8 * 1024;
/**
 * The log messages a server may send at once before they are rationed: 64.
 * The allowance refills at {@linkcode LOG_MESSAGES_PER_SECOND}; a message past
 * it is dropped in the worker, and the next one handed on says how many were.
 */
export const LOG_MESSAGE_BURST = 64;
/** The log messages per second a server is handed on at, past its burst: 32. */
export const LOG_MESSAGES_PER_SECOND = 32;

/** The longest session id the main thread takes from a worker's report; a longer one is dropped. */
export const MAX_SESSION_ID_CHARS = 1024;

/**
 * The most of what is written to a server's stdin that may wait unread, in
 * UTF-16 units of text and bytes: 64 MiB, four lines of `MAX_LINE_BYTES`.
 * A server that stops reading while it keeps asking (a ping, `roots/list`, a
 * request refused) would otherwise have its answers held without bound; past
 * it the channel ends as `write_failed`, saying so.
 */
export const MAX_UNREAD_STDIN_BYTES = 64 * 1024 * 1024;

/**
 * The most characters of a server's JSON-RPC error message a `server_error`'s
 * message carries: 2,000; the rest is cut, marked with `…` (the whole error
 * stays in its `error`).
 */
export const MAX_SERVER_ERROR_CHARS = 2_000;

/**
 * The longest `elicitationId` of a URL elicitation whose completion
 * (`notifications/elicitation/complete`) a client waits for: 1,024
 * characters; a longer one is asked as any other, and its completion is not
 * heard.
 */
export const MAX_ELICITATION_ID_CHARS = 1024;

/**
 * The most URL elicitations of one client whose completion is waited for at
 * once: 64; past it the oldest is no longer waited for (its `completed`
 * never settles).
 */
export const MAX_AWAITED_COMPLETIONS = 64;
