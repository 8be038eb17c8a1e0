/**
 * The token a session holds, and what is made of it: the credentials of a
 * request (a bearer token, or a DPoP-bound one with a fresh proof), the
 * access token a caller is shown, and a stored grant taken up.
 *
 * @module
 */

import type { AccessToken, Credentials, OAuthStatus } from "./credentials.ts";
import type { OAuthGrant } from "../settings/oauth.ts";
import type { DpopKey } from "./_dpop.ts";
import type { TokenSet } from "./_grants.ts";
import { scopeList } from "./_challenge.ts";
import type { StoredGrant } from "./store.ts";

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
