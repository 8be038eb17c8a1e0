/**
 * The limits and defaults of signing in: how often one request is answered
 * with a new token, how long each OAuth request and a whole sign-in may take,
 * how early a token is refreshed, and how much of an OAuth response is read.
 *
 * @module
 */

/**
 * How many times one request may be refused and retried with a new token
 * (sign-in, refresh, step-up to more scopes, a DPoP nonce): 3. The next
 * refusal is the request's answer, so a server that keeps asking for a scope
 * it never grants cannot hold a client in a loop of sign-ins.
 */
export const MAX_AUTHORIZATION_RETRIES = 3;

/** Deadline of one request to an authorization server or a metadata document, in ms: 30 s. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Deadline of an interactive sign-in, from the authorization URL handed to
 * the harness's `authorize` to the query it resolves to, in ms: 5 minutes.
 */
export const SIGN_IN_TIMEOUT_MS = 300_000;

/**
 * How long before its expiry an access token is refreshed, in ms: 60 s at
 * most, and never more than {@linkcode REFRESH_MARGIN_FRACTION} of the
 * token's lifetime, so that a token living less than the margin is not
 * replaced on every request.
 */
export const REFRESH_MARGIN_MS = 60_000;

/**
 * The most of a token's lifetime the refresh margin takes: one half. A token
 * living 30 s is refreshed when 15 s are left; one living 10 minutes, when
 * 60 s are ({@linkcode REFRESH_MARGIN_MS}).
 */
export const REFRESH_MARGIN_FRACTION = 0.5;

/**
 * How long a refresh ahead of expiry that failed for a passing reason (the
 * authorization server unreachable, or answering 429 or 5xx) waits before it
 * is tried again, in ms: 5 s. Meanwhile the token, not yet expired, is handed
 * out; an expired one is refreshed at once.
 */
export const REFRESH_RETRY_MS = 5_000;

/**
 * The longest an access token is held for, in ms: 365 days. A token endpoint
 * may say anything in `expires_in` (10^13 seconds is past the last date a
 * `Date` can hold); a longer lifetime is taken as this one, and refreshed then.
 */
export const MAX_TOKEN_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;

/** The most bytes of one OAuth response read (metadata, registration, token): 1 MiB. */
export const MAX_OAUTH_RESPONSE_BYTES = 1024 * 1024;

/**
 * The most redirects an `authorizedFetch` follows, as fetch does: 20. Past
 * them the last redirect is the answer.
 */
export const MAX_FETCH_REDIRECTS = 20;

/** The most redirects a headless user agent follows to reach the redirect URI: 10. */
export const MAX_AUTHORIZE_REDIRECTS = 10;

/**
 * The most requests a loopback redirect URI answers and ignores (no `state`,
 * or another one) while it waits for the sign-in's own: 16. Past it the
 * sign-in fails, since something on the machine keeps sending them.
 */
export const MAX_IGNORED_CALLBACKS = 16;

/**
 * The redirect URI of a client that names none: a loopback address, which an
 * authorization server must accept for a native application (RFC 8252).
 */
export const DEFAULT_REDIRECT_URI = "http://127.0.0.1:19876/callback";

/** The `client_name` a dynamic registration gives when the settings name none. */
export const DEFAULT_CLIENT_NAME = "loom-mcp";
