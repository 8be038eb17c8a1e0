// How long a request's exchange lives over Streamable HTTP: its signal is tied
// to its session and to the server only until its answer, an initialize that
// is not answered with a result ends the session it would have opened, and a
// client that goes away before a slow answer cancels it, whatever it accepts.

import assert from "node:assert/strict";
import { encodeError, encodeResult } from "../../../codec/jsonrpc.ts";
import {
  type HttpExchange,
  type HttpListener,
  type HttpMessageHandler,
  listenHttp,
  type ServerSession,
} from "../../../server/mod.ts";
import { testHandler } from "./_handler.ts";

const TOKEN = "test-token-0123456789abcdef";
const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
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
const BOTH = "application/json, text/event-stream";

async function withServer(
  handler: HttpMessageHandler,
  body: (server: HttpListener) => Promise<void>,
): Promise<void> {
  const listening = await listenHttp(handler, { token: TOKEN });
  assert.ok(listening.ok);
  try {
    await body(listening.value);
  } finally {
    await listening.value.close();
  }
}

async function post(
  server: HttpListener,
  message: unknown,
  extra: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return await fetch(server.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: BOTH,
      ...extra,
    },
    body: JSON.stringify(message),
    ...(signal === undefined ? {} : { signal }),
  });
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
  };
}

// Settles with what `promise` gives, or with `fallback` once a bound far past any honest wait.
async function within<T>(promise: Promise<T>, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((resolve) => timer = setTimeout(() => resolve(fallback), 10_000)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("an answered request's signal is tied to neither its session nor the server", async () => {
  const signals: AbortSignal[] = [];
  const { handler } = testHandler();
  const keeping: HttpMessageHandler = (message, exchange) => {
    if (message.method === "ping") signals.push(exchange.signal);
    return handler(message, exchange);
  };
  const listening = await listenHttp(keeping, { token: TOKEN });
  assert.ok(listening.ok);
  const server = listening.value;
  try {
    const opened = await post(server, INITIALIZE);
    await opened.body?.cancel();
    const session = opened.headers.get("mcp-session-id") ?? "";
    for (let id = 1; id <= 3; id++) {
      const answered = await post(server, { jsonrpc: "2.0", id, method: "ping" }, {
        "mcp-session-id": session,
      });
      await answered.body?.cancel();
    }
    const modern = await post(server, {
      jsonrpc: "2.0",
      id: 4,
      method: "ping",
      params: { _meta: META },
    }, modernHeaders("ping"));
    await modern.body?.cancel();
    const deleted = await fetch(server.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": session },
    });
    await deleted.body?.cancel();
  } finally {
    await server.close();
  }
  // A signal the session's end or the close could still abort is one they still hold.
  assert.equal(signals.length, 4);
  assert.deepEqual(signals.map((signal) => signal.aborted), [false, false, false, false]);
});

Deno.test("an initialize not answered with a result ends the session it would have opened", async (t) => {
  const cases: [string, HttpMessageHandler][] = [
    [
      "answered with an error",
      (message) => encodeError(0, { code: -32602, message: `no ${String(message.method)}` }),
    ],
    ["its handler throws", () => {
      throw new Error("the handler failed");
    }],
    ["answered with an error on a stream", (_message, exchange) => {
      exchange.send({ jsonrpc: "2.0", method: "notifications/message", params: {} });
      return encodeError(0, { code: -32602, message: "no" });
    }],
  ];
  for (const [what, answer] of cases) {
    await t.step(what, async () => {
      const seen: ServerSession[] = [];
      const handler: HttpMessageHandler = (message, exchange) => {
        if (exchange.session !== undefined) seen.push(exchange.session);
        return answer(message, exchange);
      };
      await withServer(handler, async (server) => {
        const response = await post(server, INITIALIZE);
        await response.text();
        assert.equal(seen.length, 1);
        assert.equal(seen[0]?.signal.aborted, true, "the session was left open");
      });
    });
  }
});

// A handler whose tools/call waits until the test lets it answer or its exchange aborts.
function gatedHandler(): {
  handler: HttpMessageHandler;
  reached: Promise<HttpExchange>;
  aborted: Promise<boolean>;
  answer: () => void;
} {
  const { handler: base } = testHandler();
  const reached = Promise.withResolvers<HttpExchange>();
  const aborted = Promise.withResolvers<boolean>();
  const gate = Promise.withResolvers<void>();
  const handler: HttpMessageHandler = async (message, exchange) => {
    if (message.method !== "tools/call") return await base(message, exchange);
    reached.resolve(exchange);
    exchange.signal.addEventListener("abort", () => aborted.resolve(true), { once: true });
    await Promise.race([gate.promise, aborted.promise]);
    const modern = exchange.session === undefined;
    return encodeResult(0, {
      ...(modern ? { resultType: "complete" } : {}),
      content: [{ type: "text", text: "late" }],
    });
  };
  return { handler, reached: reached.promise, aborted: aborted.promise, answer: gate.resolve };
}

const CALL = {
  jsonrpc: "2.0",
  id: 0,
  method: "tools/call",
  params: { name: "wait", arguments: {}, _meta: META },
};

Deno.test("a client that goes away before a slow answer cancels it, whatever it accepts", async (t) => {
  const forms: [string, string, "session" | "modern"][] = [
    ["a session's request, Accept: application/json", "application/json", "session"],
    ["a 2026-07-28 request, Accept: application/json", "application/json", "modern"],
    ["a 2026-07-28 request, Accept: both", BOTH, "modern"],
  ];
  for (const [what, accept, era] of forms) {
    await t.step(what, async () => {
      const gated = gatedHandler();
      await withServer(gated.handler, async (server) => {
        let extra = modernHeaders("tools/call", "wait");
        if (era === "session") {
          const opened = await post(server, INITIALIZE);
          await opened.body?.cancel();
          extra = { "mcp-session-id": opened.headers.get("mcp-session-id") ?? "" };
        }
        const controller = new AbortController();
        const call = post(server, CALL, { ...extra, accept }, controller.signal)
          .then((response) => response.body?.cancel()).catch(() => undefined);
        await gated.reached;
        controller.abort();
        await call;
        assert.equal(await within(gated.aborted, false), true, "the request still runs");
      });
    });
  }
  await t.step("a 2026-07-28 request with no Accept header", async () => {
    const gated = gatedHandler();
    await withServer(gated.handler, async (server) => {
      // fetch always sends an Accept header, so the request is spoken over a raw socket.
      const body = JSON.stringify(CALL);
      const connection = await Deno.connect({
        hostname: "127.0.0.1",
        port: Number(server.url.port),
      });
      const head = [
        "POST /mcp HTTP/1.1",
        `Host: 127.0.0.1:${server.url.port}`,
        `Authorization: Bearer ${TOKEN}`,
        "Content-Type: application/json",
        `Content-Length: ${new TextEncoder().encode(body).byteLength}`,
        ...Object.entries(modernHeaders("tools/call", "wait")).map(([k, v]) => `${k}: ${v}`),
      ].join("\r\n");
      await connection.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
      await gated.reached;
      connection.close();
      assert.equal(await within(gated.aborted, false), true, "the request still runs");
    });
  });
});

Deno.test("a client that accepts only JSON gets a slow answer as one JSON body", async () => {
  const gated = gatedHandler();
  await withServer(gated.handler, async (server) => {
    const call = post(server, CALL, {
      ...modernHeaders("tools/call", "wait"),
      accept: "application/json",
    });
    await gated.reached;
    gated.answer();
    const response = await call;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    const answer = await response.json();
    assert.equal(answer.result.content[0].text, "late");
  });
});
