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
 * of a token already replaced is answered with the current one. The token
 * lives in the session's holding (`_holding.ts`: renewed when due, handed out
 * through a server's passing failure, ended only by a refusal of its grant)
 * and in its {@linkcode TokenStore}; the client it presents lives beside it
 * (`_presented.ts`). No token is ever asked for a server reached over plain
 * HTTP off this machine, and no credentials are made for a URL outside the
 * server's protected resource. Every failure and every status it hands out
 * is scrubbed of the secrets it knows.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import type { OAuthGrant, OAuthSettings } from "../settings/oauth.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../settings/problem.ts";
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
import * as discovery from "./_discovery.ts";
import { storeKeyOf } from "./_client.ts";
import * as grants from "./_grants.ts";
import { PresentedClient } from "./_presented.ts";
import * as obtaining from "./_obtain.ts";
import { Secrets } from "./_secrets.ts";
import { credentialsOf, statusOf, tokenOf } from "./_held.ts";
import { Holding, type Place } from "./_holding.ts";
import { KeptGrants } from "./_kept.ts";
import { refreshVerdict } from "./_renewal.ts";
import { MemoryTokenStore } from "./store.ts";
import {
  MAX_AUTHORIZATION_RETRIES,
  OAUTH_REQUEST_TIMEOUT_MS,
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
  #signInTimeoutMs: number;
  #unencrypted: OAuthFailure | undefined;
  #found: discovery.Discovered | undefined;
  #client: PresentedClient;
  #holding: Holding;
  #pending: grants.PendingSignIn | undefined;
  #probed: boolean;
  #secrets = new Secrets();
  #tail: Promise<unknown> = Promise.resolve();
  #closing = new AbortController();

  /**
   * A parked session of the MCP endpoint `server`: nothing is asked before it
   * is used. A deadline of `options` that no timer can keep is a RangeError.
   */
  constructor(server: string | URL, settings: OAuthSettings, options: OAuthSessionOptions = {}) {
    for (const name of ["requestTimeoutMs", "signInTimeoutMs"] as const) {
      const value = options[name];
      if (value !== undefined && !isTimeoutMs(value)) {
        throw new RangeError(`Cannot start a sign-in: ${name} is ${value}, not ${TIMEOUT_RULE}`);
      }
    }
    this.server = new URL(server);
    this.#settings = settings;
    this.#grant = settings.grant ?? "authorization_code";
    this.#redirectUri = obtaining.redirectUriOf(settings);
    this.#kept = new KeptGrants(options.store ?? new MemoryTokenStore());
    // Ahead of any refusal, discovery is worth its requests only where a token can come
    // without a person: from the store, from a refresh token, or from a headless grant.
    this.#probed = options.store === undefined && this.#grant === "authorization_code" &&
      settings.refreshToken === undefined;
    this.#http = boundedFetch(options.fetch ?? fetch, {
      timeoutMs: options.requestTimeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS,
      closed: this.#closing.signal,
      scrub: (text) => this.#secrets.clean(text),
    });
    this.#signInTimeoutMs = options.signInTimeoutMs ?? SIGN_IN_TIMEOUT_MS;
    this.#unencrypted = discovery.plainHttpRefusal(this.server);
    this.#client = new PresentedClient(settings, {
      redirectUri: this.#redirectUri,
      fetch: this.#http,
      kept: this.#kept,
      secrets: this.#secrets,
    });
    this.#holding = new Holding(this.#kept, {
      secrets: this.#secrets,
      now: options.now ?? Date.now,
      headless: this.#grant !== "authorization_code",
      host: {
        place: () => this.#place(),
        context: () => this.#client.context(this.#found!),
        obtain: (scopes) => this.#obtain(scopes),
        clientRefused: (failure) => this.#clientRefused(failure),
      },
    });
    [settings.clientSecret, settings.refreshToken, settings.privateKeyPem, settings.idpClientSecret]
      .forEach((secret) => this.#secrets.keep(secret));
  }

  /**
   * The credentials a request carries: the current token (refreshed first
   * when it is about to expire), or none when there is none yet (the server's
   * refusal will say how to get one). A target outside the server's protected
   * resource gets none: `outside_resource`.
   */
  credentials(target: RequestTarget = {}): Promise<Result<Credentials | undefined, OAuthFailure>> {
    return this.#guarded(target, async () => {
      if (!this.#probed && this.#found === undefined) {
        this.#probed = true;
        const found = await this.#discover(undefined, false);
        if (found.ok && found.value) {
          // A headless grant refused now would be refused again at the server's refusal.
          const gotten = await this.#restoreOrObtain();
          if (!gotten.ok) return gotten;
        }
      }
      const fresh = await this.#holding.fresh();
      if (!fresh.ok) return fresh;
      return ok(this.#holding.held === undefined ? undefined : await this.#credentialsFor(target));
    });
  }

  /**
   * Answers a refusal with credentials for a retry: a DPoP nonce taken, a
   * refresh, a sign-in, or a step-up to the scopes a 403 `insufficient_scope`
   * asks for (with those already granted). Past
   * {@linkcode MAX_AUTHORIZATION_RETRIES} refusals of one request, the
   * refusal is the answer. A refresh that fails for a passing reason is the
   * answer too: the grant is kept, and no one is asked to sign in again.
   */
  challenge(refusal: Refusal): Promise<Result<Credentials, OAuthFailure>> {
    if (refusal.status !== 401 && refusal.status !== 403) {
      throw new RangeError(`Cannot answer HTTP ${refusal.status}: a refusal is 401 or 403`);
    }
    return this.#guarded(refusal, async () => {
      const params = challengeParams(refusal.wwwAuthenticate);
      if (refusal.attempt > MAX_AUTHORIZATION_RETRIES) {
        return err(obtaining.refusedTooOften(refusal, this.#where(), params.scope));
      }
      const [held, dpop] = [this.#holding.held, this.#client.dpop];
      if (
        params.error === "use_dpop_nonce" && refusal.dpopNonce && dpop !== undefined &&
        held?.tokenType === "dpop"
      ) {
        await dpop.rememberNonce(this.#targetUrl(refusal), refusal.dpopNonce);
        return ok(await this.#credentialsFor(refusal));
      }
      // The request carried no token, or one already replaced: the current one may do.
      if (held !== undefined && (refusal.generation ?? 0) < held.generation) {
        return ok(await this.#credentialsFor(refusal));
      }
      if (refusal.status === 403 && params.error !== "insufficient_scope") {
        return err(obtaining.forbidden(this.#where()));
      }
      // A 403 is about scopes, on a server already found; a 401 may mean it moved (SEP-2352).
      if (refusal.status === 401 || this.#found === undefined) {
        const found = await this.#discover(params.resourceMetadata, true);
        if (!found.ok) return found;
      }
      if (refusal.status === 403) {
        const granted = this.#holding.held?.scopes ?? this.#holding.lastAsked;
        const wanted = [...new Set([...granted, ...scopeList(params.scope)])];
        return await this.#obtainCredentials(wanted, refusal);
      }
      // Nothing held yet: the store, a harness's refresh token or a headless grant may do.
      if (this.#holding.held === undefined && !this.#holding.restored) {
        const restored = await this.#restoreOrObtain();
        if (!restored.ok) return restored;
        if (this.#holding.held !== undefined) return ok(await this.#credentialsFor(refusal));
      }
      const current = this.#holding.held;
      if (current?.refreshToken !== undefined) {
        const refreshed = await this.#holding.refresh(current);
        if (refreshed.ok) return ok(await this.#credentialsFor(refusal));
        // Signed in again only when the grant ended.
        if (this.#holding.held !== undefined) return refreshed;
      }
      const scopes = obtaining.selectScopes(this.#settings, this.#found, params.scope);
      return await this.#obtainCredentials(scopes, refusal);
    });
  }

  /**
   * The current access token, getting one if there is none: from the store
   * (refreshed first when it expired there), by refresh, by the headless
   * grant, or by signing in (`needs_auth` when the settings give no
   * `authorize`). What `loom-mcp login` runs.
   */
  accessToken(): Promise<Result<AccessToken, OAuthFailure>> {
    return this.#guarded({}, async () => {
      const known = await this.#known();
      if (!known.ok) return known;
      const gotten = await this.#restoreOrObtain(true);
      return gotten.ok ? ok(this.#token()) : gotten;
    });
  }

  /** A new access token now: by refresh where there is a refresh token, else as at first. */
  refresh(): Promise<Result<AccessToken, OAuthFailure>> {
    return this.#guarded({}, async () => {
      const known = await this.#known();
      if (!known.ok) return known;
      const restored = await this.#holding.restore();
      if (!restored.ok) return restored;
      const held = this.#holding.held;
      if (held?.refreshToken !== undefined) {
        const done = await this.#holding.refresh(held);
        if (done.ok) return ok(this.#token());
        // Only a registration the server no longer knows, now dropped, starts over.
        if (!this.#dropped(done.error)) return done;
      }
      const scopes = held?.scopes ?? obtaining.selectScopes(this.#settings, this.#found, undefined);
      const done = await this.#obtain(scopes);
      return done.ok ? ok(this.#token()) : done;
    });
  }

  /**
   * Finishes the sign-in a `needs_auth` began, with the query of the request
   * that reached the redirect URI. A query with another `state` is refused
   * and the sign-in waits on: any web page can send one to a loopback port.
   */
  completeSignIn(callback: URLSearchParams): Promise<Result<AccessToken, OAuthFailure>> {
    return this.#guarded({}, async () => {
      const pending = this.#pending;
      if (pending === undefined) return err(obtaining.noSignInWaiting(this.#where()));
      if (callback.get("state") !== pending.request.state) {
        return err(obtaining.foreignCallback(this.#where()));
      }
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
      this.#holding.drop();
      this.#pending = undefined;
      const known = await this.#known();
      if (!known.ok) return known;
      const place = this.#place();
      if (place !== undefined) await this.#kept.keep(place.key, place.resource, undefined);
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
    const out = statusOf(this.#holding.held, {
      grant: this.#grant,
      pending: this.#pending !== undefined,
      notBefore: this.#holding.retryAt,
    });
    if (this.#found !== undefined) {
      out.issuer = this.#found.issuer;
      out.resource = this.#resourceKey();
    }
    const client = this.#client.prepared;
    if (client !== undefined) out.client = client.record.origin;
    if (this.#kept.failure !== undefined) out.storeFailure = this.#kept.failure;
    return out;
  }

  /**
   * Whether a request to `url` may carry this session's credentials: one on
   * the server's origin, within its protected resource (the resource its
   * metadata names, else the server's own URL), as RFC 9728 §3 and RFC 8707
   * have a resource indicator cover the URLs under it.
   */
  covers(url: string | URL): boolean {
    return discovery.resourceCovers(new URL(this.#resourceKey()), new URL(url));
  }

  /** Runs `task` after every earlier operation, and scrubs the failure it ends with. */
  #turn<T>(task: () => Outcome<T>): Outcome<T> {
    const run = this.#tail.then(task, task).then((result) =>
      result.ok ? result : err(this.#secrets.scrub(result.error))
    );
    this.#tail = run.then(() => {}, () => {});
    return run;
  }

  /**
   * `#turn`, for an operation that may end in a token for `target`: none for a
   * server reached unencrypted, nor for a URL outside the protected resource.
   */
  #guarded<T>(target: RequestTarget, task: () => Outcome<T>): Outcome<T> {
    return this.#turn(() => {
      if (this.#unencrypted !== undefined) return Promise.resolve(err(this.#unencrypted));
      if (target.url !== undefined && !this.covers(target.url)) {
        const outside = obtaining.outsideResource(new URL(target.url), this.#resourceKey());
        return Promise.resolve(err(outside));
      }
      return task();
    });
  }

  /** Discovers the authorization server, unless it is known. */
  async #known(): Outcome<unknown> {
    return this.#found === undefined ? await this.#discover(undefined, true) : ok(undefined);
  }

  async #discover(resourceMetadataUrl: string | undefined, allowLegacy: boolean): Outcome<boolean> {
    const found = await discovery.discover(this.server, {
      allowLegacy,
      fetch: this.#http,
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    });
    if (!found.ok) return found;
    if (found.value === undefined) return ok(false);
    const before = this.#found;
    this.#found = found.value;
    if (before !== undefined && !discovery.sameAuthority(before, found.value)) {
      // The server moved to another authorization server (or resource): nothing of the
      // old one is presented to the new (SEP-2352).
      this.#client.reset();
      this.#holding.drop();
      this.#pending = undefined;
    }
    return ok(true);
  }

  /**
   * The token held or stored, renewed first when due (an expired one is never
   * handed out), or one got without a person if that can be done (with one,
   * when `interactive`).
   */
  async #restoreOrObtain(interactive = false): Outcome<void> {
    const restored = await this.#holding.restore();
    if (!restored.ok) return restored;
    const fresh = await this.#holding.fresh();
    if (!fresh.ok || this.#holding.held !== undefined) return fresh;
    const given = await this.#holding.refreshGiven(this.#settings.refreshToken);
    if (!given.ok || given.value) return given.ok ? ok(undefined) : given;
    if (this.#grant === "authorization_code" && !interactive) return ok(undefined);
    return await this.#obtain(obtaining.selectScopes(this.#settings, this.#found, undefined));
  }

  async #obtainCredentials(scopes: string[], target: RequestTarget): Outcome<Credentials> {
    const done = await this.#obtain(scopes);
    return done.ok ? ok(await this.#credentialsFor(target)) : done;
  }

  /** A new token by the session's grant, for `scopes`. */
  async #obtain(scopes: string[]): Outcome<void> {
    const context = await this.#client.context(this.#found!);
    if (!context.ok) return context;
    if (this.#grant === "authorization_code") return await this.#signIn(context.value, scopes);
    const options = { fetch: this.#http, secrets: this.#secrets };
    const tokens = await obtaining.headlessTokens(
      this.#grant,
      this.#settings,
      context.value,
      scopes,
      options,
    );
    const bound = this.#client.dpop !== undefined;
    return await this.#holding.accept(tokens, { asked: scopes, bound });
  }

  async #signIn(context: grants.GrantContext, scopes: string[]): Outcome<void> {
    const found = this.#found!;
    const refusal = obtaining.pkceRefusal(found);
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
        return err(obtaining.needsAuth(this.#where(), shown.request.url, found.issuer));
      }
      this.#pending = pending;
      return err(obtaining.needsAuth(this.#where(), request.value.url, found.issuer));
    }
    const callback = await obtaining.awaitAuthorize(authorize, request.value.url, {
      timeoutMs: this.#signInTimeoutMs,
      where: this.#where(),
      signal: this.#closing.signal,
    });
    if (!callback.ok) return callback;
    const done = await this.#finish(pending, callback.value);
    // The registration the code was for is gone: registered again, and signed in once more.
    if (!done.ok && this.#dropped(done.error)) return await this.#obtain(scopes);
    return done;
  }

  async #finish(pending: grants.PendingSignIn, callback: URLSearchParams): Outcome<void> {
    this.#secrets.keep(callback.get("code") ?? undefined);
    const answer = obtaining.scrubbedCallback(callback, (text) => this.#secrets.clean(text));
    const tokens = await grants.exchangeCode(pending.context, answer, pending.request);
    if (this.#pending === pending) this.#pending = undefined;
    if (!tokens.ok && refreshVerdict(tokens.error) === "client_refused") {
      return await this.#clientRefused(tokens.error);
    }
    const bound = this.#client.dpop !== undefined;
    return await this.#holding.accept(tokens, { asked: pending.scopes, bound });
  }

  /** After `invalid_client`: a registration the server no longer knows is dropped, with its token. */
  async #clientRefused(refused: OAuthFailure): Outcome<void> {
    const { dropped, failure } = await this.#client.refused(refused);
    if (dropped) this.#holding.drop();
    return err(failure);
  }

  /** Whether `failure` dropped the client: a registration the server no longer knows. */
  #dropped(failure: OAuthFailure): boolean {
    return refreshVerdict(failure) === "client_refused" && this.#client.prepared === undefined;
  }

  /** Where this resource's token is kept, once its authorization server is known. */
  #place(): Place | undefined {
    if (this.#found === undefined) return undefined;
    const key = storeKeyOf(this.#found, this.#settings, this.#redirectUri);
    return { key, resource: this.#resourceKey() };
  }

  #credentialsFor(target: RequestTarget): Promise<Credentials> {
    const request = { method: target.method ?? "POST", url: this.#targetUrl(target) };
    return credentialsOf(this.#holding.held!, this.#client.dpop, request);
  }

  #token(): AccessToken {
    return tokenOf(this.#holding.held!, this.#found?.issuer ?? "");
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
