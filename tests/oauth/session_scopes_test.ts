import assert from "node:assert/strict";
import { client, signingIn, within } from "./_setup.ts";
import type { AuthServerOptions, ResourceOptions } from "./_loopback.ts";
import type { OAuthSettings } from "../../oauth/mod.ts";

type Case = {
  name: string;
  as?: AuthServerOptions;
  rs?: Partial<ResourceOptions>;
  settings?: OAuthSettings;
  /** The `scope` of the authorization request; null when it has none. */
  asked: string | null;
};

const CASES: Case[] = [
  {
    name: "the scope of the refusal's challenge",
    rs: {
      requires: { "tools/list": ["mcp:read"] },
      scopeInChallenge: true,
      scopesSupported: ["x"],
    },
    asked: "mcp:read",
  },
  {
    name: "else every scope of the resource's scopes_supported",
    rs: { scopesSupported: ["mcp:basic", "mcp:read", "mcp:write"] },
    asked: "mcp:basic mcp:read mcp:write",
  },
  { name: "else no scope at all", asked: null },
  {
    name: "with offline_access where the authorization server lists it",
    as: { scopesSupported: ["mcp:read", "offline_access"] },
    rs: { scopesSupported: ["mcp:read"] },
    asked: "mcp:read offline_access",
  },
  {
    name: "and no offline_access alone when nothing else is asked for",
    as: { scopesSupported: ["mcp:read", "offline_access"] },
    asked: null,
  },
  {
    name: "the settings' scopes over the server's",
    rs: { requires: { "tools/list": ["mcp:read"] }, scopeInChallenge: true },
    settings: { scopes: ["mcp:read", "mcp:admin"] },
    asked: "mcp:read mcp:admin",
  },
];

Deno.test("a sign-in asks for the scopes MCP's selection strategy names", async (t) => {
  for (const c of CASES) {
    await t.step(c.name, async () => {
      await within({ as: c.as ?? {}, rs: c.rs ?? {} }, async (w) => {
        const answer = await client(w, signingIn(c.settings)).call("tools/list");
        assert.ok(answer.ok, answer.ok ? "" : answer.error.message);
        assert.equal(w.as.seen.authorizations[0]?.get("scope"), c.asked);
      });
    });
  }
});

Deno.test("client credentials never ask for offline_access", async () => {
  await within({
    as: {
      scopesSupported: ["mcp:read", "offline_access"],
      clients: { svc: { secret: "svc-secret" } },
    },
    rs: { scopesSupported: ["mcp:read"] },
  }, async (w) => {
    const answer = await client(w, {
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "svc-secret",
    }).call("tools/list");
    assert.ok(answer.ok);
    assert.equal(w.as.seen.tokens[0]?.form.get("scope"), "mcp:read");
  });
});
