// `loom-mcp serve --http` when it cannot serve at all: a LOOM_MCP_TOKEN too
// short to guard anything, or an address already taken. The servers' starts
// are given up at once, not waited for until their deadline.

import assert from "node:assert/strict";
import { cli, fixture } from "./_cli.ts";

// A server that never answers initialize, given a deadline the command must not wait out.
const SILENT = ["--stdio", fixture("silent.ts"), "--name", "mute", "--connect-timeout", "5s"];

Deno.test("serve --http with a token too short gives up the starts and says why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-serve-token-" });
  try {
    const run = await cli(dir, ["serve", ...SILENT, "--http", "127.0.0.1:0"], {
      env: { LOOM_MCP_TOKEN: "short" },
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /^error: LOOM_MCP_TOKEN cannot be the token: it has 5 characters; give at least 16; /m,
    );
    assert.doesNotMatch(run.stderr, /RangeError/);
    assert.match(run.stderr, /^\s+mute\s+cancelled/m);
    assert.doesNotMatch(run.stderr, /waiting for "mute"/);
    assert.equal(run.stdout, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --http on an address already taken gives up the starts and says why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-serve-taken-" });
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (taken.addr as Deno.NetAddr).port;
    const run = await cli(dir, ["serve", ...SILENT, "--http", `127.0.0.1:${port}`], {
      env: { LOOM_MCP_TOKEN: "a-token-long-enough-0123456789" },
    });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`^error: Cannot listen on 127\\.0\\.0\\.1:${port}: `, "m"));
    assert.match(run.stderr, /^\s+mute\s+cancelled/m);
    assert.doesNotMatch(run.stderr, /waiting for "mute"/);
  } finally {
    taken.close();
    await Deno.remove(dir, { recursive: true });
  }
});
