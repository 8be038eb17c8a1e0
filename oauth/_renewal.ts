/**
 * Renewing a token by its refresh token: what a refusal means for the grant
 * (only a refusal of the grant itself ends it; a server failing for now, or
 * answering something unusable, leaves it as it was), and the refreshes that
 * sessions of one process share. Two sessions on one store (two clients of a
 * harness, say) hold the same refresh token; were both to present it, a
 * server that rotates refresh tokens would refuse the second while the first
 * is still on its way back, and the second would sign out. A refresh with a
 * token already being refreshed waits for that refresh instead, and both
 * sessions take its answer. Across processes, the store is read again on a
 * refusal (`_kept.ts`).
 *
 * @module
 */

import { ok, type Result } from "../codec/result.ts";
import type { OAuthFailure } from "./failures.ts";
import * as grants from "./_grants.ts";

/**
 * What a refused refresh says of its grant: `grant_refused` (the refresh
 * token is dead or this client may not use it: `invalid_grant`,
 * `unauthorized_client`), `client_refused` (the client itself is unknown or
 * failed to authenticate: `invalid_client`), or `grant_kept` (anything else:
 * an unreachable server, HTTP 429 or 5xx, an answer that is no token).
 */
export type RefreshVerdict = "grant_refused" | "client_refused" | "grant_kept";

/** What `failure`, the failure of a refresh, says of the grant refreshed. */
export function refreshVerdict(failure: OAuthFailure): RefreshVerdict {
  if (failure.kind !== "token_refused") return "grant_kept";
  switch (failure.error) {
    case "invalid_grant":
    case "unauthorized_client":
      return "grant_refused";
    case "invalid_client":
      return "client_refused";
    default:
      return "grant_kept";
  }
}

type Refreshed = Result<grants.TokenSet, OAuthFailure>;

/** The refreshes in flight in this process, by what they present. */
const IN_FLIGHT = new Map<string, Promise<Refreshed>>();

/**
 * Refreshes with `refreshToken`, or waits for the refresh of this process
 * that already presents it to the same authorization server as the same
 * client, for the same resource; each caller gets its own copy of the
 * answer. A DPoP-bound refresh is never shared: its tokens are bound to one
 * session's key.
 */
export async function sharedRefresh(
  context: grants.GrantContext,
  refreshToken: string,
): Promise<Refreshed> {
  if (context.dpop !== undefined) return await grants.refreshTokens(context, refreshToken);
  const key = JSON.stringify([
    context.issuer,
    context.client.client_id,
    context.resource ?? null,
    refreshToken,
  ]);
  let running = IN_FLIGHT.get(key);
  if (running === undefined) {
    running = grants.refreshTokens(context, refreshToken);
    IN_FLIGHT.set(key, running);
    const done = () => void IN_FLIGHT.delete(key);
    running.then(done, done);
  }
  const answer = await running;
  return answer.ok ? ok({ ...answer.value }) : answer;
}
