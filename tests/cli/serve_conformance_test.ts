// The conformance suite's server scenarios that need none of its own test
// tools, against the real `loom-mcp serve --http` (in front of the governed
// fixture), each at every version the suite's `list` gives it. The suite
// sends no token and serve requires one on every request, so the suite
// reaches serve through the token relay of tests/server/http/_relay.ts.

import assert from "node:assert/strict";
import { catalogFolder, GOVERNED_TOML } from "./_cli.ts";
import { withServing } from "./_serving.ts";
import { relay, scenario } from "../server/http/_relay.ts";

const TOKEN = "serve-conformance-token-0123456789";

// As `deno run -A npm:@modelcontextprotocol/conformance@0.2.0-alpha.12 list` gives them.
const SCENARIOS: [string, string[]][] = [
  ["server-initialize", ["2025-06-18", "2025-11-25"]],
  ["ping", ["2025-06-18", "2025-11-25"]],
  ["server-session-lifecycle", ["2025-03-26", "2025-06-18", "2025-11-25"]],
  ["dns-rebinding-protection", ["2025-11-25", "2026-07-28"]],
];

Deno.test("loom-mcp serve --http passes the conformance suite's server scenarios at each of their versions", async (t) => {
  const dir = await catalogFolder("loom-serve-conformance-", GOVERNED_TOML);
  try {
    await withServing(["--catalog", `${dir}/loom.toml`], TOKEN, async (serving) => {
      const front = relay(Number(new URL(serving.url).port), TOKEN);
      try {
        const url = `http://127.0.0.1:${front.port}/mcp`;
        for (const [name, versions] of SCENARIOS) {
          for (const version of versions) {
            await t.step(`${name} at ${version}`, async () => {
              const run = await scenario(url, name, version);
              assert.equal(run.code, 0, run.text);
              assert.match(run.text, /Passed: ([1-9]\d*)\/\1, 0 failed/, run.text);
            });
          }
        }
      } finally {
        await front.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
