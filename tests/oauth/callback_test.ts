// The query a browser comes back with: one that carries another `state` (any
// web page can make a browser send one to a loopback redirect URI) is refused
// without ending the sign-in that waits for its own.

import assert from "node:assert/strict";
import { OAuthSession } from "../../oauth/mod.ts";
import { authServer, resourceServer, tokenAnswer, virtualNet } from "./_virtual.ts";

const AS = "https://as.example";
const RS = "https://mcp.example";

Deno.test("a callback with another state is refused, and the waiting sign-in finishes with its own", async () => {
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(AS, () => tokenAnswer(3600)),
  });
  const session = new OAuthSession(`${RS}/mcp`, { clientId: "c" }, { fetch: net.fetch });
  try {
    const first = await session.accessToken();
    assert.ok(!first.ok && first.error.kind === "needs_auth");
    if (first.error.kind !== "needs_auth") return;
    const state = new URL(first.error.authorizationUrl).searchParams.get("state")!;

    const forged = await session.completeSignIn(
      new URLSearchParams({ code: "attacker-code", state: "forged" }),
    );
    assert.ok(!forged.ok);
    assert.equal(forged.error.kind, "authorization_response_invalid");
    assert.match(forged.error.message, /the sign-in still waits/);
    assert.equal(session.status().state, "needs_auth");
    assert.equal(net.asked.filter((a) => a.url.pathname === "/token").length, 0);

    const genuine = await session.completeSignIn(new URLSearchParams({ code: "real", state }));
    assert.ok(genuine.ok, JSON.stringify(genuine));
    assert.equal(session.status().state, "signed_in");
  } finally {
    await session.close();
  }
});
