// The command line never prints a bearer token a remote server echoes back
// (in a 401's challenge or body), in words or in JSON: the real command line
// against a loopback server, its catalog holding the token.

import assert from "node:assert/strict";
import { serveFixture } from "../client/_http_servers.ts";
import { catalogFolder, inCatalog } from "./_cli.ts";

const TOKEN = "tok-9f8e7d6c5b4a3f2e1d0c";

function toml(origin: string): string {
  return `[mcp.peer]\nurl = "${origin}/mcp"\nheaders = { Authorization = "Bearer ${TOKEN}" }\n`;
}

Deno.test("call, call --json and check --json do not print a token the server echoes", async (t) => {
  for (const mode of ["refuse_all", "refuse_calls"]) {
    await t.step(mode, async () => {
      const peer = await serveFixture("reflecting_peer.ts", [mode]);
      const dir = await catalogFolder("loom-token-", toml(peer.origin));
      try {
        const runs = await Promise.all([
          inCatalog(dir, ["call", "peer", "go"]),
          inCatalog(dir, ["call", "peer", "go", "--json"]),
          // check makes no call: only a start the server refuses shows there.
          ...(mode === "refuse_all" ? [inCatalog(dir, ["check", "--json"])] : []),
        ]);
        for (const run of runs) {
          assert.notEqual(run.code, 0, run.stdout);
          assert.doesNotMatch(run.stdout + run.stderr, new RegExp(TOKEN));
          assert.match(run.stdout + run.stderr, /\[redacted\]/);
        }
      } finally {
        await peer.close();
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});
