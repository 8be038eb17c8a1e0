// Dynamic registrations kept in the store: one is kept only once it is known
// to be usable, and one the authorization server no longer knows
// (invalid_client) is dropped and made again, once per session.

import assert from "node:assert/strict";
import {
  DEFAULT_REDIRECT_URI,
  headlessAuthorize,
  MemoryTokenStore,
  OAuthSession,
  type TokenStore,
} from "../../oauth/mod.ts";
import { type Asked, asMetadata, resourceServer, tokenAnswer, virtualNet } from "./_virtual.ts";

const AS = "https://as.example";
const RS = "https://mcp.example";
const KEY = { issuer: AS, client: `dynamic ${DEFAULT_REDIRECT_URI}` };

/**
 * An authorization server that registers clients (answering each with the
 * auth method `method` gives it), redirects at once to the redirect URI, and
 * issues tokens to the clients it knows; `forget` empties its registry.
 */
function registering(method: (n: number) => string = () => "none") {
  const known = new Set<string>();
  let registrations = 0;
  const handler = (asked: Asked): Response => {
    const path = asked.url.pathname;
    if (path.startsWith("/.well-known/oauth-authorization-server")) return asMetadata(AS);
    if (path === "/register") {
      const id = `dyn-${++registrations}`;
      known.add(id);
      return Response.json({
        ...JSON.parse(asked.body),
        client_id: id,
        client_secret: `secret-of-${id}`,
        token_endpoint_auth_method: method(registrations),
      }, { status: 201 });
    }
    if (path === "/authorize") {
      const back = new URL(asked.url.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", `code-${crypto.randomUUID()}`);
      back.searchParams.set("state", asked.url.searchParams.get("state")!);
      return new Response(null, { status: 302, headers: { location: back.href } });
    }
    if (path === "/token") {
      const id = new URLSearchParams(asked.body).get("client_id") ?? "";
      if (!known.has(id)) {
        return Response.json({ error: "invalid_client", error_description: "unknown client" }, {
          status: 401,
        });
      }
      return tokenAnswer(3600, { refresh_token: `rt-${crypto.randomUUID()}` });
    }
    return new Response("not found", { status: 404 });
  };
  return {
    handler,
    forget: () => known.clear(),
    get registrations() {
      return registrations;
    },
  };
}

function sessionOn(store: TokenStore, fetch: ReturnType<typeof virtualNet>["fetch"]) {
  return new OAuthSession(`${RS}/mcp`, {
    authorize: headlessAuthorize(DEFAULT_REDIRECT_URI, fetch),
  }, { fetch, store });
}

Deno.test("a registration answer this client cannot authenticate as is not kept: the next session registers again", async () => {
  const as = registering((n) => n === 1 ? "private_key_jwt" : "none");
  const net = virtualNet({ [RS]: resourceServer(RS, AS), [AS]: as.handler });
  const store = new MemoryTokenStore();
  const first = sessionOn(store, net.fetch);
  const refused = await first.accessToken();
  await first.close();
  assert.ok(!refused.ok);
  assert.equal(refused.error.kind, "registration_refused");
  assert.match(refused.error.message, /private_key_jwt, which it did not ask for/);
  const entry = await store.read(KEY);
  assert.ok(entry.ok && entry.value === undefined, "nothing kept");
  const second = sessionOn(store, net.fetch);
  const got = await second.accessToken();
  await second.close();
  assert.ok(got.ok);
  assert.equal(as.registrations, 2);
});

Deno.test("a kept registration this client cannot use is replaced by a new one", async () => {
  const as = registering();
  const net = virtualNet({ [RS]: resourceServer(RS, AS), [AS]: as.handler });
  const store = new MemoryTokenStore();
  await store.update(KEY, () => ({
    grants: {},
    registration: { clientId: "dyn-old", tokenEndpointAuthMethod: "private_key_jwt" },
  }));
  const session = sessionOn(store, net.fetch);
  const got = await session.accessToken();
  await session.close();
  assert.ok(got.ok, JSON.stringify(got));
  assert.equal(as.registrations, 1);
  const entry = await store.read(KEY);
  assert.ok(entry.ok);
  assert.equal(entry.value?.registration?.clientId, "dyn-1");
});

Deno.test("a kept registration the server no longer knows is dropped at its invalid_client, and the client registers again", async (t) => {
  await t.step("at a refresh", async () => {
    const as = registering();
    const net = virtualNet({ [RS]: resourceServer(RS, AS), [AS]: as.handler });
    const store = new MemoryTokenStore();
    const first = sessionOn(store, net.fetch);
    assert.ok((await first.accessToken()).ok);
    await first.close();
    as.forget();
    const second = sessionOn(store, net.fetch);
    assert.ok((await second.accessToken()).ok, "the kept token is still good");
    const refreshed = await second.refresh();
    await second.close();
    assert.ok(refreshed.ok, JSON.stringify(refreshed));
    assert.equal(as.registrations, 2);
    const entry = await store.read(KEY);
    assert.ok(entry.ok);
    assert.equal(entry.value?.registration?.clientId, "dyn-2");
  });
  await t.step("at a code's exchange", async () => {
    const as = registering();
    const net = virtualNet({ [RS]: resourceServer(RS, AS), [AS]: as.handler });
    const store = new MemoryTokenStore();
    await store.update(KEY, () => ({
      grants: {},
      registration: { clientId: "dyn-gone", tokenEndpointAuthMethod: "none" },
    }));
    const session = sessionOn(store, net.fetch);
    const got = await session.accessToken();
    await session.close();
    assert.ok(got.ok, JSON.stringify(got));
    assert.equal(as.registrations, 1);
  });
});

Deno.test("a new registration refused as well is the answer, once, saying to set a client id", async () => {
  const as = registering();
  const net = virtualNet({ [RS]: resourceServer(RS, AS), [AS]: as.handler });
  const store = new MemoryTokenStore();
  const session = sessionOn(store, net.fetch);
  try {
    assert.ok((await session.accessToken()).ok);
    as.forget();
    const first = await session.refresh();
    assert.ok(first.ok, "registered again once");
    as.forget();
    const second = await session.refresh();
    assert.ok(!second.ok);
    assert.equal(second.error.kind, "token_refused");
    assert.match(second.error.message, /a new dynamic registration was refused as well/);
    assert.match(second.error.message, /clientId/);
    assert.equal(as.registrations, 2);
  } finally {
    await session.close();
  }
});
