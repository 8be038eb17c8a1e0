// Subscriptions to a resource's updates: server-everything's (legacy
// resources/subscribe, its simulated updates, resources/unsubscribe), a
// 2026-07-28 server's subscriptions/listen cancelled by unsubscribe(), taken
// once acknowledged and refused when not, each listen's updates told to its
// own subscription, and a server that takes none refused before anything is
// sent.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { everything, fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

/** Waits until `done()`, for a bounded number of turns of at most 20 ms each. */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 500 && !done(); turn++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "server-everything's updates of a subscribed resource reach onUpdated until unsubscribed",
  OPENS_CUSTODIAN,
  async () => {
    const client = new Client(everything());
    const uri = "demo://resource/dynamic/text/1";
    try {
      assert.ok((await client.connect()).ok);
      const updates: string[] = [];
      const subscribed = await client.subscribeResource(uri, (updated) => updates.push(updated));
      assert.ok(subscribed.ok, JSON.stringify(subscribed));
      assert.ok((await client.callTool("toggle-subscriber-updates", {})).ok);
      await until(() => updates.length > 0);
      assert.equal(updates[0], uri);
      const ended = await subscribed.value.unsubscribe();
      assert.deepEqual(ended, { ok: true, value: undefined });
      assert.strictEqual(
        await subscribed.value.unsubscribe(),
        await subscribed.value.unsubscribe(),
      );
    } finally {
      await client.retire();
    }
  },
);

Deno.test("two legacy subscriptions to one URI: the first one ended leaves the other hearing", async () => {
  const client = new Client(fixture("subs", "subscribing_server.ts"));
  const uri = "file:///watched";
  try {
    assert.ok((await client.connect()).ok);
    const heard = { a: 0, b: 0, c: 0 };
    const a = await client.subscribeResource(uri, () => heard.a++);
    const b = await client.subscribeResource(uri, () => heard.b++);
    assert.ok(a.ok && b.ok);
    assert.ok((await client.callTool("touch", { uri })).ok);
    await until(() => heard.a === 1 && heard.b === 1);
    assert.deepEqual(await a.value.unsubscribe(), { ok: true, value: undefined });
    const touched = await client.callTool("touch", { uri });
    assert.ok(touched.ok);
    assert.deepEqual(touched.value.content, [{ type: "text", text: JSON.stringify([uri]) }]);
    await until(() => heard.b === 2);
    assert.deepEqual(heard, { a: 1, b: 2, c: 0 });
    // One being made still holds the server's subscription when the other ends.
    const making = client.subscribeResource(uri, () => heard.c++);
    // Its request is on its way (the server takes 100 ms to answer it) when b ends.
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.ok((await b.value.unsubscribe()).ok);
    const c = await making;
    assert.ok(c.ok);
    assert.ok((await client.callTool("touch", { uri })).ok);
    await until(() => heard.c === 1);
    assert.deepEqual(heard, { a: 1, b: 2, c: 1 });
    // The last one ended unsubscribes at the server.
    assert.ok((await c.value.unsubscribe()).ok);
    const after = await client.callTool("touch", { uri });
    assert.ok(after.ok);
    assert.deepEqual(after.value.content, [{ type: "text", text: "[]" }]);
  } finally {
    await client.retire();
  }
});

Deno.test("a 2026-07-28 subscription is a subscriptions/listen that unsubscribe() cancels", async () => {
  const client = new Client(fixture("listen", "listen_server.ts", { era: "modern" }));
  const updates: string[] = [];
  const subscribed = await client.connect().then(() =>
    client.subscribeResource("file:///notes.txt", (updated) => updates.push(updated))
  );
  assert.ok(subscribed.ok, JSON.stringify(subscribed));
  await until(() => updates.length > 0);
  assert.deepEqual(updates, ["file:///notes.txt"]);
  assert.deepEqual(await subscribed.value.unsubscribe(), { ok: true, value: undefined });
  await client.retire();
  assert.match(client.stderrTail(), /^cancelled \d+$/m);
});

Deno.test("a 2026-07-28 subscription answers once acknowledged, and is refused when it is not", async (t) => {
  const client = new Client(fixture("listen", "listen_server.ts", { era: "modern" }));
  try {
    assert.ok((await client.connect()).ok);
    await t.step(
      "an acknowledgment that leaves the URI out refuses it, and the listen is cancelled",
      async () => {
        const heard: string[] = [];
        const refused = await client.subscribeResource(
          "file:///refused/a",
          (uri) => heard.push(uri),
        );
        assert.ok(
          !refused.ok && refused.error.kind === "subscription_refused",
          JSON.stringify(refused),
        );
        assert.equal(refused.error.uri, "file:///refused/a");
        assert.match(refused.error.message, /acknowledgment of the listen left the URI out/);
        await until(() => /^cancelled \d+$/m.test(client.stderrTail()));
        assert.match(client.stderrTail(), /^cancelled \d+$/m);
        assert.deepEqual(heard, []);
      },
    );
    await t.step("a listen the server ends before acknowledging it is refused", async () => {
      const refused = await client.subscribeResource("file:///ended/a", () => {});
      assert.ok(
        !refused.ok && refused.error.kind === "subscription_refused",
        JSON.stringify(refused),
      );
      assert.match(refused.error.message, /ended the listen before acknowledging it/);
    });
    await t.step(
      "a listen never acknowledged times out at the subscription's deadline",
      async () => {
        const silent = await client.subscribeResource("file:///silent/a", () => {}, {
          timeoutMs: 200,
        });
        assert.ok(!silent.ok && silent.error.kind === "call_timed_out", JSON.stringify(silent));
        assert.equal(silent.error.aborted, false);
        assert.match(
          silent.error.message,
          /did not acknowledge subscriptions\/listen for "file:\/\/\/silent\/a" within 200 ms/,
        );
      },
    );
    await t.step("a caller's signal gives up the wait for the acknowledgment", async () => {
      const stop = new AbortController();
      const waiting = client.subscribeResource("file:///silent/b", () => {}, {
        signal: stop.signal,
      });
      stop.abort();
      const given = await waiting;
      assert.ok(!given.ok && given.error.kind === "call_timed_out" && given.error.aborted);
    });
  } finally {
    await client.retire();
  }
});

Deno.test("two 2026-07-28 subscriptions to one URI each hear the updates of their own listen", async () => {
  const client = new Client(fixture("listen", "listen_server.ts", { era: "modern" }));
  try {
    assert.ok((await client.connect()).ok);
    const first: string[] = [];
    const second: string[] = [];
    const a = await client.subscribeResource("file:///notes.txt", (uri) => first.push(uri));
    const b = await client.subscribeResource("file:///notes.txt", (uri) => second.push(uri));
    assert.ok(a.ok && b.ok);
    await until(() => first.length > 0 && second.length > 0);
    // Each listen brought one update: each subscription hears its own, once.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(first, ["file:///notes.txt"]);
    assert.deepEqual(second, ["file:///notes.txt"]);
    assert.deepEqual(await a.value.unsubscribe(), { ok: true, value: undefined });
    assert.deepEqual(await b.value.unsubscribe(), { ok: true, value: undefined });
  } finally {
    await client.retire();
  }
});

Deno.test("a server that declared no resources.subscribe is refused before anything is sent", async () => {
  const client = new Client(fixture("long", "long_server.ts"));
  try {
    assert.ok((await client.connect()).ok);
    const subscribed = await client.subscribeResource("fixture://text", () => {});
    assert.ok(
      !subscribed.ok && subscribed.error.kind === "subscriptions_not_declared",
      JSON.stringify(subscribed),
    );
  } finally {
    await client.retire();
  }
});

Deno.test("a subscription outlives its server's restart, in either era, made again on the new one", async (t) => {
  const cases = [
    { era: "legacy", spec: fixture("subs", "subscribing_server.ts"), uri: "file:///watched" },
    {
      era: "2026-07-28",
      spec: fixture("listen", "listen_server.ts", { era: "modern" }),
      uri: "file:///notes.txt",
    },
  ];
  for (const { era, spec, uri } of cases) {
    await t.step(era, async () => {
      const client = new Client({ ...spec, restart: { max: 2, backoffMs: 50 } });
      try {
        assert.ok((await client.connect()).ok);
        const updates: string[] = [];
        const subscribed = await client.subscribeResource(uri, (updated) => updates.push(updated));
        assert.ok(subscribed.ok, JSON.stringify(subscribed));
        let ended = "not yet";
        void subscribed.value.ended.then((outcome) => ended = JSON.stringify(outcome));
        const restarted = new Promise<void>((resolve) =>
          client.listen((event) => event.kind === "restarted" && resolve())
        );
        // The modern server writes its listen's update after the acknowledgment:
        // killed between the two (a busy machine), it would never send it.
        if (era !== "legacy") await until(() => updates.length >= 1);
        Deno.kill(client.pid!, "SIGKILL");
        await restarted;
        // The new server takes the subscription: the legacy one lists it and
        // tells the update a touch makes; the modern one tells one update per listen.
        if (era === "legacy") {
          await until(() => client.state === "ready");
          let listed = "[]";
          for (let turn = 0; turn < 100 && listed === "[]"; turn++) {
            const touched = await client.callTool("touch", { uri });
            assert.ok(touched.ok, JSON.stringify(touched));
            listed = touched.value.content[0]?.type === "text" ? touched.value.content[0].text : "";
            if (listed === "[]") await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.equal(listed, JSON.stringify([uri]));
        }
        await until(() => updates.length >= (era === "legacy" ? 1 : 2));
        assert.deepEqual(updates, era === "legacy" ? [uri] : [uri, uri]);
        assert.equal(ended, "not yet");
        assert.deepEqual(await subscribed.value.unsubscribe(), { ok: true, value: undefined });
        assert.equal(ended, JSON.stringify({ ok: true }));
      } finally {
        await client.retire();
      }
    });
  }
});

Deno.test("a subscription's ended says how it ended", async (t) => {
  await t.step("the server closing the listen ends it as subscription_refused", async () => {
    const client = new Client(fixture("listen", "listen_server.ts", { era: "modern" }));
    try {
      assert.ok((await client.connect()).ok);
      const subscribed = await client.subscribeResource("file:///closing/a", () => {});
      assert.ok(subscribed.ok, JSON.stringify(subscribed));
      const ended = await subscribed.value.ended;
      assert.ok(!ended.ok && ended.error.kind === "subscription_refused", JSON.stringify(ended));
      assert.match(ended.error.message, /ended the subscription .*subscribe again/);
      assert.deepEqual(await subscribed.value.unsubscribe(), { ok: true, value: undefined });
    } finally {
      await client.retire();
    }
  });
  await t.step("a server that dies with no restart to come ends it with its death", async () => {
    const client = new Client(fixture("subs", "subscribing_server.ts"));
    try {
      assert.ok((await client.connect()).ok);
      const subscribed = await client.subscribeResource("file:///watched", () => {});
      assert.ok(subscribed.ok, JSON.stringify(subscribed));
      Deno.kill(client.pid!, "SIGKILL");
      const ended = await subscribed.value.ended;
      assert.ok(!ended.ok && ended.error.kind === "unavailable", JSON.stringify(ended));
      assert.deepEqual(await subscribed.value.unsubscribe(), { ok: true, value: undefined });
    } finally {
      await client.retire();
    }
  });
  await t.step("a restarted server that no longer takes subscriptions ends it", async () => {
    const dir = await Deno.makeTempDir();
    const spec = fixture("forgetful", "forgetful_server.ts", {
      flags: [`--allow-read=${dir}`, `--allow-write=${dir}`],
      restart: { max: 1, backoffMs: 50 },
    });
    const client = new Client({ ...spec, args: [...spec.args, `${dir}/mark`] });
    try {
      assert.ok((await client.connect()).ok);
      const subscribed = await client.subscribeResource("file:///watched", () => {});
      assert.ok(subscribed.ok, JSON.stringify(subscribed));
      Deno.kill(client.pid!, "SIGKILL");
      const ended = await subscribed.value.ended;
      assert.ok(
        !ended.ok && ended.error.kind === "subscriptions_not_declared",
        JSON.stringify(ended),
      );
      assert.equal(client.generations.length, 2);
    } finally {
      await client.retire();
      await Deno.remove(dir, { recursive: true });
    }
  });
  await t.step("retiring the client ends it as asked", async () => {
    const client = new Client(fixture("subs", "subscribing_server.ts"));
    const subscribed = await client.connect().then(() =>
      client.subscribeResource("file:///watched", () => {})
    );
    assert.ok(subscribed.ok, JSON.stringify(subscribed));
    await client.retire();
    assert.deepEqual(await subscribed.value.ended, { ok: true, value: undefined });
  });
});
