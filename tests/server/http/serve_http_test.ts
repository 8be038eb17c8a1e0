// serve()'s tool servers over Streamable HTTP, driven by the official SDK
// clients over loopback.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "@modelcontextprotocol/client";
import { type HttpListener, serveHttp, type ServerDefinition } from "../../../server/mod.ts";
import { OPENS_CAPTURE } from "../../_lifetime.ts";

const TOKEN = "serve-http-token-0123456789";

const DEFINITION: ServerDefinition = {
  name: "echo-http",
  version: "1.0.0",
  tools: [
    {
      name: "echo",
      description: "Echoes its text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      run: (args) => ({ structuredContent: { text: String(args.text) } }),
    },
    {
      name: "hang",
      description: "Runs until cancelled.",
      inputSchema: { type: "object" },
      run: (_args, context) =>
        new Promise((resolve) =>
          context.signal.addEventListener("abort", () => resolve("cancelled"), { once: true })
        ),
    },
  ],
};

async function withServer(body: (server: HttpListener) => Promise<void>): Promise<void> {
  const listening = await serveHttp(DEFINITION, { token: TOKEN });
  assert.ok(listening.ok);
  try {
    await body(listening.value);
  } finally {
    await listening.value.close();
  }
}

Deno.test(
  "serveHttp() serves a tool to the official SDK client (v1) in a session",
  OPENS_CAPTURE,
  async () => {
    await withServer(async (server) => {
      const transport = new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      const client = new Client({ name: "sdk-http", version: "1.0.0" });
      await client.connect(transport);
      try {
        const listed = await client.listTools();
        assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name), ["echo", "hang"]);
        const result = await client.callTool({ name: "echo", arguments: { text: "héllo" } });
        assert.deepEqual(result.structuredContent, { text: "héllo" });
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    });
  },
);

Deno.test("serveHttp() serves two sessions at once, each its own answers", async () => {
  await withServer(async (server) => {
    const clients = [0, 1].map(() => {
      const transport = new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      return { transport, client: new Client({ name: "sdk-http", version: "1.0.0" }) };
    });
    try {
      for (const { client, transport } of clients) await client.connect(transport);
      const results = await Promise.all(
        clients.map(({ client }, i) =>
          client.callTool({ name: "echo", arguments: { text: `s${i}` } })
        ),
      );
      assert.deepEqual(results.map((r: { structuredContent?: unknown }) => r.structuredContent), [{
        text: "s0",
      }, { text: "s1" }]);
    } finally {
      for (const { client, transport } of clients) {
        await transport.terminateSession();
        await client.close();
      }
    }
  });
});

Deno.test("serveHttp() serves a tool statelessly to the SDK v2 client in automatic mode", async () => {
  await withServer(async (server) => {
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
      assert.deepEqual(result.structuredContent, { text: "v2" });
    } finally {
      await client.close();
    }
  });
});

Deno.test("serveHttp() cancels a tool run whose client cancels the request", async () => {
  await withServer(async (server) => {
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name: "sdk-http", version: "1.0.0" });
    await client.connect(transport);
    try {
      const controller = new AbortController();
      const hanging = client.callTool({ name: "hang", arguments: {} }, undefined, {
        signal: controller.signal,
      });
      controller.abort();
      await assert.rejects(hanging);
      // The loop took the cancellation: the next call runs at once rather than after the hang.
      const result = await client.callTool({ name: "echo", arguments: { text: "next" } });
      assert.deepEqual(result.structuredContent, { text: "next" });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });
});
