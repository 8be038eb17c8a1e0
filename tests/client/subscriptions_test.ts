// Subscriptions to a resource's updates: server-everything's (legacy
// resources/subscribe, its simulated updates, resources/unsubscribe), a
// 2026-07-28 server's subscriptions/listen cancelled by unsubscribe(), and a
// server that takes none refused before anything is sent.

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
