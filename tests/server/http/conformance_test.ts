// The conformance suite's server scenarios that need none of its own test
// tools, against serveHttp over loopback: server-initialize, ping,
// server-session-lifecycle and dns-rebinding-protection. The suite sends no
// credential, so it reaches the server through a loopback relay that adds
// the bearer token to each request, as a host configured with the token
// does, and says the server's own port in Host and Origin (so the server
// sees the Host and Origin the suite chose, the rebound name included).

import assert from "node:assert/strict";
import { serveHttp } from "../../../server/mod.ts";
import { relay, scenario } from "./_relay.ts";

const TOKEN = "conformance-token-0123456789";

Deno.test("serveHttp() passes the conformance suite's server scenarios over HTTP", async (t) => {
  const listening = await serveHttp({
    name: "conformance",
    version: "1.0.0",
    tools: [{
      name: "echo",
      description: "Echoes its text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      run: (args) => String(args.text),
    }],
  }, { token: TOKEN });
  assert.ok(listening.ok);
  const front = relay(Number(listening.value.url.port), TOKEN);
  try {
    const url = `http://127.0.0.1:${front.port}/mcp`;
    for (
      const name of [
        "server-initialize",
        "ping",
        "server-session-lifecycle",
        "dns-rebinding-protection",
      ]
    ) {
      await t.step(name, async () => {
        const run = await scenario(url, name);
        assert.equal(run.code, 0, run.text);
      });
    }
  } finally {
    await front.close();
    await listening.value.close();
  }
});
