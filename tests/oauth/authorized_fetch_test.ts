import assert from "node:assert/strict";
import { headlessAuthorize } from "../../oauth/mod.ts";
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
