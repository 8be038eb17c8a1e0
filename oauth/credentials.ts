/**
 * What crosses between a session and whoever sends its server's requests:
 * the credentials a request carries, the refusal it met, and what the session
 * tells of itself. All plain data, so that a worker can be sent them; none
 * holds more than one request needs (the access token, a DPoP proof), and
 * {@linkcode OAuthStatus} holds no secret at all.
 *
 * @module
 */

import type { OAuthGrant } from "../settings/oauth.ts";
import type { TokenStore } from "./store.ts";

/** The shape of `fetch`, injected by tests and by a harness that proxies. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** How the client came to have its id at the authorization server. */
export type ClientOrigin = "pre_registered" | "metadata_document" | "dynamic";

/** How a session reaches the network, keeps tokens and tells time. */
export type OAuthSessionOptions = {
  /** Where registrations and tokens are kept; in memory only when absent. */
  store?: TokenStore;
  /** The fetch of every OAuth request; the global one when absent. */
  fetch?: Fetch;
  /** The wall clock, in ms since the epoch, against which tokens expire. */
  now?: () => number;
  /** Deadline of one OAuth request, in ms (`OAUTH_REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /** Deadline of the harness's `authorize`, in ms (`SIGN_IN_TIMEOUT_MS`). */
  signInTimeoutMs?: number;
};

/** A request to the server, as far as its credentials depend on it (DPoP proofs do). */
export type RequestTarget = {
  /** Its method; `POST` when absent. */
  method?: string;
  /** Its URL; the server's when absent. */
  url?: string | URL;
};

/** A refusal of a request by the server: what the session needs to answer it. */
export type Refusal = RequestTarget & {
  /** 401 or 403. */
  status: number;
  /** The refusal's `WWW-Authenticate`, if it had one. */
  wwwAuthenticate: string | null;
  /** The refusal's `DPoP-Nonce`, if it had one. */
  dpopNonce?: string | null;
  /** How many refusals this request has met, this one included (1 for the first). */
  attempt: number;
  /** The generation of the credentials the request carried; absent when it carried none. */
  generation?: number;
};

/** What a request carries to be let in. */
export type Credentials = {
  /** `Authorization`, and `DPoP` for a token bound to the session's key. */
  headers: Record<string, string>;
  scheme: "Bearer" | "DPoP";
  /** Which token: counted from 1, one more for every new token. */
  generation: number;
};

/** The current access token and what is known of it. */
export type AccessToken = {
  value: string;
  type: "Bearer" | "DPoP";
  /** When it expires, in ms since the epoch, when the server said. */
  expiresAt?: number;
  scopes: string[];
  issuer: string;
  generation: number;
};

/** What a session knows, without any secret: for a report or a census. */
export type OAuthStatus = {
  state: "signed_out" | "signed_in" | "needs_auth";
  grant: OAuthGrant;
  issuer?: string;
  resource?: string;
  client?: ClientOrigin;
  scopes?: string[];
  expiresAt?: number;
  /**
   * When the session renews its token ahead of expiry, in ms since the epoch
   * (the first request after it does, or a harness's timer); absent when it
   * cannot without a person.
   */
  refreshAt?: number;
  /** The last time keeping tokens in the store failed, what went wrong. */
  storeFailure?: string;
};
