// A network in memory for a session's `fetch` option, for tests whose servers
// must live on names no loopback server has (an HTTPS issuer, a plain-HTTP
// host off this machine): handlers by origin, every request recorded, and a
// request to an origin without a handler refused as a connection would be.
// Nothing here opens a socket.

import type { Fetch } from "../../oauth/mod.ts";

/** A request as a handler gets it: its URL, method, headers and body text. */
export type Asked = { method: string; url: URL; headers: Headers; body: string };

/** One origin's server. */
export type Handler = (asked: Asked) => Response | Promise<Response>;

/** The network, and what was asked of it. */
export function virtualNet(routes: Record<string, Handler>): { fetch: Fetch; asked: Asked[] } {
  const asked: Asked[] = [];
  const fetch: Fetch = async (input, init) => {
    const request = new Request(input, init);
    const one: Asked = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: request.body === null ? "" : await request.text(),
    };
    asked.push(one);
    const handler = routes[one.url.origin];
    if (handler === undefined) throw new TypeError(`connection refused: ${one.url.origin}`);
    return await handler(one);
  };
  return { fetch, asked };
}

/** The metadata of an authorization server at `issuer`, its endpoints under it, and `extra`. */
export function asMetadata(issuer: string, extra: Record<string, unknown> = {}): Response {
  return Response.json({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    code_challenge_methods_supported: ["S256"],
    ...extra,
  });
}

/**
 * An authorization server at `issuer`: its metadata (with `metadata` over
 * it), and `token` answering its token endpoint with the form it was sent.
 */
export function authServer(
  issuer: string,
  token: (form: URLSearchParams, asked: Asked) => Response,
  metadata: Record<string, unknown> = {},
): Handler {
  return (asked) => {
    if (asked.url.pathname.startsWith("/.well-known/oauth-authorization-server")) {
      return asMetadata(issuer, metadata);
    }
    if (asked.url.pathname === "/token") return token(new URLSearchParams(asked.body), asked);
    return new Response("not found", { status: 404 });
  };
}

/** A protected resource at `origin` whose metadata names `issuer`; its MCP endpoint is `/mcp`. */
export function resourceServer(origin: string, issuer: string): Handler {
  return (asked) => {
    if (asked.url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      return Response.json({ resource: `${origin}/mcp`, authorization_servers: [issuer] });
    }
    return new Response(null, { status: 401, headers: { "www-authenticate": "Bearer" } });
  };
}

/** A token endpoint's answer: a bearer token living `expiresIn` seconds, and `extra`. */
export function tokenAnswer(expiresIn: number, extra: Record<string, unknown> = {}): Response {
  return Response.json({
    access_token: `at-${crypto.randomUUID()}`,
    token_type: "Bearer",
    expires_in: expiresIn,
    ...extra,
  });
}
