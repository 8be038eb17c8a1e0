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
import { MAX_AUTHORIZE_REDIRECTS, MAX_FETCH_REDIRECTS } from "./limits.ts";

/** A fetch whose answer is a value: the response, or why there is none. */
export type AuthorizedFetch = (
  input: string | URL,
  init?: RequestInit,
) => Promise<Result<Response, OAuthFailure>>;

/** One request of an authorized fetch: where, how, with what. */
type Hop = { url: URL; method: string; body: BodyInit | null | undefined };

/**
 * A fetch of the server's requests through `session`: each carries the
 * session's credentials, and a 401 or 403 is handed to the session, whose
 * new credentials the request is made again with, until it is let in or the
 * session gives up. A request body must be one that can be sent again (a
 * string or bytes, not a stream). A URL outside the protected resource the
 * session signs in to (another origin, or a path outside the resource) is
 * refused before anything is sent (`outside_resource`); redirects are
 * followed here, at most {@linkcode MAX_FETCH_REDIRECTS}, each carrying the
 * session's credentials only when its target is inside the resource.
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
    // Followed here rather than by fetch, which would send a token along to any path.
    const follow = init.redirect === undefined || init.redirect === "follow";
    const sent: RequestInit = follow ? { ...init, redirect: "manual" } : init;
    let hop: Hop = { url: new URL(input), method: init.method ?? "GET", body: init.body };
    for (let hops = 0;; hops++) {
      // The first URL is refused outside the resource (the session says so); a redirect
      // out of it is followed without the session's credentials.
      const signed = hops === 0 || session.covers(hop.url);
      const answer = signed
        ? await withCredentials(session, base, hop, sent)
        : await plainly(base, hop, sent);
      if (!answer.ok || !follow || hops === MAX_FETCH_REDIRECTS) return answer;
      const next = redirectOf(answer.value, hop);
      if (next === undefined) return answer;
      await answer.value.body?.cancel().catch(() => {});
      hop = next;
    }
  };
}

/** Sends `hop` with the session's credentials, answering each refusal as the session says. */
async function withCredentials(
  session: OAuthSession,
  base: Fetch,
  hop: Hop,
  init: RequestInit,
): Promise<Result<Response, OAuthFailure>> {
  const { url, method } = hop;
  const first = await session.credentials({ method, url });
  if (!first.ok) return first;
  let credentials: Credentials | undefined = first.value;
  for (let attempt = 1;; attempt++) {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(credentials?.headers ?? {})) {
      headers.set(name, value);
    }
    const response = await plainly(base, hop, { ...init, headers });
    if (!response.ok) return response;
    const { status } = response.value;
    if (status !== 401 && status !== 403) return response;
    await response.value.body?.cancel().catch(() => {});
    const refusal: Refusal = {
      status,
      wwwAuthenticate: response.value.headers.get("www-authenticate"),
      dpopNonce: response.value.headers.get("dpop-nonce"),
      method,
      url,
      attempt,
    };
    if (credentials !== undefined) refusal.generation = credentials.generation;
    const next = await session.challenge(refusal);
    if (!next.ok) return next;
    credentials = next.value;
  }
}

/** Sends `hop` as it is: no credentials of the session. */
async function plainly(
  base: Fetch,
  hop: Hop,
  init: RequestInit,
): Promise<Result<Response, OAuthFailure>> {
  const { url } = hop;
  try {
    return ok(await base(url, { ...init, method: hop.method, body: hop.body ?? null }));
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
}

/**
 * Where a redirect answer sends `hop` next, as fetch would: 303, and 301 or
 * 302 of a POST, become a GET without a body; undefined for any other answer.
 */
function redirectOf(response: Response, hop: Hop): Hop | undefined {
  const location = response.headers.get("location");
  if (![301, 302, 303, 307, 308].includes(response.status) || location === null) return undefined;
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    return undefined;
  }
  const changes = response.status === 303 && hop.method !== "HEAD" ||
    (response.status === 301 || response.status === 302) && hop.method === "POST";
  return changes ? { url, method: "GET", body: undefined } : { ...hop, url };
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
