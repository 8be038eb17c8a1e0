/**
 * Every way signing in can fail, as a value with a `kind` and a message a
 * person can act on. `needs_auth` is not a fault: the server needs a person
 * to sign in, and the value carries the URL to open. No failure and no
 * message ever holds a token, a secret, an authorization code or a PKCE
 * verifier: the session scrubs every string it hands out of the secrets it
 * knows, whatever an authorization server echoes back.
 *
 * @module
 */

/** Every {@linkcode OAuthFailure} kind. */
export const OAUTH_FAILURE_KINDS = [
  "needs_auth",
  "unreachable",
  "metadata_invalid",
  "resource_mismatch",
  "issuer_mismatch",
  "registration_refused",
  "registration_unavailable",
  "authorization_denied",
  "authorization_response_invalid",
  "sign_in_failed",
  "token_refused",
  "token_response_invalid",
  "insufficient_scope",
  "refused",
  "outside_resource",
  "configuration_invalid",
  "store_failed",
] as const;

/** One of {@linkcode OAUTH_FAILURE_KINDS}. */
export type OAuthFailureKind = typeof OAUTH_FAILURE_KINDS[number];

/** Why signing in to a server did not give a token. */
export type OAuthFailure =
  /** A person must sign in: open `authorizationUrl`; the session finishes with the query it returns to. */
  | { kind: "needs_auth"; message: string; authorizationUrl: string; issuer: string }
  /** A server did not answer: `host` and `port` of `url`, and what the system said. */
  | { kind: "unreachable"; message: string; url: string; host: string; port: number; cause: string }
  /** A metadata document is missing, malformed or unusable. */
  | { kind: "metadata_invalid"; message: string; url: string }
  /** The protected resource metadata names another resource than the server's URL. */
  | { kind: "resource_mismatch"; message: string; expected: string; resource: string }
  /** The authorization server metadata names another issuer than the one it was looked up by. */
  | { kind: "issuer_mismatch"; message: string; expected: string; issuer: string }
  /** Dynamic client registration was refused; `setting` names what to configure instead. */
  | {
    kind: "registration_refused";
    message: string;
    issuer: string;
    status: number;
    error?: string;
    errorDescription?: string;
    setting: "clientId";
  }
  /** The authorization server offers no way to register, and no client id is set. */
  | { kind: "registration_unavailable"; message: string; issuer: string; setting: "clientId" }
  /** The authorization server sent the browser back with an error (the person declined, say). */
  | { kind: "authorization_denied"; message: string; error: string; errorDescription?: string }
  /** The query the browser came back with fails its checks (`state`, `iss`, `code`). */
  | { kind: "authorization_response_invalid"; message: string }
  /** The harness's `authorize` failed, took longer than the sign-in deadline, or the session closed. */
  | {
    kind: "sign_in_failed";
    message: string;
    reason: "authorize_failed" | "timed_out" | "closed";
  }
  /** The token endpoint refused the grant. */
  | {
    kind: "token_refused";
    message: string;
    grant: string;
    status: number;
    error: string;
    errorDescription?: string;
  }
  /** The token endpoint answered something that is not a usable token response. */
  | { kind: "token_response_invalid"; message: string; grant: string }
  /** The server keeps asking for scopes no new token gave. */
  | { kind: "insufficient_scope"; message: string; scopes: string[] }
  /** The server keeps refusing the request, or refuses it in a way no token can fix. */
  | { kind: "refused"; message: string; status: number }
  /**
   * A request to `url` asked for the credentials of a session whose protected
   * resource (`resource`) does not cover it: another origin, or a path outside
   * it. Nothing was sent.
   */
  | { kind: "outside_resource"; message: string; url: string; resource: string }
  /** A setting is missing or unusable; `setting` names it. */
  | { kind: "configuration_invalid"; message: string; setting: string }
  /** The token store could not be read or written. */
  | { kind: "store_failed"; message: string; path?: string };
