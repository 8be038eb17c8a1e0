import assert from "node:assert/strict";
import { HttpTransport } from "../../../../client/transport/http/http_transport.ts";
import type { ChannelEnd } from "../../../../client/transport/transport.ts";

const META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' +
  '"io.modelcontextprotocol/clientCapabilities":{}}';

type Seen = { method: string; headers: Headers; body: string };

/** A loopback server answering with `answer`, recording what it was sent. */
function serve(answer: (request: Request, body: string) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    seen.push({ method: request.method, headers: request.headers, body });
    return await answer(request, body);
  });
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  return { seen, url, close: () => server.shutdown() };
}

/** Opens a transport whose lines and ends are collected. */
async function open(url: string, headers: Record<string, string> = {}) {
  const transport = new HttpTransport({ name: "t", url, headers });
  const lines: string[] = [];
  const ends: ChannelEnd[] = [];
  const decoder = new TextDecoder();
  await transport.open({
    bytes: (chunk) => lines.push(...decoder.decode(chunk).split("\n").filter((l) => l !== "")),
    end: (cause) => ends.push(cause),
    exit: () => {},
  });
  return { transport, lines, ends };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

Deno.test("a modern request carries its version, method and name as headers, and the catalog's", async () => {
  const server = serve((_request, body) =>
    Response.json({
      jsonrpc: "2.0",
      id: JSON.parse(body).id,
      result: { resultType: "complete", content: [] },
    })
  );
  try {
    const { transport, lines } = await open(server.url, { Authorization: "Bearer t-1" });
    transport.write(
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{${META},"name":"héllo"}}\n`,
    );
    await until(() => lines.length === 1);
    const headers = server.seen[0]?.headers;
    assert.equal(headers?.get("mcp-protocol-version"), "2026-07-28");
    assert.equal(headers?.get("mcp-method"), "tools/call");
    assert.equal(headers?.get("mcp-name"), "=?base64?aMOpbGxv?=");
    assert.equal(headers?.get("authorization"), "Bearer t-1");
    assert.equal(headers?.get("mcp-session-id"), null);
    assert.equal(headers?.get("accept"), "application/json, text/event-stream");
    assert.equal(JSON.parse(lines[0] ?? "").id, 4);
    await transport.dispose();
  } finally {
    await server.close();
  }
});

Deno.test("a request given up has its stream closed, and a modern cancellation is not posted", async () => {
  let aborted = false;
  const server = serve((request) =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(": waiting\n\n"));
          request.signal.addEventListener("abort", () => aborted = true);
        },
        cancel() {
          aborted = true;
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  try {
    const { transport } = await open(server.url);
    transport.write(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{${META},"name":"x"}}\n`,
    );
    await until(() => server.seen.length === 1);
    transport.done(1);
    transport.write(
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{${META},"requestId":1}}\n`,
    );
    await until(() => aborted);
    assert.equal(server.seen.length, 1);
    await transport.dispose();
  } finally {
    await server.close();
  }
});

Deno.test("a pretty-printed JSON body reaches the machine as one line", async () => {
  const server = serve((_request, body) =>
    new Response(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(body).id, result: {} }, null, 2), {
      headers: { "content-type": "application/json; charset=utf-8" },
    })
  );
  try {
    const { transport, lines } = await open(server.url);
    transport.write('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}\n');
    await until(() => lines.length === 1);
    assert.deepEqual(JSON.parse(lines[0] ?? ""), { jsonrpc: "2.0", id: 2, result: {} });
    await transport.dispose();
  } finally {
    await server.close();
  }
});

Deno.test("release says a stateless session had nothing to end, and deletes a session with an id", async () => {
  const server = serve((request, body) => {
    if (request.method === "DELETE") return new Response(null, { status: 204 });
    const id = JSON.parse(body).id;
    return Response.json({ jsonrpc: "2.0", id, result: { protocolVersion: "2025-11-25" } }, {
      headers: { "mcp-session-id": "s-9" },
    });
  });
  try {
    const stateless = await open(server.url);
    assert.deepEqual(await stateless.transport.release(1_000), {
      kind: "remote",
      url: server.url,
      session: "stateless",
    });
    const { transport, lines } = await open(server.url);
    transport.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n');
    await until(() => lines.length === 1);
    assert.deepEqual(await transport.release(1_000), {
      kind: "remote",
      url: server.url,
      session: "deleted",
      status: 204,
    });
    const deleted = server.seen.at(-1);
    assert.equal(deleted?.method, "DELETE");
    assert.equal(deleted?.headers.get("mcp-session-id"), "s-9");
    assert.equal(deleted?.headers.get("mcp-protocol-version"), "2025-11-25");
  } finally {
    await server.close();
  }
});

Deno.test("a URL that is not http or https is caller misuse", () => {
  assert.throws(
    () => new HttpTransport({ name: "t", url: "file:///etc/passwd", headers: {} }),
    TypeError,
  );
});
