/**
 * The token a session holds, and what is made of it: the credentials of a
 * request (a bearer token, or a DPoP-bound one with a fresh proof), the
 * access token a caller is shown, a stored grant taken up, and when the token
 * is due for a refresh (the one statement of the refresh margin).
 *
 * @module
 */

import type { AccessToken, Credentials, OAuthStatus } from "./credentials.ts";
import type { OAuthGrant } from "../settings/oauth.ts";
import type { DpopKey } from "./_dpop.ts";
import type { TokenSet } from "./_grants.ts";
import { scopeList } from "./_challenge.ts";
import type { StoredGrant } from "./store.ts";
import { MAX_TOKEN_LIFETIME_MS, REFRESH_MARGIN_FRACTION, REFRESH_MARGIN_MS } from "./limits.ts";

/** The token a session holds. */
export type Held = {
  accessToken: string;
  tokenType: "bearer" | "dpop";
  expiresAt?: number;
  refreshToken?: string;
  scopes: string[];
  generation: number;
  /** When the session got it, in ms since the epoch: its lifetime is counted from then. */
  receivedAt: number;
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
    receivedAt: options.now,
  };
  if (set.expiresIn !== undefined) {
    held.expiresAt = options.now + Math.min(set.expiresIn * 1000, MAX_TOKEN_LIFETIME_MS);
  }
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

/**
 * When `held` is refreshed ahead of its expiry: {@linkcode REFRESH_MARGIN_MS}
 * before it, or {@linkcode REFRESH_MARGIN_FRACTION} of its lifetime before it
 * when that is less; never before `notBefore` (a refresh that failed for a
 * passing reason waits), unless the token has expired by then. Undefined for
 * a token whose expiry is unknown.
 */
export function refreshAt(held: Held, notBefore = 0): number | undefined {
  if (held.expiresAt === undefined) return undefined;
  const lifetime = Math.max(0, held.expiresAt - held.receivedAt);
  const due = held.expiresAt - Math.min(REFRESH_MARGIN_MS, lifetime * REFRESH_MARGIN_FRACTION);
  return Math.min(Math.max(due, notBefore), held.expiresAt);
}

/** Whether `held` has expired at `now`. */
export function expired(held: Held, now: number): boolean {
  return held.expiresAt !== undefined && now >= held.expiresAt;
}

/** What a session with `held` says of itself, before what it knows of its server. */
export function statusOf(
  held: Held | undefined,
  options: { grant: OAuthGrant; pending: boolean; notBefore: number },
): OAuthStatus {
  if (held === undefined) {
    return { state: options.pending ? "needs_auth" : "signed_out", grant: options.grant };
  }
  const out: OAuthStatus = { state: "signed_in", grant: options.grant, scopes: [...held.scopes] };
  if (held.expiresAt !== undefined) out.expiresAt = held.expiresAt;
  // Renewed ahead of time by its refresh token, or by a grant that needs no person.
  const renewable = held.refreshToken !== undefined || options.grant !== "authorization_code";
  const due = refreshAt(held, options.notBefore);
  if (due !== undefined && renewable) out.refreshAt = due;
  return out;
}

/**
 * A stored grant as held (a stored token is a bearer token), taken up at
 * `now`: an expiry past {@linkcode MAX_TOKEN_LIFETIME_MS} from now is
 * brought back to it.
 */
export function heldFromStore(
  grant: StoredGrant,
  options: { generation: number; now: number },
): Held {
  const held: Held = {
    ...grant,
    scopes: [...grant.scopes],
    tokenType: "bearer",
    generation: options.generation,
    receivedAt: options.now,
  };
  if (held.expiresAt !== undefined) {
    held.expiresAt = Math.min(held.expiresAt, options.now + MAX_TOKEN_LIFETIME_MS);
  }
  return held;
}
