// A remote server that echoes the bearer token the client sent: no report,
// refusal or run the harness hands out holds it (a loopback server each).

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { type Served, serveFixture } from "../client/_http_servers.ts";
import { OPENS_CUSTODIAN, OPENS_SUBREAPER } from "../_lifetime.ts";

const TOKEN = "tok-9f8e7d6c5b4a3f2e1d0c";
const QUICK = { retirementTimeoutMs: 5_000 };

function remote(peer: Served): RemoteServerSpec {
  return {
    name: "peer",
    url: `${peer.origin}/mcp`,
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
  "the boot report of a server whose 401 echoes the token does not hold it",
  OPENS_SUBREAPER,
  async () => {
    await withPeer("refuse_all", async (peer) => {
      const harness = await boot([remote(peer)], QUICK);
      try {
        const report = harness.reports.get("peer");
        assert.ok(report?.state === "failed", JSON.stringify(report));
        assert.doesNotMatch(JSON.stringify(report), new RegExp(TOKEN));
        assert.match(report.message, /\[redacted\]/);
        const refused = await harness.call("peer", "go", {});
        assert.ok(!refused.ok && refused.error.kind === "server_failed");
        assert.doesNotMatch(JSON.stringify(refused), new RegExp(TOKEN));
      } finally {
        assert.ok((await harness.retire()).confirmed);
      }
    });
  },
);

Deno.test("harness.call's error for a 401 echoing the token does not hold it", async () => {
  await withPeer("refuse_calls", async (peer) => {
    const harness = await boot([remote(peer)], QUICK);
    try {
      const called = await harness.call("peer", "go", {});
      assert.ok(!called.ok, JSON.stringify(called));
      assert.doesNotMatch(JSON.stringify(called), new RegExp(TOKEN));
      assert.match(called.error.message, /the token in \[redacted\] has expired/);
    } finally {
      assert.ok((await harness.retire()).confirmed);
    }
  });
});

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a program's McpCallError for a 401 echoing the token does not hold it",
  OPENS_CUSTODIAN,
  async () => {
    await withPeer("refuse_calls", async (peer) => {
      const harness = await boot([remote(peer)], QUICK);
      try {
        const run = await harness.run(
          'import { go } from "./mcp/peer.ts";\nexport default (await go({})).text;',
        );
        assert.ok(run.outcome.kind === "threw", JSON.stringify(run.outcome));
        assert.equal(run.outcome.name, "McpCallError");
        assert.match(run.outcome.message, /the token in \[redacted\] has expired/);
        assert.doesNotMatch(JSON.stringify(run), new RegExp(TOKEN));
      } finally {
        assert.ok((await harness.retire()).confirmed);
      }
    });
  },
);
