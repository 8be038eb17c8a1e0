// Private to client/: a remote server's sign-in, held on the main thread for
// its client: one OAuthSession (`oauth/`), which alone talks to authorization
// servers and holds refresh tokens, client secrets and DPoP keys. The worker
// asks it, on tickets of its own, for the credentials of a request and for
// new ones after a refusal (`answer`); only the headers a request carries
// cross back. While a worker runs, a token about to expire is refreshed here
// ahead of time and its headers are posted (`watch`), so that a request
// rarely meets an expired token; one that does is refused and asks. When to
// refresh is the session's to say (`status().refreshAt`); a wait longer than a
// timer can keep (MAX_TIMEOUT_MS, about 24.8 days: a token living 30 days) is
// waited in steps, each of which only arms the next.
//
// DPoP: a DPoP-bound token needs a proof per request (RFC 9449: method, URL,
// a fresh `jti`, the token's hash, the server's nonce). The worker asks for
// each request's headers rather than holding the key: a non-extractable
// CryptoKey could cross to it, but the signer would have to follow (the
// worker may not import `oauth/`), and the nonces the server hands out are
// the session's to keep; one ask costs a hop between threads beside an HTTP
// request, and only servers that bind tokens pay it.

import type { AuthAnswer, AuthFailure } from "./thread/auth.ts";
import type { WorkerAsk } from "./thread/from_worker.ts";
import { encodeFreshCredentials, type ToWorker } from "./thread/to_worker.ts";
import type { Result } from "../codec/result.ts";
import { OAuthSession } from "../oauth/session.ts";
import type { Credentials } from "../oauth/credentials.ts";
import type { OAuthFailure } from "../oauth/failures.ts";
import { FileTokenStore, type TokenStore } from "../oauth/store.ts";
import { MAX_TIMEOUT_MS } from "../settings/limits.ts";
import { isRemote, type ServerSpec } from "../settings/server_spec.ts";
import type { OAuthSettings } from "../settings/oauth.ts";

/** The shortest wait before a refresh ahead of expiry, in ms: 1 s. */
const MIN_REFRESH_WAIT_MS = 1_000;

/**
 * The sign-in of a client's server: a remote server with `oauth` settings of
 * its own, or the ones given for every remote server that has none; none
 * for a server run here, or a remote one with neither.
 */
export function signInOf(
  spec: ServerSpec,
  options: { oauth?: OAuthSettings; tokenStore?: TokenStore },
): SignIn | undefined {
  if (!isRemote(spec)) return undefined;
  const settings = spec.oauth ?? options.oauth;
  if (settings === undefined) return undefined;
  const store = options.tokenStore ?? new FileTokenStore();
  return new SignIn(new OAuthSession(spec.url, settings, { store }));
}

/**
 * A timer that keeps no process alive: runs `run` after `ms` (at most
 * `MAX_TIMEOUT_MS`), and returns what cancels it.
 */
export type RefreshTimer = (run: () => void, ms: number) => () => void;

function unrefTimer(run: () => void, ms: number): () => void {
  const timer = setTimeout(run, ms);
  // Nothing waits on it: it keeps no process alive.
  Deno.unrefTimer(timer);
  return () => clearTimeout(timer);
}

/** One remote server's sign-in, as its client's worker reaches it. */
export class SignIn {
  /** The session: discovery, grants, refresh, the store. */
  readonly session: OAuthSession;
  #post: ((message: ToWorker) => void) | undefined;
  #cancel: (() => void) | undefined;
  #now: () => number;
  #timer: RefreshTimer;

  /** The sign-in of `session`; `options` replace the clock and the timer (tests do). */
  constructor(session: OAuthSession, options: { now?: () => number; timer?: RefreshTimer } = {}) {
    this.session = session;
    this.#now = options.now ?? Date.now;
    this.#timer = options.timer ?? unrefTimer;
  }

  /** Answers the worker's ask for credentials (`credentials`) or after a refusal (`challenge`). */
  async answer(ask: Extract<WorkerAsk, { method: "credentials" | "challenge" }>) {
    let outcome: Result<Credentials | undefined, OAuthFailure>;
    try {
      if (ask.method === "credentials") {
        outcome = await this.session.credentials(ask.target);
      } else {
        const { serial, ...refusal } = ask.refusal;
        outcome = await this.session.challenge(
          serial === null ? refusal : { ...refusal, generation: serial },
        );
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcome = { ok: false, error: { kind: "refused", message, status: 0 } };
    }
    this.#schedule();
    return answerOf(outcome);
  }

  /** Posts each token refreshed ahead of its expiry to the worker, until `stop`. */
  watch(post: (message: ToWorker) => void): void {
    this.#post = post;
    this.#schedule();
  }

  /** Stops refreshing ahead of time: the worker is gone. */
  stop(): void {
    this.#post = undefined;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /**
   * Ends the sign-in for good: no refresh ahead of time, and every request
   * of the session in flight abandoned (its client retires). Resolves when
   * the session's operation running has settled, or after `withinMs` (a
   * harness's own token store may be what it waits on), whichever is first.
   */
  async close(withinMs: number): Promise<void> {
    this.stop();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => timer = setTimeout(resolve, withinMs));
    try {
      await Promise.race([this.session.close(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Arms the refresh of the current token ahead of its expiry, when the session says when. */
  #schedule(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    const refreshAt = this.session.status().refreshAt;
    if (this.#post === undefined || refreshAt === undefined) return;
    const wait = Math.max(MIN_REFRESH_WAIT_MS, refreshAt - this.#now());
    // Past what a timer can keep, it would fire at once: a step of the wait arms the next.
    this.#cancel = wait > MAX_TIMEOUT_MS
      ? this.#timer(() => this.#schedule(), MAX_TIMEOUT_MS)
      : this.#timer(() => void this.#refresh(), wait);
  }

  async #refresh(): Promise<void> {
    this.#cancel = undefined;
    const outcome = await this.session.credentials();
    const post = this.#post;
    if (post === undefined) return;
    // A bound token's headers are made per request; the worker asks for those.
    if (outcome.ok && outcome.value !== undefined && outcome.value.scheme !== "DPoP") {
      post(encodeFreshCredentials({ ...headersOf(outcome.value), perRequest: false }));
    }
    this.#schedule();
  }
}

function headersOf(credentials: Credentials) {
  return { headers: { ...credentials.headers }, serial: credentials.generation };
}

/** What crosses of a sign-in's outcome: headers, or a failure without any secret. */
function answerOf(outcome: Result<Credentials | undefined, OAuthFailure>): AuthAnswer {
  if (!outcome.ok) return { ok: false, error: failureOf(outcome.error) };
  const credentials = outcome.value;
  if (credentials === undefined) {
    return { ok: true, value: { headers: {}, serial: 0, perRequest: false } };
  }
  return {
    ok: true,
    value: { ...headersOf(credentials), perRequest: credentials.scheme === "DPoP" },
  };
}

function failureOf(failure: OAuthFailure): AuthFailure {
  const out: AuthFailure = { kind: failure.kind, message: failure.message };
  if (failure.kind === "needs_auth") {
    out.authorizationUrl = failure.authorizationUrl;
    out.issuer = failure.issuer;
  }
  return out;
}
