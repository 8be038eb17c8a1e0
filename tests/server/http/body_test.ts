// A POST's body over Streamable HTTP: one that stops or ends before its
// Content-Length is answered with an error, within the body deadline; the
// bytes of bodies being read are bounded across connections; and close()
// does not wait for a body that never comes. Spoken over raw sockets, since
// fetch sends only whole bodies.

import assert from "node:assert/strict";
import {
  type HttpListener,
  listenHttp,
  MAX_HTTP_BODY_BYTES,
  MAX_HTTP_BUFFERED_BODY_BYTES,
} from "../../../server/mod.ts";
import { testHandler } from "./_handler.ts";

const TOKEN = "test-token-0123456789abcdef";

// A socket that sent a POST's head and `body`, the rest of it held back.
async function partialPost(
  server: HttpListener,
  framing: string,
  body: string,
): Promise<Deno.TcpConn> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port: Number(server.url.port) });
  const head = [
    "POST /mcp HTTP/1.1",
    `Host: 127.0.0.1:${server.url.port}`,
    `Authorization: Bearer ${TOKEN}`,
    "Content-Type: application/json",
    "Accept: application/json",
    framing,
  ].join("\r\n");
  await connection.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
  return connection;
}

// The status line of the first final answer read on `connection` (an interim 100 Continue is
// passed over), or "(none)" once the server closed it or a bound far past any honest wait passed.
async function statusLine(connection: Deno.TcpConn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), 10_000));
  try {
    for (;;) {
      const final = text.split("\r\n\r\n").slice(0, -1).map((head) => head.split("\r\n")[0] ?? "")
        .find((line) => !line.startsWith("HTTP/1.1 1"));
      if (final !== undefined) return final;
      const read = await Promise.race([connection.read(buffer).catch(() => null), late]);
      if (read === "late" || read === null) return "(none)";
      text += new TextDecoder().decode(buffer.subarray(0, read));
    }
  } finally {
    clearTimeout(timer);
  }
}

// Reads on `connection` until the server says it will read the body (100 Continue).
async function continued(connection: Deno.TcpConn): Promise<void> {
  const buffer = new Uint8Array(64);
  const read = await connection.read(buffer);
  assert.match(new TextDecoder().decode(buffer.subarray(0, read ?? 0)), /^HTTP\/1\.1 100 /);
}

async function withServer(
  bodyTimeoutMs: number,
  body: (server: HttpListener, methods: string[]) => Promise<void>,
): Promise<void> {
  const { handler, seen } = testHandler();
  const listening = await listenHttp(handler, { token: TOKEN, bodyTimeoutMs });
  assert.ok(listening.ok);
  try {
    await body(listening.value, seen.methods);
  } finally {
    await listening.value.close();
  }
}

Deno.test("a body that stops short is answered 408 once the body deadline has passed", async (t) => {
  const framings: [string, string, string][] = [
    ["fewer bytes than its Content-Length", "Content-Length: 100", '{"jsonrpc"'],
    ["a chunked body that never ends", "Transfer-Encoding: chunked", "1\r\n{\r\n"],
  ];
  for (const [what, framing, sent] of framings) {
    await t.step(what, async () => {
      await withServer(50, async (server, methods) => {
        const connection = await partialPost(server, framing, sent);
        try {
          assert.equal(await statusLine(connection), "HTTP/1.1 408 Request Timeout");
        } finally {
          connection.close();
        }
        assert.deepEqual(methods, []);
      });
    });
  }
});

Deno.test("a body that ends before its Content-Length is answered 400", async () => {
  await withServer(60_000, async (server, methods) => {
    const connection = await partialPost(server, "Content-Length: 100", '{"jsonrpc"');
    try {
      await connection.closeWrite();
      assert.equal(await statusLine(connection), "HTTP/1.1 400 Bad Request");
    } finally {
      connection.close();
    }
    assert.deepEqual(methods, []);
  });
});

Deno.test("a body past MAX_HTTP_BUFFERED_BODY_BYTES of bodies being read is refused with 503", async () => {
  await withServer(60_000, async (server) => {
    // Each declares the largest body, so that the bound is reached without sending it.
    const count = Math.floor(MAX_HTTP_BUFFERED_BODY_BYTES / MAX_HTTP_BODY_BYTES) + 1;
    const connections: Deno.TcpConn[] = [];
    try {
      for (let i = 0; i < count; i++) {
        connections.push(await partialPost(server, `Content-Length: ${MAX_HTTP_BODY_BYTES}`, "{"));
      }
      // Whichever came last to the server is the one refused, at once.
      const first = await Promise.race(connections.map((connection) => statusLine(connection)));
      assert.equal(first, "HTTP/1.1 503 Service Unavailable");
    } finally {
      for (const connection of connections) connection.close();
    }
  });
});

Deno.test("close() does not wait for a body that never comes", async () => {
  const { handler } = testHandler();
  const listening = await listenHttp(handler, { token: TOKEN, bodyTimeoutMs: 600_000 });
  assert.ok(listening.ok);
  const server = listening.value;
  const connection = await partialPost(server, "Content-Length: 100\r\nExpect: 100-continue", "");
  try {
    await continued(connection);
    await connection.write(new TextEncoder().encode("{"));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const closed = await Promise.race([
      server.close().then(() => "closed"),
      new Promise<string>((resolve) => timer = setTimeout(() => resolve("still waiting"), 10_000)),
    ]);
    clearTimeout(timer);
    // The client may see its 503 or, its unread byte still in flight, a reset: the server is gone.
    assert.equal(closed, "closed");
  } finally {
    connection.close();
    await server.close();
  }
});
