// serve() on both protocol eras, driven with raw lines.

import assert from "node:assert/strict";
import { ReplayTransport, serve, type Tool } from "../../server/mod.ts";
import { OPENS_CAPTURE } from "../_lifetime.ts";

const echo: Tool = {
  name: "echo",
  description: "Returns its text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  run: (args) => ({ content: [{ type: "text", text: String(args.text) }] }),
};

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

type Reply = {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

function line(id: number, method: string, params?: unknown): string {
  return JSON.stringify(
    params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
  );
}

async function run(lines: string[]): Promise<Reply[]> {
  const transport = new ReplayTransport(lines);
  const end = await serve({
    name: "raw",
    version: "1.0.0",
    tools: [echo],
    listCache: { ttlMs: 60_000, cacheScope: "public" },
  }, transport);
  assert.deepEqual(end, { kind: "end_of_input" });
  const replies = transport.messages() as Reply[];
  return JSON.parse(JSON.stringify(replies)).sort((a: Reply, b: Reply) =>
    Number(a.id) - Number(b.id)
  );
}

Deno.test("server/discover answers the tools capability, the versions and the caching fields", async () => {
  const [reply] = await run([line(1, "server/discover", { _meta: META })]);
  assert.deepEqual(reply?.result, {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: { listChanged: false } },
    ttlMs: 60_000,
    cacheScope: "public",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "raw", version: "1.0.0" } },
  });
});

// The file's first tool run opens capture's libc handle, kept for the process (tests/_lifetime.ts).
Deno.test(
  "stateless requests are served with resultType, lists with ttlMs and cacheScope",
  OPENS_CAPTURE,
  async () => {
    const replies = await run([
      line(1, "tools/list", { _meta: META }),
      line(2, "tools/call", { _meta: META, name: "echo", arguments: { text: "hi" } }),
    ]);
    const list = replies[0]?.result;
    assert.equal(list?.resultType, "complete");
    assert.equal(list?.ttlMs, 60_000);
    assert.equal(list?.cacheScope, "public");
    assert.deepEqual((list?.tools as { name: string }[]).map((t) => t.name), ["echo"]);
    assert.deepEqual(replies[1]?.result?.resultType, "complete");
    assert.deepEqual(replies[1]?.result?.content, [{ type: "text", text: "hi" }]);
  },
);

Deno.test("every stateless request is validated, not only the first", async (t) => {
  const cases: [string, unknown, number, RegExp, Record<string, unknown> | undefined][] = [
    [
      "an unsupported version",
      { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      -32022,
      /Unsupported protocol version: "2099-01-01"/,
      { supported: ["2026-07-28"], requested: "2099-01-01" },
    ],
    [
      "a legacy-era version in the envelope",
      { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
      -32022,
      /Unsupported protocol version/,
      { supported: ["2026-07-28"], requested: "2025-11-25" },
    ],
    [
      "a version that is not a string",
      { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": 20260728 } },
      -32602,
      /protocolVersion" is 20260728, not a string/,
      { supported: ["2026-07-28"] },
    ],
    [
      "no client capabilities",
      { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      -32602,
      /clientCapabilities" is undefined|clientCapabilities/,
      { supported: ["2026-07-28"] },
    ],
    [
      "client capabilities of the wrong type",
      { _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": [] } },
      -32602,
      /clientCapabilities/,
      { supported: ["2026-07-28"] },
    ],
    [
      "client info of the wrong type",
      { _meta: { ...META, "io.modelcontextprotocol/clientInfo": "me" } },
      -32602,
      /clientInfo/,
      { supported: ["2026-07-28"] },
    ],
    [
      "a discover without the envelope",
      {},
      -32602,
      /missing the _meta envelope/,
      { supported: ["2026-07-28"] },
    ],
  ];
  for (const [name, params, code, message, data] of cases) {
    await t.step(name, async () => {
      const replies = await run([
        line(1, "tools/list", { _meta: META }),
        line(2, "server/discover", params),
      ]);
      assert.equal(replies[0]?.result?.resultType, "complete");
      assert.equal(replies[1]?.error?.code, code, JSON.stringify(replies[1]));
      assert.match(replies[1]?.error?.message ?? "", message);
      assert.deepEqual(replies[1]?.error?.data, data);
    });
  }
  await t.step("clientInfo is optional", async () => {
    const { "io.modelcontextprotocol/clientInfo": _, ...bare } = META;
    const [reply] = await run([line(1, "tools/list", { _meta: bare })]);
    assert.equal(reply?.result?.resultType, "complete");
  });
});

Deno.test("once a stateless request was served, the legacy era is refused", async () => {
  const replies = await run([
    line(1, "tools/list", { _meta: META }),
    line(2, "tools/list", {}),
    line(3, "tools/list"),
    line(4, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }),
    line(5, "ping"),
  ]);
  assert.equal(replies[1]?.error?.code, -32602);
  assert.match(replies[1]?.error?.message ?? "", /missing the _meta envelope/);
  assert.equal(replies[2]?.error?.code, -32602);
  assert.equal(replies[3]?.error?.code, -32022);
  assert.deepEqual(replies[3]?.error?.data, {
    supported: ["2026-07-28"],
    requested: "2025-11-25",
  });
  assert.equal(replies[4]?.error?.code, -32601);
});

Deno.test("after a legacy initialize the connection stays in the legacy era", async () => {
  const replies = await run([
    line(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }),
    line(2, "tools/list", { _meta: META }),
    line(3, "server/discover", { _meta: META }),
    line(4, "tools/call", { _meta: META, name: "echo", arguments: { text: "x" } }),
    line(5, "ping"),
  ]);
  assert.equal(replies[0]?.result?.protocolVersion, "2025-11-25");
  // The envelope is ignored: served as the legacy era, with no resultType.
  assert.equal(replies[1]?.result?.resultType, undefined);
  assert.ok(Array.isArray(replies[1]?.result?.tools));
  assert.equal(replies[2]?.error?.code, -32601);
  assert.deepEqual(replies[3]?.result, { content: [{ type: "text", text: "x" }] });
  assert.deepEqual(replies[4]?.result, {});
});

Deno.test("a probe does not commit: initialize after server/discover is served as today", async () => {
  const replies = await run([
    line(1, "server/discover", { _meta: META }),
    line(2, "initialize", { protocolVersion: "2025-06-18", capabilities: {} }),
    line(3, "tools/list"),
  ]);
  assert.equal(replies[0]?.result?.resultType, "complete");
  assert.equal(replies[1]?.result?.protocolVersion, "2025-06-18");
  assert.equal(replies[2]?.result?.resultType, undefined);
});

Deno.test("a method outside 2026-07-28 with the envelope is -32601, naming the versions", async () => {
  const replies = await run([
    line(1, "ping", { _meta: META }),
    line(2, "initialize", { _meta: META }),
  ]);
  for (const reply of replies) {
    assert.equal(reply.error?.code, -32601);
    assert.deepEqual(reply.error?.data, { supported: ["2026-07-28"] });
  }
});
