/**
 * One remote server's sign-in, on the main thread: {@linkcode OAuthSession}
 * holds what was discovered about the server's authorization server, the
 * client it is registered as there, and the current token, and it alone talks
 * to authorization servers. Whoever sends the server's requests (the client's
 * worker, or {@linkcode authorizedFetch}) asks it for the
 * {@linkcode Credentials} of a request, and hands it every refusal (401 or
 * 403) with its `WWW-Authenticate`; it answers with credentials for a retry or
 * a failure value, `needs_auth` among them when a person must sign in and the
 * settings give no `authorize`.
 *
 * Lifecycle: created parked, it does nothing until asked; its owner's `close`
 * (on retiring the server) abandons what is in flight. Its operations take
 * turns (one runs at a time), so a burst of refusals costs one sign-in: each
 * refusal says which token it was refused with (`generation`), and a refusal
 * of a token already replaced is answered with the current one. Tokens live
 * in the session and in its {@linkcode TokenStore}; every failure and every
 * status it hands out is scrubbed of the secrets it knows.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import type { OAuthGrant, OAuthSettings } from "../settings/oauth.ts";
import type { OAuthFailure } from "./failures.ts";
import type {
  AccessToken,
  Credentials,
  OAuthSessionOptions,
  OAuthStatus,
  Refusal,
  RequestTarget,
} from "./credentials.ts";
import { boundedFetch, type Fetch } from "./_http.ts";
import { challengeParams, scopeList } from "./_challenge.ts";
import { discover, type Discovered, sameAuthority } from "./_discovery.ts";
import { prepareClient, type PreparedClient, storeKeyOf } from "./_client.ts";
import * as grants from "./_grants.ts";
import { DpopKey, supportsDpop } from "./_dpop.ts";
import {
  awaitAuthorize,
  forbidden,
  headlessTokens,
  needsAuth,
  noSignInWaiting,
  pkceRefusal,
  redirectUriOf,
  refusedTooOften,
  selectScopes,
} from "./_obtain.ts";
import { Secrets } from "./_secrets.ts";
import { credentialsOf, type Held, heldFromStore, heldOf, statusOf, tokenOf } from "./_held.ts";
import { KeptGrants } from "./_kept.ts";
import { MemoryTokenStore, type StoredGrant } from "./store.ts";
import {
  MAX_AUTHORIZATION_RETRIES,
  OAUTH_REQUEST_TIMEOUT_MS,
  REFRESH_MARGIN_MS,
  SIGN_IN_TIMEOUT_MS,
} from "./limits.ts";

/** What an operation of a session comes to. */
type Outcome<T> = Promise<Result<T, OAuthFailure>>;

/**
 * The sign-in of one remote MCP server.
 *
 * @example Sign in headlessly with client credentials
 * ```ts ignore
 * import { OAuthSession } from "./mod.ts";
 * const secret = Deno.env.get("MCP_CLIENT_SECRET")!;
 * const settings = { grant: "client_credentials", clientId: "svc", clientSecret: secret } as const;
 * const token = await new OAuthSession("https://mcp.example.com/mcp", settings).accessToken();
 * console.log(token.ok ? token.value.type : token.error.message); // Bearer
 * ```
 */
export class OAuthSession {
  /** The server's MCP endpoint. */
  readonly server: URL;
  #settings: OAuthSettings;
  #grant: OAuthGrant;
  #redirectUri: string;
  #kept: KeptGrants;
  #http: Fetch;
  #now: () => number;
  #signInTimeoutMs: number;
  #found: Discovered | undefined;
  #client: PreparedClient | undefined;
  #held: Held | undefined;
  #generation = 0;
  #dpop: DpopKey | undefined;
  #pending: grants.PendingSignIn | undefined;
  #restored = false;
  #probed: boolean;
  #givenRefreshTried = false;
  #lastAsked: string[] = [];
  #secrets = new Secrets();
  #tail: Promise<unknown> = Promise.resolve();
  #closing = new AbortController();

  /** A parked session of the MCP endpoint `server`: nothing is asked before it is used. */
  constructor(server: string | URL, settings: OAuthSettings, options: OAuthSessionOptions = {}) {
    this.server = new URL(server);
    this.#settings = settings;
    this.#grant = settings.grant ?? "authorization_code";
    this.#redirectUri = redirectUriOf(settings);
    this.#kept = new KeptGrants(options.store ?? new MemoryTokenStore());
    // Ahead of any refusal, discovery is worth its requests only where a token can come
    // without a person: from the store, from a refresh token, or from a headless grant.
    this.#probed = options.store === undefined && this.#grant === "authorization_code" &&
      settings.refreshToken === undefined;
    this.#http = boundedFetch(
      options.fetch ?? fetch,
      options.requestTimeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS,
      this.#closing.signal,
    );
    this.#now = options.now ?? Date.now;
    this.#signInTimeoutMs = options.signInTimeoutMs ?? SIGN_IN_TIMEOUT_MS;
    [settings.clientSecret, settings.refreshToken, settings.privateKeyPem]
      .forEach((secret) => this.#secrets.keep(secret));
  }

  /**
   * The credentials a request carries: the current token (refreshed first
   * when it is about to expire), or none when there is none yet (the server's
   * refusal will say how to get one).
   */
  credentials(target: RequestTarget = {}): Promise<Result<Credentials | undefined, OAuthFailure>> {
    return this.#turn(async () => {
      if (!this.#probed && this.#found === undefined) {
        this.#probed = true;
        const found = await this.#discover(undefined, false);
        if (found.ok && found.value) {
          // A headless grant refused now would be refused again at the server's refusal.
          const gotten = await this.#restoreOrObtain();
          if (!gotten.ok) return gotten;
        }
      }
      const fresh = await this.#fresh();
      if (!fresh.ok) return fresh;
      return ok(this.#held === undefined ? undefined : await this.#credentialsFor(target));
    });
  }

  /**
   * Answers a refusal with credentials for a retry: a DPoP nonce taken, a
   * refresh, a sign-in, or a step-up to the scopes a 403 `insufficient_scope`
   * asks for (with those already granted). Past
   * {@linkcode MAX_AUTHORIZATION_RETRIES} refusals of one request, the
   * refusal is the answer.
   */
  challenge(refusal: Refusal): Promise<Result<Credentials, OAuthFailure>> {
    if (refusal.status !== 401 && refusal.status !== 403) {
      throw new RangeError(`Cannot answer HTTP ${refusal.status}: a refusal is 401 or 403`);
    }
    return this.#turn(async () => {
      const params = challengeParams(refusal.wwwAuthenticate);
      if (refusal.attempt > MAX_AUTHORIZATION_RETRIES) {
        return err(refusedTooOften(refusal, this.#where(), params.scope));
      }
      const held = this.#held;
      if (
        params.error === "use_dpop_nonce" && refusal.dpopNonce && this.#dpop !== undefined &&
        held?.tokenType === "dpop"
      ) {
        await this.#dpop.rememberNonce(this.#targetUrl(refusal), refusal.dpopNonce);
        return ok(await this.#credentialsFor(refusal));
      }
      // The request carried no token, or one already replaced: the current one may do.
      if (held !== undefined && (refusal.generation ?? 0) < held.generation) {
        return ok(await this.#credentialsFor(refusal));
      }
      if (refusal.status === 403 && params.error !== "insufficient_scope") {
        return err(forbidden(this.#where()));
      }
      // A 403 is about scopes, on a server already found; a 401 may mean it moved (SEP-2352).
      if (refusal.status === 401 || this.#found === undefined) {
        const found = await this.#discover(params.resourceMetadata, true);
        if (!found.ok) return found;
      }
      if (refusal.status === 403) {
        const wanted = [
          ...new Set([...(this.#held?.scopes ?? this.#lastAsked), ...scopeList(params.scope)]),
        ];
        return await this.#obtainCredentials(wanted, refusal);
      }
      // Nothing held yet: the store, a harness's refresh token or a headless grant may do.
      if (this.#held === undefined && !this.#restored) {
        const restored = await this.#restoreOrObtain();
        if (!restored.ok) return restored;
        if (this.#held !== undefined) return ok(await this.#credentialsFor(refusal));
      }
      const current = this.#held;
      if (current?.refreshToken !== undefined) {
        const refreshed = await this.#refresh(current);
        if (refreshed.ok) return ok(await this.#credentialsFor(refusal));
        if (refreshed.error.kind === "unreachable") return refreshed;
      }
      return await this.#obtainCredentials(
        selectScopes(this.#settings, this.#found, params.scope),
        refusal,
      );
    });
  }

  /**
   * The current access token, getting one if there is none: from the store,
   * by refresh, by the headless grant, or by signing in (`needs_auth` when
   * the settings give no `authorize`). What `loom-mcp login` runs.
   */
  accessToken(): Promise<Result<AccessToken, OAuthFailure>> {
    return this.#turn(async () => {
      const known = await this.#known();
      if (!known.ok) return known;
      const fresh = await this.#fresh();
      if (!fresh.ok) return fresh;
      if (this.#held === undefined) {
        const gotten = await this.#restoreOrObtain(true);
        if (!gotten.ok) return gotten;
      }
      return ok(this.#token());
    });
  }

  /** A new access token now: by refresh where there is a refresh token, else as at first. */
  refresh(): Promise<Result<AccessToken, OAuthFailure>> {
    return this.#turn(async () => {
      const known = await this.#known();
      if (!known.ok) return known;
      const held = this.#held;
      const done = held?.refreshToken !== undefined
        ? await this.#refresh(held)
        : await this.#obtain(held?.scopes ?? selectScopes(this.#settings, this.#found, undefined));
      return done.ok ? ok(this.#token()) : done;
    });
  }

  /**
   * Finishes the sign-in a `needs_auth` began, with the query of the request
   * that reached the redirect URI.
   */
  completeSignIn(callback: URLSearchParams): Promise<Result<AccessToken, OAuthFailure>> {
    return this.#turn(async () => {
      const pending = this.#pending;
      if (pending === undefined) return err(noSignInWaiting(this.#where()));
      const done = await this.#finish(pending, callback);
      return done.ok ? ok(this.#token()) : done;
    });
  }

  /**
   * Forgets the tokens of this server, here and in the store (a registration is
   * kept; a failing store says so in the status), found first when not known.
   */
  signOut(): Promise<Result<void, OAuthFailure>> {
    return this.#turn(async () => {
      [this.#held, this.#pending] = [undefined, undefined];
      const known = await this.#known();
      if (!known.ok || this.#found === undefined) return known.ok ? ok(undefined) : known;
      const key = this.#client?.key ?? storeKeyOf(this.#found, this.#settings, this.#redirectUri);
      await this.#kept.keep(key, this.#resourceKey(), undefined);
      return ok(undefined);
    });
  }

  /** Ends the session, abandoning what is in flight; settles once the operation running has. */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.#tail;
  }

  /** What the session knows, without any secret. */
  status(): OAuthStatus {
    const out = statusOf(this.#held, { grant: this.#grant, pending: this.#pending !== undefined });
    if (this.#found !== undefined) {
      out.issuer = this.#found.issuer;
      out.resource = this.#resourceKey();
    }
    if (this.#client !== undefined) out.client = this.#client.record.origin;
    if (this.#kept.failure !== undefined) out.storeFailure = this.#kept.failure;
    return out;
  }

  /** Runs `task` after every earlier operation, and scrubs the failure it ends with. */
  #turn<T>(task: () => Outcome<T>): Outcome<T> {
    const run = this.#tail.then(task, task).then((result) =>
      result.ok ? result : err(this.#secrets.scrub(result.error))
    );
    this.#tail = run.then(() => {}, () => {});
    return run;
  }

  /** Discovers the authorization server, unless it is known. */
  async #known(): Outcome<unknown> {
    return this.#found === undefined ? await this.#discover(undefined, true) : ok(undefined);
  }

  async #discover(resourceMetadataUrl: string | undefined, allowLegacy: boolean): Outcome<boolean> {
    const found = await discover(this.server, {
      allowLegacy,
      fetch: this.#http,
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    });
    if (!found.ok) return found;
    if (found.value === undefined) return ok(false);
    const before = this.#found;
    this.#found = found.value;
    if (before !== undefined && !sameAuthority(before, found.value)) {
      // The server moved to another authorization server (or resource): nothing of the
      // old one is presented to the new (SEP-2352).
      this.#client = undefined;
      this.#held = undefined;
      this.#pending = undefined;
      this.#restored = false;
    }
    return ok(true);
  }

  /** Takes the stored token of this resource, or gets one without a person if that can be done. */
  async #restoreOrObtain(interactive = false): Outcome<void> {
    if (!this.#restored) {
      this.#restored = true;
      const key = storeKeyOf(this.#found!, this.#settings, this.#redirectUri);
      const grant = await this.#kept.read(key, this.#resourceKey());
      if (!grant.ok) return grant;
      if (grant.value !== undefined) this.#held = this.#take(grant.value);
    }
    if (this.#held !== undefined) return ok(undefined);
    const refreshToken = this.#settings.refreshToken;
    if (refreshToken !== undefined && !this.#givenRefreshTried) {
      this.#givenRefreshTried = true;
      const given = heldFromStore({ accessToken: "", expiresAt: 0, refreshToken, scopes: [] }, 0);
      const refreshed = await this.#refresh(given);
      if (refreshed.ok || refreshed.error.kind === "unreachable") return refreshed;
    }
    if (this.#grant === "authorization_code" && !interactive) return ok(undefined);
    return await this.#obtain(selectScopes(this.#settings, this.#found, undefined));
  }

  /** Refreshes the current token when it is about to expire. */
  async #fresh(): Outcome<void> {
    const held = this.#held;
    if (held === undefined || held.expiresAt === undefined) return ok(undefined);
    if (this.#now() < held.expiresAt - REFRESH_MARGIN_MS) return ok(undefined);
    if (held.refreshToken !== undefined) {
      const refreshed = await this.#refresh(held);
      if (refreshed.ok || refreshed.error.kind === "unreachable") return refreshed;
      // Refused: the token is gone, and the server's refusal will say how to get another.
      return ok(undefined);
    }
    this.#held = undefined;
    if (this.#grant === "authorization_code") return ok(undefined);
    return await this.#obtain(held.scopes);
  }

  async #ensureClient(): Outcome<PreparedClient> {
    if (this.#client !== undefined) return ok(this.#client);
    const prepared = await prepareClient(this.#found!, this.#settings, {
      redirectUri: this.#redirectUri,
      fetch: this.#http,
      store: this.#kept.store,
      keep: (secret) => this.#secrets.keep(secret),
      noteStore: (result) => this.#kept.note(result),
    });
    if (prepared.ok) this.#client = prepared.value;
    return prepared;
  }

  async #context(): Outcome<grants.GrantContext> {
    const client = await this.#ensureClient();
    if (!client.ok) return client;
    const found = this.#found!;
    if ((this.#settings.dpop ?? supportsDpop(found.as)) && this.#dpop === undefined) {
      this.#dpop = await DpopKey.create();
    }
    return ok(grants.grantContext(found, client.value, { fetch: this.#http, dpop: this.#dpop }));
  }

  async #obtainCredentials(scopes: string[], target: RequestTarget): Outcome<Credentials> {
    const done = await this.#obtain(scopes);
    return done.ok ? ok(await this.#credentialsFor(target)) : done;
  }

  /** A new token by the session's grant, for `scopes`. */
  async #obtain(scopes: string[]): Outcome<void> {
    const context = await this.#context();
    if (!context.ok) return context;
    if (this.#grant === "authorization_code") return await this.#signIn(context.value, scopes);
    const options = { fetch: this.#http, secrets: this.#secrets };
    const { value } = context;
    return await this.#accept(
      await headlessTokens(this.#grant, this.#settings, value, scopes, options),
      scopes,
    );
  }

  async #signIn(context: grants.GrantContext, scopes: string[]): Outcome<void> {
    const found = this.#found!;
    const refusal = pkceRefusal(found);
    if (refusal !== undefined) return err(refusal);
    const redirectUri = this.#redirectUri;
    const request = await grants.authorizationRequest(context, { redirectUri, scopes });
    if (!request.ok) return request;
    this.#secrets.keep(request.value.verifier);
    const pending = { request: { ...request.value, redirectUri }, context, scopes };
    const authorize = this.#settings.authorize;
    if (authorize === undefined) {
      // The URL already handed out stays good while it asks for every scope wanted now.
      const shown = this.#pending;
      if (shown !== undefined && scopes.every((scope) => shown.scopes.includes(scope))) {
        return err(needsAuth(this.#where(), shown.request.url, found.issuer));
      }
      this.#pending = pending;
      return err(needsAuth(this.#where(), request.value.url, found.issuer));
    }
    const callback = await awaitAuthorize(authorize, request.value.url, {
      timeoutMs: this.#signInTimeoutMs,
      where: this.#where(),
      signal: this.#closing.signal,
    });
    if (!callback.ok) return callback;
    return await this.#finish(pending, callback.value);
  }

  async #finish(
    pending: grants.PendingSignIn,
    callback: URLSearchParams,
  ): Outcome<void> {
    this.#secrets.keep(callback.get("code") ?? undefined);
    const tokens = await grants.exchangeCode(pending.context, callback, pending.request);
    if (this.#pending === pending) this.#pending = undefined;
    return this.#accept(tokens, pending.scopes);
  }

  async #refresh(held: Held): Outcome<void> {
    const context = await this.#context();
    if (!context.ok) return context;
    const tokens = await grants.refreshTokens(context.value, held.refreshToken!);
    if (!tokens.ok) {
      if (tokens.error.kind !== "unreachable" && this.#held === held) {
        // A grant another session on the store was given meanwhile is this one's too.
        const [key, resource] = [this.#client!.key, this.#resourceKey()];
        const stored = await this.#kept.other(key, resource, held);
        if (stored !== undefined) {
          this.#held = this.#take(stored);
          return ok(undefined);
        }
        this.#held = undefined;
        await this.#kept.forget(key, resource, held);
      }
      return tokens;
    }
    // No new refresh token: the old one stays good (the server does not rotate).
    if (tokens.value.refreshToken === undefined) tokens.value.refreshToken = held.refreshToken!;
    return this.#accept(tokens, held.scopes);
  }

  async #accept(tokens: Result<grants.TokenSet, OAuthFailure>, asked: string[]): Outcome<void> {
    if (!tokens.ok) return tokens;
    [tokens.value.accessToken, tokens.value.refreshToken].forEach((t) => this.#secrets.keep(t));
    const now = this.#now();
    const bound = this.#dpop !== undefined;
    this.#held = heldOf(tokens.value, { asked, generation: ++this.#generation, now, bound });
    this.#lastAsked = [...asked];
    // The current token of this resource goes to the store.
    if (this.#client !== undefined && this.#found !== undefined) {
      await this.#kept.keep(this.#client.key, this.#resourceKey(), this.#held);
    }
    return ok(undefined);
  }

  /** A stored grant as held, its secrets known. */
  #take(grant: StoredGrant): Held {
    [grant.accessToken, grant.refreshToken].forEach((secret) => this.#secrets.keep(secret));
    return heldFromStore(grant, ++this.#generation);
  }

  #credentialsFor(target: RequestTarget): Promise<Credentials> {
    const request = { method: target.method ?? "POST", url: this.#targetUrl(target) };
    return credentialsOf(this.#held!, this.#dpop, request);
  }

  #token(): AccessToken {
    return tokenOf(this.#held!, this.#found?.issuer ?? "");
  }

  #targetUrl(target: RequestTarget): URL {
    return target.url === undefined ? this.server : new URL(target.url);
  }

  #resourceKey(): string {
    return this.#found?.resource?.resource ?? `${this.server.origin}${this.server.pathname}`;
  }

  #where(): string {
    return `${this.server.origin}${this.server.pathname}`;
  }
}
