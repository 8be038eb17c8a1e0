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

/** How long before its expiry an access token is refreshed, in ms: 60 s. */
export const REFRESH_MARGIN_MS = 60_000;

/** The most bytes of one OAuth response read (metadata, registration, token): 1 MiB. */
export const MAX_OAUTH_RESPONSE_BYTES = 1024 * 1024;

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
