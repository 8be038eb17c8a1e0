import assert from "node:assert/strict";
import { authorizedFetch, headlessAuthorize, OAuthSession } from "../../oauth/mod.ts";
import { authServer, tokenAnswer, virtualNet } from "./_virtual.ts";
import type { Fetch } from "../../oauth/_http.ts";
import { MAX_AUTHORIZE_REDIRECTS } from "../../oauth/limits.ts";

const REDIRECT = "http://127.0.0.1:9/callback";

function redirecting(hops: Record<string, string>): { fetch: Fetch; asked: string[] } {
  const asked: string[] = [];
  const fetch: Fetch = (input) => {
    const url = String(input);
    asked.push(url);
    const location = hops[url];
    return Promise.resolve(
      location === undefined
        ? new Response("<h1>Sign in</h1>", { status: 200 })
        : new Response(null, { status: 302, headers: { location } }),
    );
  };
  return { fetch, asked };
}

Deno.test("headlessAuthorize() follows redirects to the redirect URI and resolves to its query, without fetching it", async () => {
  const { fetch, asked } = redirecting({
    "https://as.example.com/authorize?x=1": "/consent",
    "https://as.example.com/consent":
      `${REDIRECT}?code=c1&state=s1&iss=https%3A%2F%2Fas.example.com`,
  });
  const query = await headlessAuthorize(REDIRECT, fetch)("https://as.example.com/authorize?x=1");
  assert.equal(query.get("code"), "c1");
  assert.equal(query.get("state"), "s1");
  assert.equal(query.get("iss"), "https://as.example.com");
  assert.deepEqual(asked, [
    "https://as.example.com/authorize?x=1",
    "https://as.example.com/consent",
  ]);
});

Deno.test("headlessAuthorize() rejects a page that wants a person", async () => {
  const { fetch } = redirecting({});
  await assert.rejects(
    headlessAuthorize(REDIRECT, fetch)("https://as.example.com/authorize"),
    /HTTP 200 instead of a redirect/,
  );
});

Deno.test("headlessAuthorize() gives up after MAX_AUTHORIZE_REDIRECTS redirects that never reach the redirect URI", async () => {
  const { fetch, asked } = redirecting({ "https://as.example.com/loop": "/loop" });
  await assert.rejects(
    headlessAuthorize(REDIRECT, fetch)("https://as.example.com/loop"),
    /more than 10 times/,
  );
  assert.equal(asked.length, MAX_AUTHORIZE_REDIRECTS + 1);
});

/** A session signed in by client credentials to `https://mcp.example/mcp`, and a fetch that records. */
function signedIn() {
  const AS = "https://as.example";
  const RS = "https://mcp.example";
  const net = virtualNet({
    [RS]: (asked) =>
      asked.url.pathname.startsWith("/.well-known/oauth-protected-resource")
        ? Response.json({ resource: `${RS}/mcp`, authorization_servers: [AS] })
        : asked.url.pathname === "/mcp/moved"
        ? new Response(null, { status: 307, headers: { location: "/other" } })
        : asked.url.pathname === "/mcp/away"
        ? new Response(null, { status: 302, headers: { location: "https://evil.example/x" } })
        : new Response("ok"),
    [AS]: authServer(AS, () => tokenAnswer(3600)),
    "https://evil.example": () => new Response("thanks"),
  });
  const session = new OAuthSession(`${RS}/mcp`, {
    grant: "client_credentials",
    clientId: "svc",
    clientSecret: "svc-secret",
  }, { fetch: net.fetch });
  const authorizations = (origin: string, path: string) =>
    net.asked.filter((a) => a.url.origin === origin && a.url.pathname === path)
      .map((a) => a.headers.get("authorization"));
  return { session, fetch: authorizedFetch(session, net.fetch), net, authorizations };
}

Deno.test("authorizedFetch() refuses a URL outside the session's resource before anything is sent", async (t) => {
  for (
    const url of [
      "https://evil.example/mcp",
      "http://mcp.example/mcp",
      "https://mcp.example/admin",
      "https://mcp.example/mcpx",
    ]
  ) {
    await t.step(url, async () => {
      const { session, fetch, net } = signedIn();
      try {
        const answer = await fetch(url, { method: "POST", body: "{}" });
        assert.ok(!answer.ok);
        assert.equal(answer.error.kind, "outside_resource");
        assert.match(answer.error.message, /outside the protected resource/);
        assert.deepEqual(net.asked, [], "nothing was sent, not even discovery");
      } finally {
        await session.close();
      }
    });
  }
});

Deno.test("authorizedFetch() sends the token within the resource, a path under it included", async () => {
  const { session, fetch, authorizations } = signedIn();
  try {
    const answer = await fetch("https://mcp.example/mcp/sub?x=1", { method: "POST", body: "{}" });
    assert.ok(answer.ok && answer.value.status === 200);
    await answer.value.body?.cancel();
    assert.match(authorizations("https://mcp.example", "/mcp/sub")[0] ?? "", /^Bearer at-/);
  } finally {
    await session.close();
  }
});

Deno.test("authorizedFetch() follows a redirect out of the resource without the session's credentials", async (t) => {
  await t.step("to a path of the same origin", async () => {
    const { session, fetch, authorizations } = signedIn();
    try {
      const answer = await fetch("https://mcp.example/mcp/moved", { method: "POST", body: "{}" });
      assert.ok(answer.ok && answer.value.status === 200);
      await answer.value.body?.cancel();
      assert.deepEqual(authorizations("https://mcp.example", "/other"), [null]);
    } finally {
      await session.close();
    }
  });
  await t.step("to another origin", async () => {
    const { session, fetch, authorizations, net } = signedIn();
    try {
      const answer = await fetch("https://mcp.example/mcp/away", { method: "POST", body: "{}" });
      assert.ok(answer.ok && answer.value.status === 200);
      await answer.value.body?.cancel();
      assert.deepEqual(authorizations("https://evil.example", "/x"), [null]);
      assert.equal(net.asked.at(-1)!.method, "GET", "a 302 of a POST is followed with a GET");
    } finally {
      await session.close();
    }
  });
});
