import assert from "node:assert/strict";
import { client, signingIn, within, world } from "./_setup.ts";
import { newBook, startAuthServer, startResource } from "./_loopback.ts";
import { type OAuthFailure, OAuthSession } from "../../oauth/mod.ts";

async function failure(
  answer: Promise<{ ok: boolean; error?: OAuthFailure }>,
): Promise<OAuthFailure> {
  const settled = await answer;
  assert.ok(!settled.ok, "expected a failure");
  return settled.error!;
}

Deno.test("an iss that is not the authorization server's is refused before the token request", async () => {
  await within({ as: { iss: "wrong" } }, async (w) => {
    const error = await failure(client(w, signingIn()).call("tools/list"));
    assert.equal(error.kind, "authorization_response_invalid");
    assert.equal(w.as.seen.authorizations.length, 1);
    assert.equal(w.as.seen.tokens.length, 0);
  });
});

Deno.test("a missing iss is refused when the metadata says the server sends one", async () => {
  await within({ as: { iss: "omit", issSupported: true } }, async (w) => {
    const error = await failure(client(w, signingIn()).call("tools/list"));
    assert.equal(error.kind, "authorization_response_invalid");
    assert.equal(w.as.seen.tokens.length, 0);
  });
});

Deno.test("a missing iss is taken when the metadata does not say the server sends one", async () => {
  await within({ as: { iss: "omit", issSupported: false } }, async (w) => {
    const answer = await client(w, signingIn()).call("tools/list");
    assert.ok(answer.ok);
    assert.equal(w.as.seen.tokens.length, 1);
  });
});

Deno.test("protected resource metadata for another resource is refused before any registration", async () => {
  await within({ rs: { resource: "https://evil.example/mcp" } }, async (w) => {
    const error = await failure(client(w, signingIn()).call("tools/list"));
    assert.equal(error.kind, "resource_mismatch");
    assert.match(error.message, /evil\.example/);
    assert.equal(w.as.seen.registrations.length, 0);
    assert.equal(w.as.seen.authorizations.length, 0);
  });
});

Deno.test("authorization server metadata naming another issuer is not used", async () => {
  await within({ as: { metadataIssuer: "https://attacker.example" } }, async (w) => {
    const error = await failure(client(w, signingIn()).call("tools/list"));
    assert.equal(error.kind, "issuer_mismatch");
    assert.equal(w.as.seen.registrations.length, 0);
    assert.equal(w.as.seen.authorizations.length, 0);
  });
});

Deno.test("a server that moves to another authorization server is registered there anew; the old client id stays with the old one", async () => {
  const book = newBook();
  const first = startAuthServer(book);
  const second = startAuthServer(book);
  let current = first;
  const rs = startResource(book, { authorizationServer: () => current.issuer });
  try {
    const { call } = client({ book, as: first, rs, close: async () => {} }, signingIn());
    assert.ok((await call("tools/list")).ok);
    current = second;
    book.tokens.clear();
    assert.ok((await call("tools/list")).ok);
    const oldId = first.seen.authorizations[0]!.get("client_id");
    assert.equal(second.seen.registrations.length, 1);
    assert.equal(second.seen.authorizations.length, 1);
    assert.notEqual(second.seen.authorizations[0]!.get("client_id"), oldId);
    // The refresh token of the first server was not presented to the second.
    assert.ok(second.seen.tokens.every((t) => t.form.get("grant_type") !== "refresh_token"));
  } finally {
    await first.close();
    await second.close();
    await rs.close();
  }
});

Deno.test("a refused registration names the server's answer and the setting for a client id", async () => {
  await within({ as: { registration: "refuse" } }, async (w) => {
    const error = await failure(client(w, signingIn()).call("tools/list"));
    assert.equal(error.kind, "registration_refused");
    if (error.kind !== "registration_refused") return;
    assert.equal(error.error, "invalid_client_metadata");
    assert.equal(error.setting, "clientId");
    assert.match(error.message, /dynamic registration is closed/);
    assert.match(error.message, /clientId/);
  });
});

Deno.test("an authorization server without registration asks for a client id", async () => {
  await within({ as: { registration: false } }, async (w) => {
    const error = await failure(client(w, signingIn()).call("tools/list"));
    assert.equal(error.kind, "registration_unavailable");
    assert.match(error.message, /clientId/);
  });
});

Deno.test("an unreachable authorization server is named by host, port and the system's error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const book = newBook();
  const rs = startResource(book, { authorizationServer: () => `http://127.0.0.1:${port}` });
  try {
    const w = { book, as: startAuthServer(book), rs, close: async () => {} };
    try {
      const error = await failure(client(w, signingIn()).call("tools/list"));
      assert.equal(error.kind, "unreachable");
      if (error.kind !== "unreachable") return;
      assert.equal(error.host, "127.0.0.1");
      assert.equal(error.port, port);
      assert.match(error.cause, /refused/i);
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.doesNotMatch(error.message, /fetch failed/);
    } finally {
      await w.as.close();
    }
  } finally {
    await rs.close();
  }
});

Deno.test("an authorize that fails, or does not come back in time, is sign_in_failed", async (t) => {
  await t.step("it throws", async () => {
    await within({}, async (w) => {
      const error = await failure(
        client(w, { authorize: () => Promise.reject(new Error("no browser here")) }).call(
          "tools/list",
        ),
      );
      assert.equal(error.kind, "sign_in_failed");
      assert.match(error.message, /no browser here/);
    });
  });
  await t.step("it never answers", async () => {
    await within({}, async (w) => {
      const error = await failure(
        client(w, { authorize: () => new Promise(() => {}) }, { signInTimeoutMs: 20 }).call(
          "tools/list",
        ),
      );
      assert.equal(error.kind, "sign_in_failed");
      if (error.kind === "sign_in_failed") assert.equal(error.reason, "timed_out");
    });
  });
});

Deno.test("a 403 that asks for no scope is refused: no token would be let in", async () => {
  await within({}, async (w) => {
    const { session } = client(w, signingIn());
    const answer = await session.challenge({ status: 403, wwwAuthenticate: null, attempt: 1 });
    assert.ok(!answer.ok);
    assert.equal(answer.error.kind, "refused");
    assert.equal(w.as.seen.authorizations.length, 0);
  });
});

Deno.test("no token, refresh token, code or client secret appears in a failure, a message or a status", async () => {
  const w = world({ echoInErrors: true });
  const handed: unknown[] = [];
  try {
    const { session, call } = client(w, signingIn());
    handed.push(await call("tools/list"));
    // The refresh is refused, and the server's error quotes the refresh token it was sent.
    w.as.options.refuseRefresh = true;
    w.book.tokens.clear();
    handed.push(session.status());
    handed.push(await session.refresh());
    // A sign-in refused at the token endpoint, the error quoting the code and the verifier.
    w.as.options.refuseCodes = true;
    handed.push(await session.challenge({ status: 401, wwwAuthenticate: null, attempt: 1 }));
    handed.push(session.status());
  } finally {
    await w.close();
  }
  const kinds = handed.map((h) => (h as { error?: { kind: string } }).error?.kind).filter(Boolean);
  assert.deepEqual(kinds, ["token_refused", "token_refused"]);
  const text = JSON.stringify(handed.map((h) => (h as { ok?: boolean }).ok === true ? "ok" : h));
  const verifiers = w.as.seen.tokens.map((t) => t.form.get("code_verifier")).filter((v) =>
    v !== null
  );
  const secrets = [...w.book.secrets, ...verifiers as string[]];
  assert.ok(secrets.length >= 6);
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `a secret was handed out: ${text}`);
  }
  assert.match(text, /\[redacted\]/);
});

Deno.test("a second refusal while a sign-in waits hands out the same authorization URL", async () => {
  await within({}, async (w) => {
    const { call } = client(w, {});
    const first = await failure(call("tools/list"));
    const second = await failure(call("tools/list"));
    assert.equal(first.kind, "needs_auth");
    assert.equal(second.kind, "needs_auth");
    if (first.kind === "needs_auth" && second.kind === "needs_auth") {
      assert.equal(second.authorizationUrl, first.authorizationUrl);
    }
  });
});

Deno.test("challenge() takes only 401 and 403: anything else is the caller's mistake", () => {
  const session = new OAuthSession("http://127.0.0.1:9/mcp", {});
  assert.throws(
    () => session.challenge({ status: 500, wwwAuthenticate: null, attempt: 1 }),
    RangeError,
  );
});
