// One authorization server and one protected resource of the tests, started
// together and closed together, with a session's fetch ready to use.

import {
  type AuthServerOptions,
  newBook,
  type ResourceOptions,
  rpc,
  startAuthServer,
  startResource,
} from "./_loopback.ts";
import {
  authorizedFetch,
  DEFAULT_REDIRECT_URI,
  headlessAuthorize,
  OAuthSession,
  type OAuthSessionOptions,
  type OAuthSettings,
} from "../../oauth/mod.ts";

export type World = Awaited<ReturnType<typeof world>>;

/** Starts both servers; `close` stops them. */
export function world(
  asOptions: AuthServerOptions = {},
  rsOptions: Partial<ResourceOptions> = {},
) {
  const book = newBook();
  const as = startAuthServer(book, asOptions);
  const rs = startResource(book, { authorizationServer: () => as.issuer, ...rsOptions });
  return {
    book,
    as,
    rs,
    async close() {
      await as.close();
      await rs.close();
    },
  };
}

/** Runs `test` with both servers, closing them after. */
export async function within(
  options: { as?: AuthServerOptions; rs?: Partial<ResourceOptions> },
  test: (w: World) => Promise<void>,
): Promise<void> {
  const w = world(options.as, options.rs);
  try {
    await test(w);
  } finally {
    await w.close();
  }
}

/** The settings of a person who signs in at once (a headless user agent). */
export function signingIn(extra: OAuthSettings = {}): OAuthSettings {
  return { authorize: headlessAuthorize(DEFAULT_REDIRECT_URI), ...extra };
}

/** A session of the resource and a fetch that posts one JSON-RPC method through it. */
export function client(w: World, settings: OAuthSettings, options: OAuthSessionOptions = {}) {
  const session = new OAuthSession(w.rs.url, settings, options);
  const authorized = authorizedFetch(session);
  return {
    session,
    call: async (method: string) => {
      const answer = await authorized(w.rs.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: rpc(method),
      });
      // The tests read an answer's status only; its body is the caller's to
      // end, and one left open would outlive the test.
      if (answer.ok) await answer.value.body?.cancel();
      return answer;
    },
  };
}
