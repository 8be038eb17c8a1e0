/**
 * The two ends of a session a harness may hold itself: a fetch whose requests
 * carry the session's credentials and retry a refusal the way the session
 * answers it (what a client's transport does with a session, on one thread),
 * and a headless user agent, an `authorize` that follows the authorization
 * server's redirects to the redirect URI without a browser (for servers that
 * sign a client in without asking a person, and for tests).
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { Authorize } from "../settings/oauth.ts";
import type { OAuthFailure } from "./failures.ts";
import type { OAuthSession } from "./session.ts";
import type { Credentials, Refusal } from "./credentials.ts";
import { type Fetch, portOf, systemError } from "./_http.ts";
import { MAX_AUTHORIZE_REDIRECTS } from "./limits.ts";

/** A fetch whose answer is a value: the response, or why there is none. */
export type AuthorizedFetch = (
  input: string | URL,
  init?: RequestInit,
) => Promise<Result<Response, OAuthFailure>>;

/**
 * A fetch of the server's requests through `session`: each carries the
 * session's credentials, and a 401 or 403 is handed to the session, whose
 * new credentials the request is made again with, until it is let in or the
 * session gives up. A request body must be one that can be sent again (a
 * string or bytes, not a stream).
 *
 * @example List a remote server's tools
 * ```ts ignore
 * import { authorizedFetch, OAuthSession } from "./mod.ts";
 * const session = new OAuthSession("https://mcp.example.com/mcp", { clientId: "c" });
 * const answer = await authorizedFetch(session)("https://mcp.example.com/mcp", { method: "POST" });
 * if (!answer.ok && answer.error.kind === "needs_auth") console.log(answer.error.authorizationUrl);
 * ```
 */
export function authorizedFetch(session: OAuthSession, base: Fetch = fetch): AuthorizedFetch {
  return async (input, init = {}) => {
    const url = new URL(input);
    const method = init.method ?? "GET";
    const first = await session.credentials({ method, url });
    if (!first.ok) return first;
    let credentials: Credentials | undefined = first.value;
    for (let attempt = 1;; attempt++) {
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(credentials?.headers ?? {})) {
        headers.set(name, value);
      }
      let response: Response;
      try {
        response = await base(url, { ...init, headers });
      } catch (error) {
        const cause = systemError(error);
        return err({
          kind: "unreachable",
          message: `Cannot reach ${url.hostname}:${portOf(url)} (${url.origin}${url.pathname}): ` +
            `${cause}; check that the server is up and that this machine can reach it`,
          url: `${url.origin}${url.pathname}`,
          host: url.hostname,
          port: portOf(url),
          cause,
        });
      }
      if (response.status !== 401 && response.status !== 403) return ok(response);
      await response.body?.cancel().catch(() => {});
      const refusal: Refusal = {
        status: response.status,
        wwwAuthenticate: response.headers.get("www-authenticate"),
        dpopNonce: response.headers.get("dpop-nonce"),
        method,
        url,
        attempt,
      };
      if (credentials !== undefined) refusal.generation = credentials.generation;
      const next = await session.challenge(refusal);
      if (!next.ok) return next;
      credentials = next.value;
    }
  };
}

/**
 * A user agent without a browser: it fetches the authorization URL and
 * follows its redirects (at most {@linkcode MAX_AUTHORIZE_REDIRECTS}) until
 * one goes to `redirectUri`, whose query it resolves to. It rejects when the
 * authorization server answers with a page instead (it wants a person).
 *
 * @example Sign in to a server that asks no person
 * ```ts ignore
 * import { headlessAuthorize, OAuthSession } from "./mod.ts";
 * const redirectUri = "http://127.0.0.1:19876/callback";
 * const session = new OAuthSession("https://mcp.example.com/mcp", {
 *   redirectUri,
 *   authorize: headlessAuthorize(redirectUri),
 * });
 * console.log((await session.accessToken()).ok);
 * ```
 */
export function headlessAuthorize(redirectUri: string, base: Fetch = fetch): Authorize {
  const target = new URL(redirectUri);
  return async (start) => {
    let url = new URL(start);
    for (let hop = 0; hop <= MAX_AUTHORIZE_REDIRECTS; hop++) {
      if (url.origin === target.origin && url.pathname === target.pathname) return url.searchParams;
      const response = await base(url, { redirect: "manual" });
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || location === null) {
        throw new Error(
          `The authorization server answered ${url.origin}${url.pathname} with HTTP ` +
            `${response.status} instead of a redirect: it wants a person; sign in with a browser`,
        );
      }
      url = new URL(location, url);
    }
    throw new Error(
      `The authorization server redirected more than ${MAX_AUTHORIZE_REDIRECTS} times without ` +
        `reaching ${
          quote(`${target.origin}${target.pathname}`)
        }; check the oauth setting redirectUri`,
    );
  };
}
