// The token a session holds: an expiry a token endpoint or a store says is
// bounded by MAX_TOKEN_LIFETIME_MS, so that every date made of it is a date.

import assert from "node:assert/strict";
import { heldFromStore, heldOf, refreshAt } from "../../oauth/_held.ts";
import { MAX_TOKEN_LIFETIME_MS, OAuthSession } from "../../oauth/mod.ts";
import { authServer, resourceServer, tokenAnswer, virtualNet } from "./_virtual.ts";

const NOW = 1_700_000_000_000;

Deno.test("an expires_in past MAX_TOKEN_LIFETIME_MS is held as that lifetime", async (t) => {
  for (const expiresIn of [1e13, Number.MAX_VALUE]) {
    await t.step(String(expiresIn), () => {
      const held = heldOf(
        { accessToken: "at", tokenType: "bearer", expiresIn },
        { asked: [], generation: 1, now: NOW, bound: false },
      );
      assert.equal(held.expiresAt, NOW + MAX_TOKEN_LIFETIME_MS);
      assert.doesNotThrow(() => new Date(held.expiresAt!).toISOString());
      assert.ok(refreshAt(held)! < held.expiresAt!);
    });
  }
});

Deno.test("a stored expiry past MAX_TOKEN_LIFETIME_MS from now is brought back to it", () => {
  const held = heldFromStore(
    { accessToken: "at", expiresAt: 1e16, scopes: [] },
    { generation: 1, now: NOW },
  );
  assert.equal(held.expiresAt, NOW + MAX_TOKEN_LIFETIME_MS);
});

Deno.test("a session handed an absurd expires_in tells an expiry a Date can hold", async () => {
  const AS = "https://as.example";
  const RS = "https://mcp.example";
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(AS, () => tokenAnswer(1e13)),
  });
  const session = new OAuthSession(`${RS}/mcp`, {
    grant: "client_credentials",
    clientId: "svc",
    clientSecret: "svc-secret",
  }, { fetch: net.fetch, now: () => NOW });
  try {
    const token = await session.accessToken();
    assert.ok(token.ok);
    assert.equal(token.value.expiresAt, NOW + MAX_TOKEN_LIFETIME_MS);
    assert.equal(session.status().expiresAt, NOW + MAX_TOKEN_LIFETIME_MS);
  } finally {
    await session.close();
  }
});
