import assert from "node:assert/strict";
import { discover, resourceCovers } from "../../oauth/_discovery.ts";
import type { Fetch } from "../../oauth/_http.ts";

/** A fetch that answers `documents` by URL and 404 to the rest, recording every URL asked. */
function fake(documents: Record<string, unknown>) {
  const asked: string[] = [];
  const fetch: Fetch = (input) => {
    const url = String(input instanceof Request ? input.url : input);
    asked.push(url);
    const document = documents[url];
    return Promise.resolve(
      document === undefined ? new Response("no", { status: 404 }) : Response.json(document),
    );
  };
  return { fetch, asked };
}

const SERVER = new URL("https://mcp.example.com/tenant/mcp");

Deno.test("protected resource metadata is looked for at resource_metadata, the path-based URL, then the root", async () => {
  const { fetch, asked } = fake({});
  const found = await discover(SERVER, {
    resourceMetadataUrl: "https://mcp.example.com/custom/prm.json",
    allowLegacy: false,
    fetch,
  });
  assert.deepEqual(found, { ok: true, value: undefined });
  assert.deepEqual(asked, [
    "https://mcp.example.com/custom/prm.json",
    "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp",
    "https://mcp.example.com/.well-known/oauth-protected-resource",
  ]);
});

Deno.test("authorization server metadata of an issuer with a path: RFC 8414 insertion, OpenID insertion, OpenID appending", async () => {
  const { fetch, asked } = fake({
    "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp": {
      resource: "https://mcp.example.com/tenant/mcp",
      authorization_servers: ["https://as.example.com/realm"],
    },
  });
  const found = await discover(SERVER, { allowLegacy: false, fetch });
  assert.ok(!found.ok);
  assert.equal(found.error.kind, "metadata_invalid");
  assert.deepEqual(asked.slice(1), [
    "https://as.example.com/.well-known/oauth-authorization-server/realm",
    "https://as.example.com/.well-known/openid-configuration/realm",
    "https://as.example.com/realm/.well-known/openid-configuration",
  ]);
});

Deno.test("authorization server metadata of an issuer without a path: RFC 8414, then OpenID", async () => {
  const issuer = "https://as.example.com";
  const { fetch, asked } = fake({
    "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp": {
      resource: "https://mcp.example.com/tenant/mcp",
      authorization_servers: [issuer],
      scopes_supported: ["read"],
    },
    "https://as.example.com/.well-known/openid-configuration": {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
    },
  });
  const found = await discover(SERVER, { allowLegacy: false, fetch });
  assert.ok(found.ok && found.value !== undefined);
  assert.equal(found.value.as.token_endpoint, `${issuer}/token`);
  assert.deepEqual(found.value.resource?.scopesSupported, ["read"]);
  assert.deepEqual(asked.slice(1), [
    "https://as.example.com/.well-known/oauth-authorization-server",
    "https://as.example.com/.well-known/openid-configuration",
  ]);
});

Deno.test("a server without protected resource metadata is a 2025-03-26 server: its origin is the issuer, with default endpoints", async () => {
  const { fetch } = fake({});
  const found = await discover(SERVER, { allowLegacy: true, fetch });
  assert.ok(found.ok && found.value !== undefined);
  assert.equal(found.value.issuer, "https://mcp.example.com");
  assert.equal(found.value.fromMetadata, false);
  assert.equal(found.value.as.token_endpoint, "https://mcp.example.com/token");
  assert.equal(found.value.resource, undefined);
});

Deno.test("an authorization server on plain HTTP away from loopback is refused", async () => {
  const { fetch } = fake({
    "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp": {
      resource: "https://mcp.example.com/tenant/mcp",
      authorization_servers: ["http://as.example.com"],
    },
  });
  const found = await discover(SERVER, { allowLegacy: false, fetch });
  assert.ok(!found.ok);
  assert.equal(found.error.kind, "metadata_invalid");
  assert.match(found.error.message, /not HTTPS/);
});

Deno.test("resourceCovers() takes the server's URL and its parents on the same origin, nothing else", async (t) => {
  const server = new URL("https://mcp.example.com/a/mcp");
  const table: Array<[string, boolean]> = [
    ["https://mcp.example.com/a/mcp", true],
    ["https://mcp.example.com/a/mcp/", true],
    ["https://mcp.example.com/a", true],
    ["https://mcp.example.com", true],
    ["https://mcp.example.com/a/mc", false],
    ["https://mcp.example.com/b", false],
    ["https://evil.example.com/a/mcp", false],
    ["http://mcp.example.com/a/mcp", false],
  ];
  for (const [resource, covers] of table) {
    await t.step(resource, () => assert.equal(resourceCovers(new URL(resource), server), covers));
  }
});
