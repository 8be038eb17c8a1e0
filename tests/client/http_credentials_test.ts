// A remote server that echoes the credentials the client sent (in a 401's
// challenge, its body, a JSON-RPC error) never gets them into what the
// client keeps. Each test runs a loopback server.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { type Served, serveFixture } from "./_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

const TOKEN = "tok-9f8e7d6c5b4a3f2e1d0c";

function remote(url: string): RemoteServerSpec {
  return {
    name: "peer",
    url,
    headers: { Authorization: `Bearer ${TOKEN}` },
    connectTimeoutMs: 10_000,
    callTimeoutMs: 10_000,
  };
}

async function withPeer(mode: string, body: (peer: Served) => Promise<void>): Promise<void> {
  const peer = await serveFixture("reflecting_peer.ts", [mode]);
  try {
    await body(peer);
  } finally {
    await peer.close();
  }
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test(
  "a 401 echoing the bearer token fails the start without the token, in its message or its http",
  OPENS_SUBREAPER,
  async () => {
    await withPeer("refuse_all", async (peer) => {
      const client = new Client(remote(`${peer.origin}/mcp`));
      const started = await client.connect();
      assert.ok(!started.ok && started.error.kind === "transport_failed", JSON.stringify(started));
      assert.doesNotMatch(JSON.stringify(started), new RegExp(TOKEN));
      assert.match(started.error.message, /error_description=\\"the token in \[redacted\] has/);
      assert.equal(started.error.http?.body, "invalid token: [redacted]");
      assert.match(
        started.error.http?.wwwAuthenticate ?? "",
        /the token in \[redacted\] has expired/,
      );
      await client.retire();
    });
  },
);

Deno.test("a call refused with a 401 echoing the bearer token fails without the token", async () => {
  await withPeer("refuse_calls", async (peer) => {
    const client = new Client(remote(`${peer.origin}/mcp`));
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(!called.ok && called.error.kind === "unavailable", JSON.stringify(called));
    assert.doesNotMatch(JSON.stringify(called), new RegExp(TOKEN));
    assert.match(called.error.message, /the token in \[redacted\] has expired/);
    await client.retire();
  });
});

Deno.test("a JSON-RPC error echoing the bearer token reaches the caller without it, escaped or not", async (t) => {
  // escaped_calls spells the token in JSON escapes (\u0074\u006f...), which a byte search misses.
  for (const mode of ["error_calls", "escaped_calls"]) {
    await t.step(mode, async () => {
      await withPeer(mode, async (peer) => {
        const client = new Client(remote(`${peer.origin}/mcp`));
        assert.ok((await client.connect()).ok);
        const called = await client.callTool("go", {});
        assert.ok(!called.ok && called.error.kind === "server_error", JSON.stringify(called));
        assert.doesNotMatch(JSON.stringify(called), new RegExp(TOKEN));
        assert.match(called.error.message, /not allowed for \[redacted\]/);
        await client.retire();
      });
    });
  }
});
