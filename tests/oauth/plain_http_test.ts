// Plain HTTP: no token for an MCP server reached unencrypted off this
// machine, and no secret to an endpoint reached unencrypted unless both it
// and whoever named it are on this machine.

import assert from "node:assert/strict";
import { type OAuthFailure, OAuthSession } from "../../oauth/mod.ts";
import { authServer, resourceServer, tokenAnswer, virtualNet } from "./_virtual.ts";

const SECRET = "the-client-secret";
const HEADLESS = { grant: "client_credentials", clientId: "svc", clientSecret: SECRET } as const;

function failed(outcome: { ok: boolean; error?: OAuthFailure }): OAuthFailure {
  assert.ok(!outcome.ok, "expected a failure");
  return outcome.error!;
}

Deno.test("no token for an MCP server on plain HTTP off this machine: every operation says to use https, before any request", async (t) => {
  const RS = "http://mcp.example";
  const PRM = "https://meta.example";
  const AS = "https://as.example";
  const net = virtualNet({
    [RS]: () => new Response(null, { status: 401 }),
    [PRM]: () => Response.json({ resource: `${RS}/mcp`, authorization_servers: [AS] }),
    [AS]: authServer(AS, () => tokenAnswer(3600)),
  });
  const session = new OAuthSession(`${RS}/mcp`, HEADLESS, { fetch: net.fetch });
  const refusal = {
    status: 401,
    wwwAuthenticate: `Bearer resource_metadata="${PRM}/prm"`,
    attempt: 1,
  };
  const operations = {
    credentials: () => session.credentials(),
    challenge: () => session.challenge(refusal),
    accessToken: () => session.accessToken(),
    refresh: () => session.refresh(),
    completeSignIn: () => session.completeSignIn(new URLSearchParams({ code: "c", state: "s" })),
  };
  try {
    for (const [name, operation] of Object.entries(operations)) {
      await t.step(name, async () => {
        const error = failed(await operation());
        assert.equal(error.kind, "configuration_invalid");
        if (error.kind === "configuration_invalid") assert.equal(error.setting, "url");
        assert.match(error.message, /unencrypted; use the server's https:\/\/ URL/);
      });
    }
  } finally {
    await session.close();
  }
  assert.deepEqual(net.asked, [], "nothing was asked of anyone");
});

Deno.test("a loopback MCP server on plain HTTP may sign in", async () => {
  const RS = "http://127.0.0.1:9";
  const AS = "http://127.0.0.1:10";
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(AS, () => tokenAnswer(3600)),
  });
  const session = new OAuthSession(`${RS}/mcp`, HEADLESS, { fetch: net.fetch });
  try {
    assert.ok((await session.accessToken()).ok);
  } finally {
    await session.close();
  }
});

Deno.test("a remote issuer's token endpoint on plain HTTP is refused, loopback or not: the secret is never sent", async (t) => {
  const AS = "https://as.example";
  const RS = "https://mcp.example";
  for (
    const endpoint of [
      "http://evil.example/token",
      "http://127.0.0.1:8123/token",
      "http://localhost:8123/token",
    ]
  ) {
    await t.step(endpoint, async () => {
      const net = virtualNet({
        [RS]: resourceServer(RS, AS),
        [AS]: authServer(AS, () => tokenAnswer(3600), { token_endpoint: endpoint }),
        [new URL(endpoint).origin]: () => tokenAnswer(3600),
      });
      const session = new OAuthSession(`${RS}/mcp`, HEADLESS, { fetch: net.fetch });
      try {
        const error = failed(await session.accessToken());
        assert.equal(error.kind, "metadata_invalid");
        assert.match(error.message, /not HTTPS/);
      } finally {
        await session.close();
      }
      assert.deepEqual(net.asked.filter((a) => a.url.href === endpoint), []);
    });
  }
  await t.step("another HTTPS origin is used: it is encrypted", async () => {
    const endpoint = "https://tokens.example/token";
    const net = virtualNet({
      [RS]: resourceServer(RS, AS),
      [AS]: authServer(AS, () => tokenAnswer(3600), { token_endpoint: endpoint }),
      "https://tokens.example": () => tokenAnswer(3600),
    });
    const session = new OAuthSession(`${RS}/mcp`, HEADLESS, { fetch: net.fetch });
    try {
      assert.ok((await session.accessToken()).ok);
    } finally {
      await session.close();
    }
  });
});

Deno.test("a remote MCP server that names an issuer on this machine over plain HTTP is refused", async () => {
  const RS = "https://mcp.example";
  const AS = "http://127.0.0.1:8123";
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(AS, () => tokenAnswer(3600)),
  });
  const session = new OAuthSession(`${RS}/mcp`, HEADLESS, { fetch: net.fetch });
  try {
    const error = failed(await session.accessToken());
    assert.equal(error.kind, "metadata_invalid");
  } finally {
    await session.close();
  }
  assert.deepEqual(net.asked.filter((a) => a.url.origin === AS), []);
});

Deno.test("a deadline no timer can keep is the caller's mistake", () => {
  for (const requestTimeoutMs of [0, -1, 2 ** 31, Number.NaN]) {
    assert.throws(
      () => new OAuthSession("https://mcp.example/mcp", {}, { requestTimeoutMs }),
      RangeError,
    );
  }
  assert.throws(
    () => new OAuthSession("https://mcp.example/mcp", {}, { signInTimeoutMs: 2 ** 40 }),
    RangeError,
  );
});
