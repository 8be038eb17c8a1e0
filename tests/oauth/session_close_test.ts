// Closing a session: what is in flight is abandoned at once, and nothing of
// the session (no request, no timer) outlives it; the sanitizers, on by name
// since this Deno leaves them off by default, check the second half.

import assert from "node:assert/strict";
import { MemoryTokenStore, OAuthSession } from "../../oauth/mod.ts";
import { startDripping } from "./_dripping.ts";
import { client, within } from "./_setup.ts";

const SANITIZED = { sanitizeOps: true, sanitizeResources: true } as const;

Deno.test({
  name:
    "close() abandons a metadata answer that drips, and the operation waiting on it fails as unreachable",
  ...SANITIZED,
  fn: async () => {
    const server = startDripping();
    try {
      const session = new OAuthSession(server.url, { authorize: () => new Promise(() => {}) }, {
        store: new MemoryTokenStore(),
      });
      const asked = session.accessToken();
      await server.asked;
      await session.close();
      const outcome = await asked;
      assert.ok(!outcome.ok);
      assert.equal(outcome.error.kind, "unreachable");
      assert.match(outcome.error.message, /given up, since the sign-in's session was closed/);
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name: "close() ends a sign-in waiting on the harness's authorize, as sign_in_failed closed",
  ...SANITIZED,
  fn: async () => {
    await within({}, async (w) => {
      let called!: () => void;
      const authorizing = new Promise<void>((resolve) => called = resolve);
      const { session, call } = client(w, {
        authorize: () => {
          called();
          return new Promise(() => {});
        },
      });
      const answer = call("tools/list");
      await authorizing;
      await session.close();
      const done = await answer;
      assert.ok(!done.ok);
      assert.equal(done.error.kind, "sign_in_failed");
      assert.ok(done.error.kind === "sign_in_failed" && done.error.reason === "closed");
      assert.match(done.error.message, /its session was closed/);
    });
  },
});

Deno.test({
  name: "a closed session asks nothing of the network again",
  ...SANITIZED,
  fn: async () => {
    await within({}, async (w) => {
      const { session } = client(w, {});
      await session.close();
      const asked = await session.accessToken();
      assert.ok(!asked.ok);
      assert.equal(asked.error.kind, "unreachable");
      assert.deepEqual(w.as.seen.paths, []);
      assert.deepEqual(w.rs.seen, []);
    });
  },
});
