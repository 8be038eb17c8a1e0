// A token endpoint that echoes what it was sent in its error_description, as
// careless ones do: no form of the client secret reaches the failure, however
// the echo spells it and wherever the message is cut.

import assert from "node:assert/strict";
import { type OAuthFailure, OAuthSession, type OAuthSettings } from "../../oauth/mod.ts";
import { type Asked, authServer, resourceServer, virtualNet } from "./_virtual.ts";

const AS = "https://as.example";
const RS = "https://mcp.example";

/** The failure of a client credentials sign-in refused with `describe(form, asked)`. */
async function refusedWith(
  settings: OAuthSettings,
  describe: (form: URLSearchParams, asked: Asked) => string,
): Promise<OAuthFailure> {
  const net = virtualNet({
    [RS]: resourceServer(RS, AS),
    [AS]: authServer(
      AS,
      (form, asked) =>
        Response.json({ error: "invalid_client", error_description: describe(form, asked) }, {
          status: 401,
        }),
    ),
  });
  const session = new OAuthSession(`${RS}/mcp`, settings, { fetch: net.fetch });
  try {
    const got = await session.accessToken();
    assert.ok(!got.ok, "expected a failure");
    return got.error;
  } finally {
    await session.close();
  }
}

/** Every spelling of `secret` a message could carry it in. */
function spellings(secret: string): string[] {
  const utf8 = new TextEncoder().encode(secret);
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    new URLSearchParams({ v: secret }).toString().slice(2),
    btoa(String.fromCharCode(...utf8)),
  ];
}

function assertNoSecret(failure: OAuthFailure, secret: string): void {
  const text = JSON.stringify(failure);
  for (const spelling of spellings(secret)) {
    assert.ok(!text.includes(spelling), `${spelling} is in ${text}`);
  }
  // Nor any long piece of it: a cut that lands inside a secret shows its head.
  for (let n = 8; n <= secret.length; n++) {
    assert.ok(!text.includes(secret.slice(0, n)), `the head of the secret is in ${text}`);
  }
  assert.match(failure.message, /\[redacted\]/);
}

const PLAIN = "k8Jd93hfQm2LzP0xVb7NwE4tYc6RuA1s";

Deno.test("a client secret a token endpoint echoes is scrubbed in every spelling, before any cut", async (t) => {
  await t.step("with a backslash and a quote, posted in the form", async () => {
    const secret = String.raw`Sup3r\Secret"value-2024`;
    const failure = await refusedWith(
      {
        grant: "client_credentials",
        clientId: "svc",
        clientSecret: secret,
        tokenEndpointAuthMethod: "client_secret_post",
      },
      (form) => `client authentication failed for secret ${form.get("client_secret")}`,
    );
    assertNoSecret(failure, secret);
  });
  await t.step("posted in the form, echoed percent-encoded as the body was", async () => {
    const secret = "p@ss word+&=/secret";
    const failure = await refusedWith(
      {
        grant: "client_credentials",
        clientId: "svc",
        clientSecret: secret,
        tokenEndpointAuthMethod: "client_secret_post",
      },
      (_form, asked) => `bad request body: ${asked.body}`,
    );
    assertNoSecret(failure, secret);
  });
  await t.step("where the quoting of the description cuts it", async () => {
    const failure = await refusedWith(
      { grant: "client_credentials", clientId: "svc", clientSecret: PLAIN },
      () => `${"x".repeat(200 - 10 - PLAIN.length + 4)} secret=${PLAIN} is wrong`,
    );
    assertNoSecret(failure, PLAIN);
  });
  await t.step("inside the Authorization header of client_secret_basic, echoed", async () => {
    const failure = await refusedWith(
      { grant: "client_credentials", clientId: "svc", clientSecret: PLAIN },
      (_form, asked) => `bad Authorization: ${asked.headers.get("authorization")}`,
    );
    assertNoSecret(failure, PLAIN);
    assert.doesNotMatch(failure.message, new RegExp(btoa(`svc:${PLAIN}`).slice(0, 12)));
  });
  await t.step("in a body that is not JSON", async () => {
    const net = virtualNet({
      [RS]: resourceServer(RS, AS),
      [AS]: authServer(
        AS,
        (form) => new Response(`<html>secret ${form.get("client_secret")}</html>`, { status: 502 }),
      ),
    });
    const session = new OAuthSession(`${RS}/mcp`, {
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: PLAIN,
      tokenEndpointAuthMethod: "client_secret_post",
    }, { fetch: net.fetch });
    const got = await session.accessToken();
    await session.close();
    assert.ok(!got.ok);
    assert.ok(!JSON.stringify(got.error).includes(PLAIN.slice(0, 8)), got.error.message);
  });
});
