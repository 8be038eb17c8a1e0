import assert from "node:assert/strict";
import { client, signingIn, within } from "./_setup.ts";
import { DEFAULT_REDIRECT_URI, FileTokenStore, headlessAuthorize } from "../../oauth/mod.ts";

function expectOk<T>(
  result: { ok: true; value: T } | { ok: false; error: { message: string } },
): T {
  if (!result.ok) assert.fail(result.error.message);
  return result.value;
}

Deno.test("a 401 leads to discovery, registration and a PKCE sign-in; an expired token is refreshed silently, with rotation", async () => {
  await within(
    { rs: { requires: { "tools/list": ["mcp:read"] }, scopeInChallenge: true } },
    async (w) => {
      let now = 1_700_000_000_000;
      const { session, call } = client(w, signingIn(), { now: () => now });

      const first = expectOk(await call("tools/list"));
      assert.equal(first.status, 200);
      assert.deepEqual(w.rs.seen.map((s) => s.status), [401, 200]);
      assert.equal(w.as.seen.registrations.length, 1);
      assert.equal(w.as.seen.registrations[0]?.application_type, "native");
      assert.deepEqual(w.as.seen.registrations[0]?.grant_types, [
        "authorization_code",
        "refresh_token",
      ]);
      const asked = w.as.seen.authorizations[0]!;
      assert.equal(asked.get("code_challenge_method"), "S256");
      assert.equal(asked.get("scope"), "mcp:read");
      assert.equal(asked.get("resource"), w.rs.url);
      const exchange = w.as.seen.tokens[0]!.form;
      assert.equal(exchange.get("grant_type"), "authorization_code");
      assert.equal(exchange.get("resource"), w.rs.url);
      const firstToken = w.rs.seen[1]!.authorization;

      now += 3600 * 1000;
      const second = expectOk(await call("tools/list"));
      assert.equal(second.status, 200);
      // Refreshed before the request, which carried the new token: no second sign-in.
      assert.equal(w.as.seen.authorizations.length, 1);
      assert.deepEqual(w.rs.seen.map((s) => s.status), [401, 200, 200]);
      const refresh = w.as.seen.tokens[1]!.form;
      assert.equal(refresh.get("grant_type"), "refresh_token");
      assert.equal(refresh.get("resource"), w.rs.url);
      assert.notEqual(w.rs.seen[2]!.authorization, firstToken);

      // Rotation: the next refresh presents the new refresh token, never the first one again.
      now += 3600 * 1000;
      assert.equal(expectOk(await call("tools/list")).status, 200);
      const again = w.as.seen.tokens[2]!.form;
      assert.equal(again.get("grant_type"), "refresh_token");
      assert.notEqual(again.get("refresh_token"), refresh.get("refresh_token"));
      assert.equal(session.status().state, "signed_in");
    },
  );
});

Deno.test("a token the server calls invalid is refreshed, not signed in again", async () => {
  await within({}, async (w) => {
    const { call } = client(w, signingIn());
    expectOk(await call("tools/list"));
    w.book.tokens.clear();
    const answer = expectOk(await call("tools/list"));
    assert.equal(answer.status, 200);
    assert.equal(w.as.seen.authorizations.length, 1);
    assert.deepEqual(w.as.seen.tokens.map((t) => t.form.get("grant_type")), [
      "authorization_code",
      "refresh_token",
    ]);
  });
});

Deno.test("a refresh the server refuses leads to a new sign-in", async () => {
  await within({ as: { refuseRefresh: true } }, async (w) => {
    const { call } = client(w, signingIn());
    expectOk(await call("tools/list"));
    w.book.tokens.clear();
    assert.equal(expectOk(await call("tools/list")).status, 200);
    assert.equal(w.as.seen.authorizations.length, 2);
  });
});

Deno.test("client credentials get a token before the first request, with client_secret_basic", async () => {
  await within({ as: { clients: { "svc-1": { secret: "svc-secret-value" } } } }, async (w) => {
    const { call } = client(w, {
      grant: "client_credentials",
      clientId: "svc-1",
      clientSecret: "svc-secret-value",
    });
    assert.equal(expectOk(await call("tools/list")).status, 200);
    assert.deepEqual(w.rs.seen.map((s) => s.status), [200]);
    assert.equal(w.as.seen.authorizations.length, 0);
    assert.equal(w.as.seen.registrations.length, 0);
    const request = w.as.seen.tokens[0]!;
    assert.equal(request.form.get("grant_type"), "client_credentials");
    assert.equal(request.authorization, `Basic ${btoa("svc-1:svc-secret-value")}`);
    assert.equal(request.form.get("resource"), w.rs.url);
  });
});

Deno.test("client credentials authenticate with a private_key_jwt assertion signed by the PEM key", async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(binary)}\n-----END PRIVATE KEY-----\n`;
  await within({ as: { clients: { "svc-jwt": { publicKey: pair.publicKey } } } }, async (w) => {
    const { call } = client(w, {
      grant: "client_credentials",
      clientId: "svc-jwt",
      privateKeyPem: pem,
    });
    assert.equal(expectOk(await call("tools/list")).status, 200);
    const form = w.as.seen.tokens[0]!.form;
    assert.equal(
      form.get("client_assertion_type"),
      "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    );
    assert.equal(w.as.seen.tokens[0]!.authorization, null);
  });
});

Deno.test("a 403 insufficient_scope steps up to the scopes granted and the scopes asked for", async () => {
  await within({
    rs: {
      requires: { "tools/list": ["mcp:read"], "tools/call": ["mcp:write"] },
      scopeInChallenge: true,
    },
  }, async (w) => {
    const { call } = client(w, signingIn());
    assert.equal(expectOk(await call("tools/list")).status, 200);
    assert.equal(expectOk(await call("tools/call")).status, 200);
    assert.deepEqual(w.as.seen.authorizations.map((a) => a.get("scope")), [
      "mcp:read",
      "mcp:read mcp:write",
    ]);
    assert.deepEqual(w.rs.seen.map((s) => s.status), [401, 200, 403, 200]);
  });
});

Deno.test("a server that never grants the scope it asks for is given up after MAX_AUTHORIZATION_RETRIES sign-ins", async () => {
  const { MAX_AUTHORIZATION_RETRIES } = await import("../../oauth/limits.ts");
  await within({
    as: { grantable: [] },
    rs: { requires: { "tools/call": ["mcp:admin"] }, scopeInChallenge: true },
  }, async (w) => {
    const { call } = client(w, signingIn());
    const answer = await call("tools/call");
    assert.ok(!answer.ok);
    assert.equal(answer.error.kind, "insufficient_scope");
    assert.equal(w.as.seen.authorizations.length, MAX_AUTHORIZATION_RETRIES);
  });
});

Deno.test("without authorize, a sign-in ends as needs_auth with the authorization URL, and completeSignIn finishes it", async () => {
  await within({}, async (w) => {
    const { session, call } = client(w, {});
    const answer = await call("tools/list");
    assert.ok(!answer.ok);
    assert.equal(answer.error.kind, "needs_auth");
    if (answer.error.kind !== "needs_auth") return;
    const url = new URL(answer.error.authorizationUrl);
    assert.equal(`${url.origin}${url.pathname}`, `${w.as.issuer}/authorize`);
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    assert.equal(session.status().state, "needs_auth");
    const query = await headlessAuthorize(DEFAULT_REDIRECT_URI)(url);
    expectOk(await session.completeSignIn(query));
    assert.equal(expectOk(await call("tools/list")).status, 200);
    assert.equal(w.as.seen.authorizations.length, 1);
  });
});

Deno.test("a harness's refresh token gets a token before any sign-in", async () => {
  await within({}, async (w) => {
    const { session: first } = client(w, signingIn());
    expectOk(await first.accessToken());
    const given = w.as.seen.tokens.length;
    const refreshToken = [...w.book.secrets].find((s) => s.startsWith("refresh-"))!;
    // The refresh token is the registered client's: it is presented as that client.
    const clientId = w.as.seen.authorizations[0]!.get("client_id")!;
    const { call } = client(w, { refreshToken, clientId });
    assert.equal(expectOk(await call("tools/list")).status, 200);
    assert.deepEqual(w.rs.seen.map((s) => s.status), [200]);
    assert.equal(w.as.seen.tokens[given]!.form.get("grant_type"), "refresh_token");
    assert.equal(w.as.seen.authorizations.length, 1);
  });
});

Deno.test("a token kept in a FileTokenStore is used by the next session without a sign-in", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await within({}, async (w) => {
      const store = new FileTokenStore({ dir });
      const first = client(w, signingIn(), { store });
      expectOk(await first.call("tools/list"));
      const second = client(w, {}, { store: new FileTokenStore({ dir }) });
      assert.equal(expectOk(await second.call("tools/list")).status, 200);
      assert.equal(w.as.seen.authorizations.length, 1);
      assert.equal(w.as.seen.registrations.length, 1);
      assert.equal(second.session.status().state, "signed_in");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("signOut forgets the token: the next request signs in again", async () => {
  await within({}, async (w) => {
    const { session, call } = client(w, signingIn());
    expectOk(await call("tools/list"));
    expectOk(await session.signOut());
    assert.equal(session.status().state, "signed_out");
    expectOk(await call("tools/list"));
    assert.equal(w.as.seen.authorizations.length, 2);
    assert.equal(w.as.seen.registrations.length, 1);
  });
});

Deno.test("refusals of a token already replaced are answered with the new one, without another sign-in", async () => {
  await within({}, async (w) => {
    const { call } = client(w, signingIn());
    const answers = await Promise.all([call("tools/list"), call("tools/list"), call("tools/list")]);
    for (const answer of answers) assert.equal(expectOk(answer).status, 200);
    assert.equal(w.as.seen.authorizations.length, 1);
  });
});

Deno.test("a headless grant the token endpoint refuses is asked for once, and the refusal is the request's answer", async () => {
  await within({ as: { clients: { svc: { secret: "right-secret" } } } }, async (w) => {
    const { call } = client(w, {
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "wrong-secret",
    });
    const answer = await call("tools/list");
    assert.ok(!answer.ok);
    assert.equal(answer.error.kind, "token_refused");
    assert.match(answer.error.message, /invalid_client/);
    assert.equal(w.as.seen.tokens.length, 1);
    assert.equal(w.rs.seen.length, 0);
  });
});

Deno.test("a session whose token is due takes the one another session on its store renewed, without a refresh of its own", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await within({ as: { rotate: true } }, async (w) => {
      let now = 1_700_000_000_000;
      const clock = { now: () => now };
      const a = client(w, signingIn(), { store: new FileTokenStore({ dir }), ...clock });
      expectOk(await a.call("tools/list"));
      // B, another harness, has no way to sign in: it lives on what the store keeps.
      const b = client(w, {}, { store: new FileTokenStore({ dir }), ...clock });
      assert.equal(expectOk(await b.call("tools/list")).status, 200);

      now += 3600 * 1000;
      assert.equal(expectOk(await a.call("tools/list")).status, 200, "A refreshes first");
      const answer = expectOk(await b.call("tools/list"));
      assert.equal(answer.status, 200, "B goes on with the grant A was given");
      assert.equal(b.session.status().state, "signed_in");
      assert.equal(w.as.seen.authorizations.length, 1);
      const refreshes = w.as.seen.tokens.filter((t) =>
        t.form.get("grant_type") === "refresh_token"
      );
      assert.equal(refreshes.length, 1, "A's refresh only: B found its grant in the store first");

      // The next run finds the rotated grant: no sign-in needed.
      const c = client(w, {}, { store: new FileTokenStore({ dir }), ...clock });
      assert.equal(expectOk(await c.call("tools/list")).status, 200);
      assert.equal(w.as.seen.authorizations.length, 1);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a refused refresh with no other grant in the store signs in again, and the new grant is kept", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await within({ as: { rotate: true } }, async (w) => {
      let now = 1_700_000_000_000;
      const clock = { now: () => now };
      const a = client(w, signingIn(), { store: new FileTokenStore({ dir }), ...clock });
      expectOk(await a.call("tools/list"));
      w.as.options.refuseRefresh = true;
      now += 3600 * 1000;
      // Refused, and nothing else in the store: A forgets it and signs in again.
      assert.equal(expectOk(await a.call("tools/list")).status, 200);
      assert.equal(w.as.seen.authorizations.length, 2);
      const c = client(w, {}, { store: new FileTokenStore({ dir }), ...clock });
      assert.equal(expectOk(await c.call("tools/list")).status, 200, "the new grant is kept");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
