// Shared by the sign-in tests of the client: the loopback authorization
// server of the oauth/ tests, and an MCP server of the legacy era that it
// protects (RFC 9728 metadata, 401 with `resource_metadata`), both in this
// process on 127.0.0.1. The MCP server answers server/discover with 404 and
// -32601 (a server of the legacy era), initialize with a session id,
// tools/list with one tool, `whoami`, and its calls with the scopes of the
// token that made them (a call with `echo: true` with an error echoing its
// `Authorization`). `revoke()` forgets every live access token, as an
// expiry would.

import { type AuthServerOptions, type Book, newBook, startAuthServer } from "../oauth/_loopback.ts";

/** What the MCP server saw: each request's method and the token it carried. */
export type Seen = { method: string; token: string | undefined; status: number };

/** Starts the MCP server protected by `issuer`'s tokens, recorded in `book`. */
export function startMcpResource(book: Book, issuer: () => string) {
  const seen: Seen[] = [];
  let origin = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return Response.json({ resource: `${origin}/mcp`, authorization_servers: [issuer()] });
    }
    if (url.pathname !== "/mcp") return new Response("not here", { status: 404 });
    const authorization = request.headers.get("authorization");
    const token = authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined;
    const body = request.method === "POST" ? await request.json() : {};
    const method = String(body.method ?? request.method);
    const scopes = token === undefined ? undefined : book.tokens.get(token);
    if (scopes === undefined) {
      seen.push({ method, token, status: 401 });
      const error = token === undefined ? "" : ', error="invalid_token"';
      return new Response("sign in first", {
        status: 401,
        headers: {
          "www-authenticate": `Bearer realm="mcp"${error}, resource_metadata=` +
            `"${origin}/.well-known/oauth-protected-resource/mcp"`,
        },
      });
    }
    seen.push({ method, token, status: 200 });
    if (request.method === "DELETE") return new Response(null, { status: 200 });
    if (body.id === undefined) return new Response(null, { status: 202 });
    const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
    switch (method) {
      case "initialize":
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "protected", version: "1" },
          },
        }, { headers: { "mcp-session-id": "s-1" } });
      case "tools/list":
        return reply({ tools: [{ name: "whoami", inputSchema: { type: "object" } }] });
      case "tools/call":
        if (body.params?.arguments?.echo === true) {
          // A server that echoes the credentials it was sent, in an error.
          return Response.json({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32001, message: `refused for ${authorization}` },
          });
        }
        return reply({ content: [{ type: "text", text: `scopes: ${scopes.join(" ")}` }] });
      default:
        return Response.json(
          { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } },
          { status: method === "server/discover" ? 404 : 200 },
        );
    }
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    url: `${origin}/mcp`,
    seen,
    /** Forgets every live access token, as their expiry would. */
    revoke() {
      book.tokens.clear();
    },
    close: () => server.shutdown(),
  };
}

/** Both servers, started together; `close` stops them. */
export function oauthWorld(asOptions: AuthServerOptions = {}) {
  const book = newBook();
  const as = startAuthServer(book, asOptions);
  const mcp = startMcpResource(book, () => as.issuer);
  return {
    book,
    as,
    mcp,
    async close() {
      await mcp.close();
      await as.close();
    },
  };
}

/** Every secret the servers issued that must never reach a report: all of them. */
export function secretsIn(book: Book, text: string): string[] {
  return [...book.secrets].filter((secret) => text.includes(secret));
}
