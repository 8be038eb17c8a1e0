// A loopback MCP endpoint whose sign-in never gets past discovery: the MCP
// endpoint refuses with 401 and points at protected resource metadata that
// names this same origin as authorization server, whose metadata answer
// sends its headers and a first byte, and then nothing, until the client goes
// away. `asked` resolves when that answer has begun (and GET /asked answers
// then, for a client in another process); `abandoned` when the client gave it
// up. No timer: the drip waits on the client alone.

/** Starts the server; `close` stops it once the client has given up. */
export function startDripping() {
  let began!: () => void;
  const asked = new Promise<void>((resolve) => began = resolve);
  let gaveUp!: () => void;
  const abandoned = new Promise<void>((resolve) => gaveUp = resolve);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    const origin = url.origin;
    if (url.pathname === "/asked") return asked.then(() => new Response("asked"));
    if (url.pathname === "/mcp") {
      return new Response("sign in first", {
        status: 401,
        headers: {
          "www-authenticate":
            `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        },
      });
    }
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      return Response.json({ resource: `${origin}/mcp`, authorization_servers: [origin] });
    }
    if (url.pathname.startsWith("/.well-known/")) {
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!sent) {
            sent = true;
            controller.enqueue(new TextEncoder().encode("{"));
            began();
            return;
          }
          return abandoned;
        },
        cancel() {
          gaveUp();
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    }
    return new Response("not found", { status: 404 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    asked,
    abandoned,
    async close(): Promise<void> {
      await abandoned;
      await server.shutdown();
    },
  };
}
