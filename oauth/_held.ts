/**
 * The token a session holds, and what is made of it: the credentials of a
 * request (a bearer token, or a DPoP-bound one with a fresh proof), the
 * access token a caller is shown, and the entries kept in the token store.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import type { AccessToken, Credentials, OAuthStatus } from "./credentials.ts";
import type { OAuthGrant } from "../settings/oauth.ts";
import type { DpopKey } from "./_dpop.ts";
import type { TokenSet } from "./_grants.ts";
import { scopeList } from "./_challenge.ts";
import type { StoredGrant, StoreFailure, StoreKey, TokenStore } from "./store.ts";

/** The token a session holds. */
export type Held = {
  accessToken: string;
  tokenType: "bearer" | "dpop";
  expiresAt?: number;
  refreshToken?: string;
  scopes: string[];
  generation: number;
};

/** The token a token endpoint gave, as held: its scopes those granted, else those asked. */
export function heldOf(
  set: TokenSet,
  options: { asked: readonly string[]; generation: number; now: number; bound: boolean },
): Held {
  const held: Held = {
    accessToken: set.accessToken,
    tokenType: set.tokenType === "dpop" && options.bound ? "dpop" : "bearer",
    scopes: set.scope === undefined ? [...options.asked] : scopeList(set.scope),
    generation: options.generation,
  };
  if (set.expiresIn !== undefined) held.expiresAt = options.now + set.expiresIn * 1000;
  if (set.refreshToken !== undefined) held.refreshToken = set.refreshToken;
  return held;
}

/** The credentials of one request with `held`. */
export async function credentialsOf(
  held: Held,
  dpop: DpopKey | undefined,
  request: { method: string; url: URL },
): Promise<Credentials> {
  if (held.tokenType === "dpop" && dpop !== undefined) {
    const made = await dpop.headers(held.accessToken, request.method, request.url);
    return {
      headers: { Authorization: made.authorization, DPoP: made.dpop },
      scheme: "DPoP",
      generation: held.generation,
    };
  }
  return {
    headers: { Authorization: `Bearer ${held.accessToken}` },
    scheme: "Bearer",
    generation: held.generation,
  };
}

/** `held` as a caller is shown it. */
export function tokenOf(held: Held, issuer: string): AccessToken {
  const out: AccessToken = {
    value: held.accessToken,
    type: held.tokenType === "dpop" ? "DPoP" : "Bearer",
    scopes: [...held.scopes],
    issuer,
    generation: held.generation,
  };
  if (held.expiresAt !== undefined) out.expiresAt = held.expiresAt;
  return out;
}

/** What a session with `held` says of itself, before what it knows of its server. */
export function statusOf(
  held: Held | undefined,
  options: { grant: OAuthGrant; pending: boolean },
): OAuthStatus {
  if (held === undefined) {
    return { state: options.pending ? "needs_auth" : "signed_out", grant: options.grant };
  }
  const out: OAuthStatus = { state: "signed_in", grant: options.grant, scopes: [...held.scopes] };
  if (held.expiresAt !== undefined) out.expiresAt = held.expiresAt;
  return out;
}

/** A stored grant as held (a stored token is a bearer token). */
export function heldFromStore(grant: StoredGrant, generation: number): Held {
  return { ...grant, scopes: [...grant.scopes], tokenType: "bearer", generation };
}

/**
 * Keeps `held` as the token of `resource` (none when undefined); a
 * DPoP-bound token is never kept, its key being this process's alone.
 */
export function keepGrant(
  store: TokenStore,
  key: StoreKey,
  resource: string,
  held: Held | undefined,
): Promise<Result<void, StoreFailure>> {
  return store.update(key, (entry) => {
    const next = entry ?? { grants: {} };
    if (held === undefined || held.tokenType === "dpop") {
      delete next.grants[resource];
    } else {
      const grant: StoredGrant = { accessToken: held.accessToken, scopes: held.scopes };
      if (held.expiresAt !== undefined) grant.expiresAt = held.expiresAt;
      if (held.refreshToken !== undefined) grant.refreshToken = held.refreshToken;
      next.grants[resource] = grant;
    }
    const empty = next.registration === undefined && Object.keys(next.grants).length === 0;
    return empty ? undefined : next;
  });
}

/** Whether a stored grant is the token `held` holds (same access and refresh token). */
export function sameGrant(grant: StoredGrant, held: Held): boolean {
  return grant.accessToken === held.accessToken && grant.refreshToken === held.refreshToken;
}

/**
 * Removes the token of `resource` from the store if it is still `refused`,
 * in one update: a token another session wrote meanwhile is kept.
 */
export function forgetGrant(
  store: TokenStore,
  key: StoreKey,
  resource: string,
  refused: Held,
): Promise<Result<void, StoreFailure>> {
  return store.update(key, (entry) => {
    if (entry === undefined) return undefined;
    const grant = entry.grants[resource];
    if (grant !== undefined && sameGrant(grant, refused)) delete entry.grants[resource];
    const empty = entry.registration === undefined && Object.keys(entry.grants).length === 0;
    return empty ? undefined : entry;
  });
}
