// serveHarness over Streamable HTTP: a client of either era reaches the
// three tools through listenHttp, each 2025 session its own gateway session.

import assert from "node:assert/strict";
import { boot } from "../../harness/mod.ts";
import { Client } from "../../client/client.ts";
import { hostHandlers } from "../../gateway/mod.ts";
import { serveHarness } from "../../gateway/serve_harness.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 5_000 };
const TOKEN = "gateway-http-test-token-0123456789";

// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

async function post(
  url: URL,
  body: Message,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
  });
}

// The messages of an event stream, each handed to `seen` as it comes, until the stream ends.
async function events(response: Response, seen: (message: Message) => void): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const read = await reader.read();
    if (read.done) return;
    buffer += read.value;
    let at;
    while ((at = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const data = event.split("\n").filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim()).join("\n");
      if (data !== "") seen(JSON.parse(data));
    }
  }
}

Deno.test(
  "serveHarness over HTTP serves the three tools and runs a program for a client",
  OPENS_CUSTODIAN,
  async () => {
    const harness = await boot([fixture("echo", "echo_server.ts")], QUICK);
    const listening = await serveHarness(harness, { http: { token: TOKEN } });
    assert.ok(listening.ok);
    const client = new Client({
      name: "host",
      url: listening.value.url.href,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    try {
      assert.ok((await client.connect()).ok);
      const listed = await client.listTools();
      assert.ok(listed.ok);
      assert.deepEqual(listed.value.map((tool) => tool.name), [
        "describe_tool",
        "run_program",
        "search_tools",
      ]);
      const code = 'import { add } from "./mcp/echo.ts";\n' +
        "export default (await add({ a: 2, b: 40 })).structuredContent;\n";
      const ran = await client.callTool("run_program", { code });
      assert.ok(ran.ok);
      assert.deepEqual((ran.value.structuredContent as Message).value, { sum: 42 });
    } finally {
      await client.retire();
      await listening.value.close();
      await harness.retire();
    }
  },
);

Deno.test("a request to serveHarness over HTTP without the token is refused with 401", async () => {
  const harness = await boot([fixture("echo", "echo_server.ts")], QUICK);
  const listening = await serveHarness(harness, { http: { token: TOKEN } });
  assert.ok(listening.ok);
  try {
    const response = await post(listening.value.url, { id: 1, method: "ping" }, {
      authorization: "Bearer not-the-token",
    });
    await response.body?.cancel();
    assert.equal(response.status, 401);
  } finally {
    await listening.value.close();
    await harness.retire();
  }
});

Deno.test("a 2025 host over HTTP is asked a downstream server's question on its call's stream", async () => {
  const harness = await boot([fixture("ask", "asking_server.ts")], { ...QUICK, ...hostHandlers() });
  const listening = await serveHarness(harness, { http: { token: TOKEN } });
  assert.ok(listening.ok);
  const url = listening.value.url;
  try {
    const opened = await post(url, {
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "raw", version: "1" },
      },
    });
    const session = opened.headers.get("mcp-session-id") ?? "";
    await opened.body?.cancel();
    assert.notEqual(session, "");
    const inSession = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const code = 'import { elicit } from "./mcp/ask.ts";\n' +
      'const answer = await elicit({ params: { message: "Your name?", requestedSchema: ' +
      '{ type: "object", properties: { name: { type: "string" } } } } });\n' +
      "export default JSON.parse(answer.text);\n";
    const call = await post(url, {
      id: 2,
      method: "tools/call",
      params: { name: "run_program", arguments: { code } },
    }, inSession);
    assert.equal(call.headers.get("content-type"), "text/event-stream");
    let result: Message | undefined;
    await events(call, (message) => {
      if (message.method === "elicitation/create") {
        void post(url, {
          id: message.id,
          result: { action: "accept", content: { name: "Ada" } },
        }, inSession).then((answered) => answered.body?.cancel());
      } else if (message.id === 2) {
        result = message.result;
      }
    });
    assert.deepEqual(result?.structuredContent.value.result.content, { name: "Ada" });
  } finally {
    await listening.value.close();
    await harness.retire();
  }
});
