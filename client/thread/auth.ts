/**
 * What crosses between a remote server's worker and the main thread about
 * credentials, each shape with its guard: the credentials a request carries
 * (headers and which token they hold, never the token's refresh token, a
 * client secret or a key), the refusal a request met, and why no credentials
 * came. The sign-in itself (`oauth/`) lives on the main thread; the worker
 * asks it on tickets of its own (`from_worker.ts`), and hears of each new
 * token (`to_worker.ts`, `fresh_credentials`). Which token credentials hold
 * is their `serial` here (the sign-in's own word, `oauth/`, is
 * "generation"; in `client/` that word names a start of a server).
 *
 * @module
 */

import { type Fields, isCount, isRecord, isString, isStringRecord } from "./guards.ts";

/** The credentials of a server's requests, as a worker holds them. */
export type AuthHeaders = {
  /** The headers a request carries (`Authorization`, and `DPoP` for a bound token). */
  headers: Record<string, string>;
  /** Which token they hold, its serial: counted from 1 (0 for none yet). */
  serial: number;
  /**
   * Whether every request needs headers of its own (a DPoP proof is made for
   * one method and URL): the worker then asks for each request's.
   */
  perRequest: boolean;
};

/**
 * Why no credentials came: a sign-in failure's kind (one of `oauth/`'s
 * `OAUTH_FAILURE_KINDS`) and its message, already scrubbed of every secret;
 * for `needs_auth`, the authorization URL a person opens.
 */
export type AuthFailure = {
  kind: string;
  message: string;
  authorizationUrl?: string;
  issuer?: string;
};

/** The main thread's answer to a worker's ask for credentials. */
export type AuthAnswer =
  | { ok: true; value: AuthHeaders }
  | { ok: false; error: AuthFailure };

/** A request the server refused (401 or 403), as the worker tells it. */
export type AuthRefusal = {
  status: number;
  wwwAuthenticate: string | null;
  dpopNonce: string | null;
  /** The refused request's HTTP method and URL. */
  method: string;
  url: string;
  /** How many refusals this request has met, this one included. */
  attempt: number;
  /** The serial of the credentials the request carried; `null` for none. */
  serial: number | null;
};

/** Whether `value` is {@linkcode AuthHeaders}. */
export function isAuthHeaders(value: unknown): value is AuthHeaders {
  return isRecord(value) && isStringRecord(value.headers) &&
    Number.isSafeInteger(value.serial) && (value.serial as number) >= 0 &&
    typeof value.perRequest === "boolean";
}

/** Whether `value` is an {@linkcode AuthAnswer}. */
export function isAuthAnswer(value: unknown): value is AuthAnswer {
  if (!isRecord(value)) return false;
  if (value.ok === true) return isAuthHeaders(value.value);
  if (value.ok !== false || !isRecord(value.error)) return false;
  const { kind, message, authorizationUrl, issuer } = value.error;
  return isString(kind) && kind !== "" && isString(message) &&
    (authorizationUrl === undefined || isString(authorizationUrl)) &&
    (issuer === undefined || isString(issuer));
}

/** Reads a refusal's fields, or `undefined` when one is wrong. */
export function decodeRefusal(data: Fields): AuthRefusal | undefined {
  const { status, wwwAuthenticate, dpopNonce, method, url, attempt, serial } = data;
  if (status !== 401 && status !== 403) return undefined;
  if (wwwAuthenticate !== null && !isString(wwwAuthenticate)) return undefined;
  if (dpopNonce !== null && !isString(dpopNonce)) return undefined;
  if (!isString(method) || !isString(url) || !isCount(attempt) || attempt === 0) return undefined;
  if (serial !== null && !isCount(serial)) return undefined;
  return { status, wwwAuthenticate, dpopNonce, method, url, attempt, serial };
}
