// A remote server that needs sign-in, through the library's own client: the
// sign-in runs on the main thread (oauth/), the worker sends only the headers
// it is given, and no token, secret or code reaches a report, a message or
// a stderr tail.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { boot } from "../../harness/harness.ts";
import {
  DEFAULT_REDIRECT_URI,
  headlessAuthorize,
  MemoryTokenStore,
  type OAuthSettings,
} from "../../oauth/mod.ts";
import type { RemoteServerSpec } from "../../settings/mod.ts";
import { oauthWorld, secretsIn } from "./_oauth_world.ts";
import { startDripping } from "../oauth/_dripping.ts";
import { OPENS_SUBREAPER } from "../_lifetime.ts";

type World = ReturnType<typeof oauthWorld>;

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const RETIRE_CASE = new URL("../fixtures/retire_sign_in_case.ts", import.meta.url).pathname;

async function within(test: (w: World) => Promise<void>, options = {}): Promise<void> {
  const w = oauthWorld(options);
  try {
    await test(w);
  } finally {
    await w.close();
  }
}

/** A person who signs in at once: the headless user agent. */
function signingIn(extra: OAuthSettings = {}): OAuthSettings {
  return { authorize: headlessAuthorize(DEFAULT_REDIRECT_URI), ...extra };
}

function spec(w: World, extra: Partial<RemoteServerSpec> = {}): RemoteServerSpec {
  return { name: "protected", url: w.mcp.url, era: "legacy", ...extra };
}

/** What was posted to workers while `body` ran. */
async function postedDuring(body: () => Promise<void>): Promise<unknown[]> {
  const posted: unknown[] = [];
  const original = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, ...args: unknown[]) {
    posted.push(args[0]);
    return (original as (...a: unknown[]) => void).apply(this, args);
  } as typeof original;
  try {
    await body();
  } finally {
    Worker.prototype.postMessage = original;
  }
  return posted;
}

/** Text of values for grepping: shared memory and bytes as their decoded text. */
function textOf(value: unknown): string {
  return JSON.stringify(value, (_key, item) => {
    if (item instanceof Uint8Array) return new TextDecoder().decode(item);
    if (item instanceof SharedArrayBuffer || item instanceof ArrayBuffer) return "(memory)";
    return item;
  });
}

// The file's first client opens the subreaper's libc handle, kept for good (tests/_lifetime.ts).
Deno.test(
  "401, sign-in, call; the token expires and is refreshed silently; the next call goes through",
  OPENS_SUBREAPER,
  async () => {
    await within(async (w) => {
      const client = new Client(spec(w, { oauth: signingIn() }), {
        tokenStore: new MemoryTokenStore(),
      });
      const started = await client.connect();
      assert.ok(started.ok, JSON.stringify(started));
      assert.equal(w.as.seen.authorizations.length, 1);
      const called = await client.callTool("whoami", {});
      assert.ok(called.ok, JSON.stringify(called));
      const first = w.mcp.seen.at(-1)?.token;
      w.mcp.revoke();
      const again = await client.callTool("whoami", {});
      assert.ok(again.ok, JSON.stringify(again));
      assert.equal(w.as.seen.authorizations.length, 1, "no second sign-in");
      assert.ok(w.as.seen.tokens.some((t) => t.form.get("grant_type") === "refresh_token"));
      assert.notEqual(w.mcp.seen.at(-1)?.token, first, "the call carried the refreshed token");
      assert.equal(client.signInStatus()?.state, "signed_in");
      const retired = await client.retire();
      assert.ok(retired.ok, JSON.stringify(retired));
      assert.deepEqual(secretsIn(w.book, textOf({ started, called, again, retired })), []);
      assert.deepEqual(secretsIn(w.book, textOf(client.signInStatus())), []);
    });
  },
);

Deno.test("an error echoing the signed-in request's access token reaches the caller without it", async () => {
  await within(async (w) => {
    const client = new Client(spec(w, { oauth: signingIn() }), {
      tokenStore: new MemoryTokenStore(),
    });
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("whoami", { echo: true });
    assert.ok(!called.ok && called.error.kind === "server_error", JSON.stringify(called));
    assert.match(called.error.message, /refused for \[redacted\]/);
    assert.ok(w.mcp.seen.at(-1)?.token !== undefined);
    assert.deepEqual(secretsIn(w.book, textOf(called)), []);
    assert.ok((await client.retire()).ok);
  });
});

Deno.test("only headers cross to the worker: never a refresh token, a client secret or a code", async () => {
  await within(async (w) => {
    const client = new Client(spec(w, { oauth: signingIn() }), {
      tokenStore: new MemoryTokenStore(),
    });
    const posted = await postedDuring(async () => {
      assert.ok((await client.connect()).ok);
      w.mcp.revoke();
      assert.ok((await client.callTool("whoami", {})).ok);
      assert.ok((await client.retire()).ok);
    });
    const text = textOf(posted);
    const crossed = secretsIn(w.book, text);
    assert.ok(crossed.length > 0, "the access tokens crossed, as their headers");
    assert.deepEqual(crossed.filter((secret) => !secret.startsWith("access-")), []);
    assert.match(text, /"Authorization":"Bearer access-/);
  });
});

Deno.test("boot gives its oauth to every remote server without one; nothing secret reaches a report", async () => {
  await within(async (w) => {
    const tokenStore = new MemoryTokenStore();
    const harness = await boot([spec(w, { name: "one" }), spec(w, { name: "two" })], {
      oauth: signingIn(),
      tokenStore,
    });
    try {
      assert.equal(harness.reports.get("one")?.state, "ready");
      assert.equal(harness.reports.get("two")?.state, "ready");
      const called = await harness.call("two", "whoami", {});
      assert.ok(called.ok, JSON.stringify(called));
      const reports = [...harness.reports.values()];
      const tails = [...harness.census.clients.values()].map((c) => c.stderrTail());
      const statuses = [...harness.census.clients.values()].map((c) => c.signInStatus());
      const text = textOf({ reports, tails, statuses, surface: harness.surface, called });
      assert.deepEqual(secretsIn(w.book, text), []);
    } finally {
      const retired = await harness.retire();
      assert.ok(retired.confirmed);
      assert.deepEqual(secretsIn(w.book, textOf([...retired.clients])), []);
    }
  });
});

Deno.test("a sign-in that fails says why without any secret, even from a server that echoes them", async () => {
  await within(async (w) => {
    const client = new Client(spec(w, { oauth: signingIn() }), {
      tokenStore: new MemoryTokenStore(),
    });
    assert.ok((await client.connect()).ok);
    w.mcp.revoke();
    w.as.options.refuseRefresh = true;
    w.as.options.refuseCodes = true;
    const called = await client.callTool("whoami", {});
    assert.ok(!called.ok && called.error.kind === "server_error", JSON.stringify(called));
    assert.match(called.error.message, /Cannot sign in to server "protected"/);
    assert.equal(client.state, "ready", "a failed sign-in fails that call alone");
    assert.deepEqual(secretsIn(w.book, textOf(called)), []);
    await client.retire();
  }, { echoInErrors: true });
});

Deno.test("needs_auth without an authorize: the start says where to sign in, and completeSignIn finishes it", async () => {
  await within(async (w) => {
    const tokenStore = new MemoryTokenStore();
    const client = new Client(spec(w, { oauth: {} }), { tokenStore });
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "needs_auth", JSON.stringify(started));
    assert.ok(started.error.authorizationUrl.startsWith(`${w.as.issuer}/authorize?`));
    assert.equal(started.error.issuer, w.as.issuer);
    assert.match(started.error.message, /Sign-in to .* is needed/);
    const query = await headlessAuthorize(DEFAULT_REDIRECT_URI)(started.error.authorizationUrl);
    const done = await client.completeSignIn(query);
    assert.ok(done.ok, JSON.stringify(done));
    await client.retire();
    // The next start finds the token in the store: nobody signs in again.
    const next = new Client(spec(w, { oauth: {} }), { tokenStore });
    const restarted = await next.connect();
    assert.ok(restarted.ok, JSON.stringify(restarted));
    assert.equal(w.as.seen.authorizations.length, 1);
    assert.ok((await next.retire()).ok);
  });
});

Deno.test("a least-privilege worker reaches only its server's host: the sign-in is the main thread's", async () => {
  await within(async (w) => {
    const harness = new URL("../fixtures/oauth_permissions_harness.ts", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "--no-lock", "--unstable-worker-options", harness, w.mcp.url],
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), {
      permissions: "least",
      started: true,
      call: [{ type: "text", text: "scopes: " }],
      retired: "deleted",
    });
    assert.deepEqual(secretsIn(w.book, stdout + stderr), []);
    // The authorization server is on another port: the worker could not have reached it.
    assert.notEqual(new URL(w.as.issuer).port, new URL(w.mcp.url).port);
  });
});

Deno.test("a token about to expire is refreshed ahead of time and its headers reach the worker", async () => {
  // 4 s: a token living less than twice REFRESH_MARGIN_MS is refreshed at half its
  // lifetime (REFRESH_MARGIN_FRACTION), 2 s after it is issued, and again 2 s later.
  await within(async (w) => {
    const client = new Client(spec(w, { oauth: signingIn() }), {
      tokenStore: new MemoryTokenStore(),
    });
    try {
      assert.ok((await client.connect()).ok);
      const first = [...w.book.tokens.keys()].at(-1);
      const refreshed = () =>
        w.as.seen.tokens.some((t) => t.form.get("grant_type") === "refresh_token");
      const until = performance.now() + 10_000;
      while (!refreshed() && performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(refreshed(), "the main thread refreshed on its own");
      const refusals = w.mcp.seen.filter((s) => s.status === 401).length;
      // The server has seen the refresh; its answer may still be on its way to the
      // client: calls go on with the token they have until the new one is theirs.
      let carried: string | undefined;
      while (performance.now() < until) {
        const called = await client.callTool("whoami", {});
        assert.ok(called.ok, JSON.stringify(called));
        carried = w.mcp.seen.at(-1)?.token;
        if (carried !== first) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.notEqual(carried, first, "a call carried a refreshed token");
      assert.ok(w.book.tokens.has(carried ?? ""), "a token the server issued");
      assert.equal(w.mcp.seen.filter((s) => s.status === 401).length, refusals, "without a 401");
    } finally {
      assert.ok((await client.retire()).ok);
    }
  }, { expiresIn: 4 });
});

Deno.test("retiring a client abandons its sign-in's request in flight: no request or timer of it is left", async () => {
  // The client runs under the op sanitizer (timers included) of a test process of its own,
  // on by flag since this Deno leaves it off by default; the server runs here.
  const server = startDripping();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "-A",
        "--quiet",
        "--no-lock",
        "--sanitize-ops",
        "--config",
        CONFIG,
        RETIRE_CASE,
      ],
      env: { LOOM_DRIPPING_URL: server.url, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, text);
    assert.match(text, /1 passed/);
  } finally {
    await server.close();
  }
});

Deno.test("a remote server silent past its connect deadline is told to check its url, never a stdio command", async () => {
  const server = startDripping();
  try {
    const client = new Client(
      {
        name: "dripping",
        url: server.url,
        era: "legacy",
        oauth: signingIn(),
        connectTimeoutMs: 200,
      },
      { tokenStore: new MemoryTokenStore() },
    );
    const started = await client.connect();
    assert.ok(!started.ok);
    assert.equal(started.error.kind, "handshake_failed");
    assert.match(
      started.error.message,
      /did not answer initialize within 200 ms; check that its url/,
    );
    assert.doesNotMatch(started.error.message, /stdio|command/);
    await client.retire();
  } finally {
    await server.close();
  }
});
