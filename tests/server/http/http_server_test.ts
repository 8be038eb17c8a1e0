// The Streamable HTTP server transport over loopback, driven by fetch and by
// the official SDK clients (v1 for the session era, v2 for 2026-07-28).

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "@modelcontextprotocol/client";
import {
  HEADER_MISMATCH,
  type HttpListener,
  type HttpMessageHandler,
  listenHttp,
  MAX_HTTP_BODY_BYTES,
  MAX_HTTP_SESSIONS,
} from "../../../server/mod.ts";
import { type Seen, testHandler } from "./_handler.ts";

const TOKEN = "test-token-0123456789abcdef";
const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function withServer(
  body: (server: HttpListener, seen: Seen) => Promise<void>,
  handler?: HttpMessageHandler,
): Promise<void> {
  const made = testHandler();
  const listening = await listenHttp(handler ?? made.handler, { token: TOKEN });
  assert.ok(listening.ok);
  try {
    await body(listening.value, made.seen);
  } finally {
    await listening.value.close();
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...extra,
  };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

async function post(
  server: HttpListener,
  message: unknown,
  extra: Record<string, string> = {},
): Promise<Response> {
  return await fetch(server.url, {
    method: "POST",
    headers: headers(extra),
    body: JSON.stringify(message),
  });
}

async function openSession(server: HttpListener): Promise<string> {
  const response = await post(server, INITIALIZE);
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const id = response.headers.get("mcp-session-id");
  assert.ok(id !== null);
  return id;
}

function modernCall(id: number, name: string, args: Record<string, unknown> = {}): unknown {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: META },
  };
}

const MODERN_HEADERS = (name: string): Record<string, string> => ({
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": name,
});

Deno.test("listenHttp() refuses a request without the bearer token with 401", async () => {
  await withServer(async (server, seen) => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(INITIALIZE),
    });
    assert.equal(response.status, 401);
    assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.match(await response.text(), /Authorization: Bearer/);
    assert.deepEqual(seen.methods, []);
  });
});

Deno.test("listenHttp() refuses a request with another token with 401", async () => {
  await withServer(async (server) => {
    const response = await post(server, INITIALIZE, { authorization: `Bearer ${TOKEN}x` });
    assert.equal(response.status, 401);
    await response.body?.cancel();
  });
});

Deno.test("listenHttp() refuses a foreign Origin with 403 before it looks at the token", async () => {
  await withServer(async (server, seen) => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example" },
      body: JSON.stringify(INITIALIZE),
    });
    assert.equal(response.status, 403);
    assert.match(await response.text(), /Origin \\"http:\/\/evil.example\\"/);
    assert.deepEqual(seen.methods, []);
  });
});

Deno.test("listenHttp() lets in the server's own origin", async () => {
  await withServer(async (server) => {
    const response = await post(server, INITIALIZE, {
      origin: `http://localhost:${server.url.port}`,
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  });
});

Deno.test("a loopback server refuses a Host that DNS rebinding points at it with 403", async () => {
  await withServer(async (server) => {
    // fetch sets Host from the URL, so the rebound name is spoken over a raw socket.
    const connection = await Deno.connect({ hostname: "127.0.0.1", port: Number(server.url.port) });
    const request = `GET /mcp HTTP/1.1\r\nHost: evil.example:${server.url.port}\r\n` +
      `Authorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`;
    await connection.write(new TextEncoder().encode(request));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (let i = 0; i < 64; i++) {
      const read = await connection.read(buffer);
      if (read === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, read));
    }
    connection.close();
    assert.match(text, /^HTTP\/1\.1 403/);
  });
});

Deno.test("initialize opens a session whose id a later request must carry", async (t) => {
  await withServer(async (server) => {
    const id = await openSession(server);
    await t.step("with it, a request is answered", async () => {
      const response = await post(server, { jsonrpc: "2.0", id: 1, method: "ping" }, {
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
    });
    await t.step("without it, 400", async () => {
      const response = await post(server, { jsonrpc: "2.0", id: 2, method: "ping" });
      assert.equal(response.status, 400);
      assert.match(await response.text(), /Mcp-Session-Id is missing/);
    });
    await t.step("with one never given, 404", async () => {
      const response = await post(server, { jsonrpc: "2.0", id: 3, method: "ping" }, {
        "mcp-session-id": "nope",
      });
      assert.equal(response.status, 404);
      await response.body?.cancel();
    });
    await t.step("with another version than the session's, 400", async () => {
      const response = await post(server, { jsonrpc: "2.0", id: 4, method: "ping" }, {
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-03-26",
      });
      assert.equal(response.status, 400);
      await response.body?.cancel();
    });
  });
});

Deno.test("DELETE ends a session, whose id is then 404", async () => {
  await withServer(async (server) => {
    const id = await openSession(server);
    const deleted = await fetch(server.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": id },
    });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();
    const after = await post(server, { jsonrpc: "2.0", id: 1, method: "ping" }, {
      "mcp-session-id": id,
    });
    assert.equal(after.status, 404);
    await after.body?.cancel();
  });
});

Deno.test("a session's GET stream carries what the server sends tied to no request", async () => {
  await withServer(async (server) => {
    const id = await openSession(server);
    // A notification reaches the handler with its session, which then sends on the stream.
    const stream = await fetch(server.url, {
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: "text/event-stream",
        "mcp-session-id": id,
      },
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    const second = await fetch(server.url, {
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: "text/event-stream",
        "mcp-session-id": id,
      },
    });
    assert.equal(second.status, 409);
    await second.body?.cancel();
    assert.ok(sessions.has(id));
    const sent = sessions.get(id)?.send({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    assert.equal(sent, true);
    const reader = stream.body!.getReader();
    const read = await reader.read();
    assert.match(new TextDecoder().decode(read.value), /notifications\/tools\/list_changed/);
    await reader.cancel();
  }, sessionKeeper());
});

// A handler that keeps each session it sees, so a test can send on its stream.
const sessions = new Map<string, { send(message: Record<string, unknown>): boolean }>();
function sessionKeeper(): HttpMessageHandler {
  const { handler } = testHandler();
  return (message, exchange) => {
    if (exchange.session !== undefined) sessions.set(exchange.session.id, exchange.session);
    return handler(message, exchange);
  };
}

Deno.test("a request whose handler sends progress first is answered as an event stream", async () => {
  await withServer(async (server) => {
    const response = await post(
      server,
      modernCall(5, "echo", { text: "hi" }),
      MODERN_HEADERS("echo"),
    );
    // The progress token rides in _meta beside the envelope.
    await response.body?.cancel();
    const streamed = await post(server, {
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" }, _meta: { ...META, progressToken: "p" } },
    }, MODERN_HEADERS("echo"));
    assert.equal(streamed.headers.get("content-type"), "text/event-stream");
    const text = await streamed.text();
    const events = text.split("\n\n").filter((e) => e !== "").map((e) =>
      JSON.parse(e.split("\n").find((line) => line.startsWith("data: "))!.slice(6))
    );
    assert.equal(events.length, 2);
    assert.equal(events[0].method, "notifications/progress");
    assert.equal(events[1].id, 6);
    assert.equal(events[1].result.content[0].text, "hi");
  });
});

Deno.test("a 2026-07-28 request needs no session and is answered as JSON", async () => {
  await withServer(async (server, seen) => {
    const response = await post(
      server,
      modernCall(1, "echo", { text: "x" }),
      MODERN_HEADERS("echo"),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("mcp-session-id"), null);
    const answer = await response.json();
    assert.equal(answer.result.content[0].text, "x");
    assert.equal(seen.sessions.size, 0);
  });
});

Deno.test("a 2026-07-28 request whose headers contradict its body is 400 HeaderMismatch", async (t) => {
  await withServer(async (server, seen) => {
    const cases: Array<[string, Record<string, string>, unknown]> = [
      ["version", { ...MODERN_HEADERS("echo") }, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "echo",
          _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
        },
      }],
      ["method", { ...MODERN_HEADERS("echo"), "mcp-method": "tools/list" }, modernCall(2, "echo")],
      ["name", MODERN_HEADERS("wait"), modernCall(3, "echo")],
      [
        "missing name",
        { "mcp-protocol-version": MODERN, "mcp-method": "tools/call" },
        modernCall(4, "echo"),
      ],
    ];
    for (const [what, extra, body] of cases) {
      await t.step(what, async () => {
        const response = await post(server, body, extra);
        assert.equal(response.status, 400);
        assert.equal((await response.json()).error.code, HEADER_MISMATCH);
      });
    }
    assert.deepEqual(seen.methods, []);
  });
});

Deno.test("an Mcp-Name in base64 is read before it is compared", async () => {
  await withServer(async (server) => {
    const response = await post(server, modernCall(1, "echo", { text: "b" }), {
      ...MODERN_HEADERS("echo"),
      "mcp-name": `=?base64?${btoa("echo")}?=`,
    });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).result.content[0].text, "b");
  });
});

Deno.test("a version the server does not speak is 400 with the versions it does", async () => {
  await withServer(async (server) => {
    const response = await post(server, { jsonrpc: "2.0", id: 1, method: "ping" }, {
      "mcp-protocol-version": "1999-01-01",
    });
    assert.equal(response.status, 400);
    const answer = await response.json();
    assert.equal(answer.error.code, -32022);
    assert.ok(answer.error.data.supported.includes(MODERN));
  });
});

Deno.test("a 2026-07-28 method the handler does not know is 404 with -32601", async () => {
  await withServer(async (server) => {
    const response = await post(
      server,
      { jsonrpc: "2.0", id: 1, method: "nope/never", params: { _meta: META } },
      { "mcp-protocol-version": MODERN, "mcp-method": "nope/never" },
    );
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, -32601);
  });
});

Deno.test("GET without a session is 405", async () => {
  await withServer(async (server) => {
    const response = await fetch(server.url, {
      headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" },
    });
    assert.equal(response.status, 405);
    await response.body?.cancel();
  });
});

Deno.test("a notification is acknowledged with 202 and handed on", async () => {
  await withServer(async (server, seen) => {
    const id = await openSession(server);
    const response = await post(server, { jsonrpc: "2.0", method: "notifications/initialized" }, {
      "mcp-session-id": id,
    });
    assert.equal(response.status, 202);
    await response.body?.cancel();
    assert.deepEqual(seen.methods, ["initialize", "notifications/initialized"]);
  });
});

Deno.test(`a body past MAX_HTTP_BODY_BYTES is refused with 413`, async () => {
  await withServer(async (server, seen) => {
    const padding = "x".repeat(MAX_HTTP_BODY_BYTES);
    const response = await post(server, {
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { padding },
    });
    assert.equal(response.status, 413);
    await response.body?.cancel();
    assert.deepEqual(seen.methods, []);
  });
});

Deno.test("a batch is refused with 400", async () => {
  await withServer(async (server) => {
    const response = await post(server, [INITIALIZE]);
    assert.equal(response.status, 400);
    assert.equal((await response.json()).error.code, -32600);
  });
});

Deno.test("notifications/cancelled for a request in flight aborts its exchange", async () => {
  await withServer(async (server, seen) => {
    const id = await openSession(server);
    const waiting = post(server, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "wait", arguments: {} },
    }, { "mcp-session-id": id });
    // The cancel goes once the call has reached the handler.
    for (let i = 0; i < 200 && !seen.methods.includes("tools/call"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const cancel = await post(server, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7 },
    }, { "mcp-session-id": id });
    assert.equal(cancel.status, 202);
    await cancel.body?.cancel();
    const answered = await waiting;
    await answered.body?.cancel();
    assert.deepEqual(seen.aborted, ["7"]);
  });
});

Deno.test("closing a 2026-07-28 request's stream cancels it", async () => {
  await withServer(async (server, seen) => {
    const controller = new AbortController();
    const waiting = post(server, modernCall(8, "wait"), MODERN_HEADERS("wait"));
    void waiting;
    const aborted = fetch(server.url, {
      method: "POST",
      headers: headers(MODERN_HEADERS("wait")),
      body: JSON.stringify(modernCall(9, "wait")),
      signal: controller.signal,
    }).catch(() => undefined);
    for (let i = 0; i < 200 && seen.methods.filter((m) => m === "tools/call").length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    controller.abort();
    await aborted;
    for (let i = 0; i < 200 && !seen.aborted.includes("9"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.deepEqual(seen.aborted, ["9"]);
    // close() ends the other one.
    await server.close();
    const rest = await waiting;
    await rest.body?.cancel();
  });
});

Deno.test("close() ends an open GET stream and stops listening", async () => {
  const { handler } = testHandler();
  const listening = await listenHttp(handler, { token: TOKEN });
  assert.ok(listening.ok);
  const server = listening.value;
  const id = await openSession(server);
  const stream = await fetch(server.url, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      accept: "text/event-stream",
      "mcp-session-id": id,
    },
  });
  await server.close();
  assert.equal(await stream.text(), "");
  await server.finished;
});

Deno.test("listenHttp() makes a token when none is given and says it", async () => {
  const { handler } = testHandler();
  const listening = await listenHttp(handler);
  assert.ok(listening.ok);
  try {
    assert.match(listening.value.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(listening.value.url.hostname, "127.0.0.1");
  } finally {
    await listening.value.close();
  }
});

Deno.test("listenHttp() throws RangeError for a token too short to guess at", async () => {
  const { handler } = testHandler();
  await assert.rejects(() => listenHttp(handler, { token: "short" }), RangeError);
});

Deno.test("listenHttp() says so when its port is taken", async () => {
  await withServer(async (server) => {
    const { handler } = testHandler();
    const second = await listenHttp(handler, { port: Number(server.url.port), token: TOKEN });
    assert.ok(!second.ok);
    assert.equal(second.error.kind, "listen_failed");
    assert.match(second.error.message, /pick another port/);
  });
});

Deno.test("the official SDK client (v1) lists and calls a tool over Streamable HTTP", async () => {
  await withServer(async (server, seen) => {
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name: "sdk-http", version: "1.0.0" });
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name), ["echo", "wait"]);
      const result = await client.callTool({ name: "echo", arguments: { text: "héllo" } });
      assert.deepEqual(result.content, [{ type: "text", text: "héllo" }]);
      assert.equal(seen.sessions.size, 1);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });
});

Deno.test("the SDK v2 client in automatic mode speaks 2026-07-28 over Streamable HTTP", async () => {
  await withServer(async (server, seen) => {
    const transport = new StreamableHTTPClientTransportV2(server.url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const client = new ClientV2({ name: "sdk-v2-http", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
    });
    await client.connect(transport);
    try {
      assert.equal(client.getProtocolEra(), "modern");
      const result = await client.callTool({ name: "echo", arguments: { text: "v2" } });
      assert.deepEqual(result.content, [{ type: "text", text: "v2" }]);
      assert.equal(seen.sessions.size, 0);
      assert.ok(!seen.methods.includes("initialize"));
    } finally {
      await client.close();
    }
  });
});

Deno.test("an initialize past MAX_HTTP_SESSIONS ends the least recently used idle session", async () => {
  await withServer(async (server) => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_HTTP_SESSIONS; i++) ids.push(await openSession(server));
    // The first is used again, so the second is now the least recently used.
    const ping = await post(server, { jsonrpc: "2.0", id: 1, method: "ping" }, {
      "mcp-session-id": ids[0]!,
    });
    assert.equal(ping.status, 200);
    await ping.body?.cancel();
    await openSession(server);
    const statuses = [];
    for (const id of ids.slice(0, 2)) {
      const response = await post(server, { jsonrpc: "2.0", id: 2, method: "ping" }, {
        "mcp-session-id": id,
      });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 404]);
  });
});

Deno.test("an initialize past MAX_HTTP_SESSIONS, each with its GET stream open, is 503", async () => {
  await withServer(async (server) => {
    const streams: Response[] = [];
    try {
      for (let i = 0; i < MAX_HTTP_SESSIONS; i++) {
        const id = await openSession(server);
        streams.push(
          await fetch(server.url, {
            headers: {
              authorization: `Bearer ${TOKEN}`,
              accept: "text/event-stream",
              "mcp-session-id": id,
            },
          }),
        );
      }
      const refused = await post(server, INITIALIZE);
      assert.equal(refused.status, 503);
      assert.match(await refused.text(), /each is in use/);
    } finally {
      for (const stream of streams) await stream.body?.cancel();
    }
  });
});
