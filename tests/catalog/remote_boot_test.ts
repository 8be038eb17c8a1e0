// A remote server from a configuration file as Claude Code writes it, its
// token in the harness's environment, through openCatalog and boot to a
// call; the wrong token is a failed start that shows the server's challenge.

import assert from "node:assert/strict";
import { boot, openCatalog } from "../../mod.ts";
import { serveFixture } from "../client/_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

async function harnessFor(origin: string, token: string) {
  const dir = await Deno.makeTempDir();
  const entry = {
    type: "http",
    url: `${origin}/mcp`,
    headers: { Authorization: "Bearer ${PEER_TOKEN}" },
  };
  await Deno.writeTextFile(`${dir}/.mcp.json`, JSON.stringify({ mcpServers: { peer: entry } }));
  try {
    const catalog = await openCatalog(undefined, { folder: dir, env: { PEER_TOKEN: token } });
    assert.ok(catalog.ok, catalog.ok ? "" : catalog.error.message);
    assert.deepEqual(catalog.value.skipped, []);
    return await boot(catalog.value.servers);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test(
  "a remote server in .mcp.json boots with its token from the environment, and is called",
  OPENS_SUBREAPER,
  async () => {
    const peer = await serveFixture("http_peer.ts", ["bearer"]);
    try {
      const harness = await harnessFor(peer.origin, "t-1");
      try {
        assert.equal(harness.reports.get("peer")?.state, "ready");
        assert.match(harness.surface, /^go\(/m);
        const called = await harness.call("peer", "go", {});
        assert.ok(called.ok, JSON.stringify(called));
      } finally {
        const retired = await harness.retire();
        assert.ok(retired.confirmed);
      }
    } finally {
      await peer.close();
    }
  },
);

Deno.test("the wrong token is a failed start carrying the server's challenge", async () => {
  const peer = await serveFixture("http_peer.ts", ["bearer"]);
  try {
    const harness = await harnessFor(peer.origin, "wrong");
    try {
      const report = harness.reports.get("peer");
      assert.ok(report?.state === "failed", JSON.stringify(report));
      assert.match(report.message, /HTTP 401 Unauthorized; it asks for: "Bearer realm=\\"peer\\"/);
    } finally {
      await harness.retire();
    }
  } finally {
    await peer.close();
  }
});
