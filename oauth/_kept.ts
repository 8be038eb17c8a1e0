/**
 * A session's tokens in its {@linkcode TokenStore}, per resource: kept,
 * forgotten, and looked up again when a refresh is refused, since another
 * session on the same store (another harness, say) may have used the refresh
 * token first and been given a new one. A store that fails is noted, not
 * fatal: the session goes on with what it holds, and its status says so.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import type { Held } from "./_held.ts";
import type { StoredGrant, StoreFailure, StoreKey, TokenStore } from "./store.ts";

/** A session's store, and the last time keeping tokens there failed. */
export class KeptGrants {
  /** The store itself. */
  readonly store: TokenStore;
  /** What went wrong the last time the store failed, if it ever did. */
  failure: string | undefined;

  constructor(store: TokenStore) {
    this.store = store;
  }

  /** Notes `result`'s failure, if it is one. */
  note(result: Result<unknown, { message: string }>): void {
    if (!result.ok) this.failure = result.error.message;
  }

  /**
   * Keeps `held` as the token of `resource` (none when undefined); a
   * DPoP-bound token is never kept, its key being this process's alone.
   */
  async keep(key: StoreKey, resource: string, held: Held | undefined): Promise<void> {
    this.note(
      await this.store.update(key, (entry) => {
        const next = entry ?? { grants: {} };
        if (held === undefined || held.tokenType === "dpop") {
          delete next.grants[resource];
        } else {
          const grant: StoredGrant = { accessToken: held.accessToken, scopes: held.scopes };
          if (held.expiresAt !== undefined) grant.expiresAt = held.expiresAt;
          if (held.refreshToken !== undefined) grant.refreshToken = held.refreshToken;
          next.grants[resource] = grant;
        }
        return emptied(next);
      }),
    );
  }

  /** Removes the token of `resource` if it is still `refused`: one written meanwhile stays. */
  async forget(key: StoreKey, resource: string, refused: Held): Promise<void> {
    this.note(
      await this.store.update(key, (entry) => {
        if (entry === undefined) return undefined;
        const grant = entry.grants[resource];
        if (grant !== undefined && sameGrant(grant, refused)) delete entry.grants[resource];
        return emptied(entry);
      }),
    );
  }

  /** The grant kept for `resource`, if any. */
  async read(
    key: StoreKey,
    resource: string,
  ): Promise<Result<StoredGrant | undefined, StoreFailure>> {
    const entry = await this.store.read(key);
    return entry.ok ? { ok: true, value: entry.value?.grants[resource] } : entry;
  }

  /** The grant kept for `resource` when it is not `held`'s: another session's, newer. */
  async other(key: StoreKey, resource: string, held: Held): Promise<StoredGrant | undefined> {
    const entry = await this.store.read(key);
    this.note(entry);
    const grant = entry.ok ? entry.value?.grants[resource] : undefined;
    return grant === undefined || sameGrant(grant, held) ? undefined : grant;
  }
}

/** Whether a stored grant is the token `held` holds (same access and refresh token). */
function sameGrant(grant: StoredGrant, held: Held): boolean {
  return grant.accessToken === held.accessToken && grant.refreshToken === held.refreshToken;
}

/** The entry, or nothing when it keeps nothing. */
function emptied<T extends { registration?: unknown; grants: Record<string, unknown> }>(
  entry: T,
): T | undefined {
  return entry.registration === undefined && Object.keys(entry.grants).length === 0
    ? undefined
    : entry;
}
