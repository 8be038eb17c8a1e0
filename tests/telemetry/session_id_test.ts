// A legacy Streamable HTTP session's id reaches the main thread with the
// server info, so a span of that session can say it (`mcp.session.id`).

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { peerOf } from "../../client/_telemetry.ts";
import { decodeServerInfo } from "../../client/thread/server_info.ts";
import { MAX_SESSION_ID_CHARS } from "../../settings/limits.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { serveFixture } from "../client/_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

// The file's first client sets the process's subreaper flag, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a legacy HTTP session's id is in the server info and in the span's peer",
  OPENS_SUBREAPER,
  async () => {
    const peer = await serveFixture("http_peer.ts", ["plain"]);
    try {
      const spec: RemoteServerSpec = {
        name: "peer",
        url: `${peer.origin}/mcp`,
        headers: {},
        connectTimeoutMs: 10_000,
        callTimeoutMs: 10_000,
      };
      const client = new Client(spec);
      const started = await client.connect();
      assert.ok(started.ok, JSON.stringify(started));
      assert.match(started.value.sessionId ?? "", /^session-\d+$/);
      assert.equal(peerOf(spec, client.serverInfo).sessionId, started.value.sessionId);
      assert.ok((await client.retire()).ok);
    } finally {
      await peer.close();
    }
  },
);

Deno.test("a session id past its bound, or not a string, is dropped from a worker's report", () => {
  const info = {
    era: "legacy",
    protocolVersion: "2025-11-25",
    capabilities: { tools: {} },
    serverInfo: { name: "s", version: "1" },
  };
  assert.equal(decodeServerInfo({ ...info, sessionId: "abc" })?.sessionId, "abc");
  const long = "x".repeat(MAX_SESSION_ID_CHARS + 1);
  assert.equal(decodeServerInfo({ ...info, sessionId: long })?.sessionId, undefined);
  assert.equal(decodeServerInfo({ ...info, sessionId: 7 })?.sessionId, undefined);
  assert.ok(decodeServerInfo({ ...info, sessionId: long }) !== undefined);
});

Deno.test("a stdio server's peer has no session id", () => {
  const peer = peerOf({ name: "s", command: "x", args: [] } as never, undefined);
  assert.equal(peer.sessionId, undefined);
  assert.equal(peer.transport, "pipe");
});
