// Listings that would take the harness's memory or its stack: each is refused
// as soon as a page takes it past a limit, before that page is decoded, and
// only the server that sent it fails.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { boot } from "../../harness/harness.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { MAX_LISTING_BYTES } from "../../settings/limits.ts";
import { type Served, serveFixture } from "./_http_servers.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

const MIB = 1024 * 1024;

function remote(name: string, url: string): RemoteServerSpec {
  return { name, url, headers: {}, connectTimeoutMs: 20_000, callTimeoutMs: 60_000 };
}

async function withPeer(mode: string, body: (peer: Served) => Promise<void>): Promise<void> {
  const peer = await serveFixture("http_peer.ts", [mode]);
  try {
    await body(peer);
  } finally {
    await peer.close();
  }
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test(
  "64 pages of 15 tools with 1 MB descriptions are refused by size, and the harness grows less than 512 MiB",
  OPENS_SUBREAPER,
  async () => {
    await withPeer("long_listing", async (peer) => {
      const client = new Client(remote("long", `${peer.origin}/mcp`));
      assert.ok((await client.connect()).ok);
      const before = Deno.memoryUsage().rss;
      const listed = await client.listTools();
      const grown = Deno.memoryUsage().rss - before;
      assert.ok(!listed.ok && listed.error.kind === "listing_too_large", JSON.stringify(listed));
      assert.equal(listed.error.what, "bytes");
      assert.equal(listed.error.limit, MAX_LISTING_BYTES);
      assert.match(listed.error.message, /MAX_LISTING_BYTES\) by page 2/);
      // What bench/listing_memory.ts reports, asserted as the bound.
      assert.ok(grown < 512 * MIB, `grew ${(grown / MIB).toFixed(0)} MiB`);
      assert.ok((await client.retire()).ok);
    });
  },
);

Deno.test("one page of 300,000 tools fails that server alone, named, and its neighbour boots", async () => {
  await withPeer("wide_page", async (wide) => {
    await withPeer("plain", async (plain) => {
      const harness = await boot([
        remote("wide", `${wide.origin}/mcp`),
        remote("plain", `${plain.origin}/mcp`),
      ]);
      try {
        const report = harness.reports.get("wide");
        assert.equal(report?.state, "failed");
        assert.ok(report?.state === "failed" && report.failure.stage === "list");
        assert.equal(report.failure.error.kind, "listing_too_large");
        assert.match(report.message, /Server "wide" listed more than 256 tools \(MAX_TOOLS\)/);
        assert.equal(harness.reports.get("plain")?.state, "ready");
      } finally {
        await harness.retire();
      }
    });
  });
});
