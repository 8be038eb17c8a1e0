/**
 * The token a session holds for its server's protected resource, from its
 * arrival to its end, and its place in the session's store: taken from the
 * store (once, and once more after its grant ended), accepted from a token
 * endpoint and kept there, and renewed when due (`refreshAt`), taking first a
 * newer one another session stored. When a renewal fails for a passing
 * reason, the token is handed out meanwhile until it expires; only a refusal
 * of the grant itself ends it (`_renewal.ts`). The session that owns a
 * holding says where its token is kept and how a token request is made
 * ({@linkcode HoldingHost}); a holding never talks to a server itself, and
 * lives and ends with its session.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import type { OAuthFailure } from "./failures.ts";
import type { GrantContext, TokenSet } from "./_grants.ts";
import { expired, type Held, heldFromStore, heldOf, refreshAt } from "./_held.ts";
import type { KeptGrants } from "./_kept.ts";
import { refreshVerdict, sharedRefresh } from "./_renewal.ts";
import type { Secrets } from "./_secrets.ts";
import type { StoredGrant, StoreKey } from "./store.ts";
import { REFRESH_RETRY_MS } from "./limits.ts";

type Outcome<T> = Promise<Result<T, OAuthFailure>>;

/** Where a token is kept: the store's entry of the issuer and client, and the resource in it. */
export type Place = { key: StoreKey; resource: string };

/** What a holding asks of its session. */
export type HoldingHost = {
  /** Where the token is kept; undefined while the authorization server is not known. */
  place(): Place | undefined;
  /** The context of a token request (the client registered first if it is not yet). */
  context(): Outcome<GrantContext>;
  /** A new token by the session's grant, when that grant needs no person. */
  obtain(scopes: string[]): Outcome<void>;
  /** What follows an `invalid_client`, which is the client's to answer. */
  clientRefused(failure: OAuthFailure): Outcome<void>;
};

/** One session's token. */
export class Holding {
  /** The token held, if any. */
  held: Held | undefined;
  /** The scopes the last token was asked for. */
  lastAsked: string[] = [];
  /** Before when no renewal ahead of expiry is tried again, after one failed for a passing reason. */
  retryAt = 0;
  #restored = false;
  #givenTried = false;
  #generation = 0;
  #kept: KeptGrants;
  #secrets: Secrets;
  #now: () => number;
  #host: HoldingHost;
  #headless: boolean;

  /** A holding of nothing yet; `headless` when the session's grant needs no person. */
  constructor(
    kept: KeptGrants,
    options: { secrets: Secrets; now: () => number; host: HoldingHost; headless: boolean },
  ) {
    this.#kept = kept;
    this.#secrets = options.secrets;
    this.#now = options.now;
    this.#host = options.host;
    this.#headless = options.headless;
  }

  /** Whether the store was read since the last token ended. */
  get restored(): boolean {
    return this.#restored;
  }

  /** Drops the token held (not the stored one): the store is read again at the next restore. */
  drop(): void {
    [this.held, this.#restored] = [undefined, false];
  }

  /** Takes the stored token of the resource, once (and once more after a grant ended). */
  async restore(): Outcome<void> {
    const place = this.#host.place();
    if (this.#restored || this.held !== undefined || place === undefined) return ok(undefined);
    this.#restored = true;
    const grant = await this.#kept.read(place.key, place.resource);
    if (!grant.ok) return grant;
    if (grant.value !== undefined) this.held = this.take(grant.value);
    return ok(undefined);
  }

  /**
   * Renews the token when it is due, taking first a newer one another session
   * put in the store. When the renewal fails and the token has not expired,
   * the token is handed out meanwhile; when its grant was refused, it is
   * gone, and the server's refusal will say how to get another.
   */
  async fresh(): Outcome<void> {
    const now = this.#now();
    const due = this.held === undefined ? undefined : refreshAt(this.held, this.retryAt);
    if (due === undefined || now < due) return ok(undefined);
    await this.#takeNewer(this.held!);
    const held = this.held!;
    if (now < refreshAt(held, this.retryAt)!) return ok(undefined);
    let renewed: Result<void, OAuthFailure>;
    if (held.refreshToken !== undefined) {
      renewed = await this.refresh(held);
    } else if (this.#headless) {
      renewed = await this.#host.obtain(held.scopes);
      if (!renewed.ok) this.retryAt = now + REFRESH_RETRY_MS;
    } else {
      // Nothing renews it without a person: it is used until it expires.
      if (expired(held, now)) this.held = undefined;
      return ok(undefined);
    }
    if (renewed.ok || this.held === undefined) return ok(undefined);
    return expired(this.held, now) ? renewed : ok(undefined);
  }

  /**
   * Refreshes `held` (the token held, or a harness's own refresh token). A
   * refusal of its grant ends it, unless another session on the store was
   * given a newer one meanwhile, which is taken; anything else keeps it.
   */
  async refresh(held: Held): Outcome<void> {
    const context = await this.#host.context();
    if (!context.ok) return context;
    const tokens = await sharedRefresh(context.value, held.refreshToken!);
    if (tokens.ok) {
      // No new refresh token: the old one stays good (the server does not rotate).
      tokens.value.refreshToken ??= held.refreshToken!;
      return await this.accept(tokens, {
        asked: held.scopes,
        bound: context.value.dpop !== undefined,
      });
    }
    const verdict = refreshVerdict(tokens.error);
    if (verdict === "grant_kept") {
      // The server is failing for now, or said something unusable: the grant is as it was.
      this.retryAt = this.#now() + REFRESH_RETRY_MS;
      return tokens;
    }
    const place = this.#host.place();
    // A harness's own refresh token is no grant of the store's.
    if (this.held !== held || place === undefined) return tokens;
    const stored = await this.#kept.other(place.key, place.resource, held);
    if (stored !== undefined) {
      this.held = this.take(stored);
      return ok(undefined);
    }
    if (verdict === "client_refused") return await this.#host.clientRefused(tokens.error);
    this.drop();
    await this.#kept.forget(place.key, place.resource, held);
    return tokens;
  }

  /**
   * Tries a harness's own refresh token (the settings' `refreshToken`), until
   * it is refused: true when it gave a token, false when there is none to try
   * (or it was refused), the failure when the server is failing for now (it
   * is tried again next time).
   */
  async refreshGiven(refreshToken: string | undefined): Outcome<boolean> {
    if (refreshToken === undefined || this.#givenTried) return ok(false);
    const given = heldFromStore(
      { accessToken: "", expiresAt: 0, refreshToken, scopes: [] },
      { generation: 0, now: 0 },
    );
    const refreshed = await this.refresh(given);
    if (!refreshed.ok && refreshVerdict(refreshed.error) === "grant_kept") return refreshed;
    this.#givenTried = true;
    return ok(refreshed.ok);
  }

  /** Holds what a token endpoint gave (`bound` to the session's DPoP key or not), and keeps it. */
  async accept(
    tokens: Result<TokenSet, OAuthFailure>,
    options: { asked: string[]; bound: boolean },
  ): Outcome<void> {
    if (!tokens.ok) return err(tokens.error);
    [tokens.value.accessToken, tokens.value.refreshToken].forEach((t) => this.#secrets.keep(t));
    this.held = heldOf(tokens.value, {
      asked: options.asked,
      generation: ++this.#generation,
      now: this.#now(),
      bound: options.bound,
    });
    this.lastAsked = [...options.asked];
    this.retryAt = 0;
    const place = this.#host.place();
    if (place !== undefined) await this.#kept.keep(place.key, place.resource, this.held);
    return ok(undefined);
  }

  /** A stored grant as held, its secrets known. */
  take(grant: StoredGrant): Held {
    [grant.accessToken, grant.refreshToken].forEach((secret) => this.#secrets.keep(secret));
    return heldFromStore(grant, { generation: ++this.#generation, now: this.#now() });
  }

  /** Takes the grant in the store when it outlives `held`: another session renewed it. */
  async #takeNewer(held: Held): Promise<void> {
    const place = this.#host.place();
    if (place === undefined || held.tokenType === "dpop") return;
    const stored = await this.#kept.other(place.key, place.resource, held);
    if (stored?.expiresAt !== undefined && stored.expiresAt > (held.expiresAt ?? Infinity)) {
      this.held = this.take(stored);
    }
  }
}
