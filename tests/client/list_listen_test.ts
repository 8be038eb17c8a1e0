// List changes on a 2026-07-28 session: the client keeps one
// subscriptions/listen open for the lists watched that the server declared
// listChanged for, closes it when nobody watches, opens it again when the
// server ends it or is restarted, and opens none when nobody watches or the
// server declared none; a harness over such a server
// lists it again on a tool list change.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { boot } from "../../harness/harness.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const MODERN = { era: "modern" as const };

/** Waits until `done()`, for a bounded number of turns of at most 20 ms each. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let turn = 0; turn < 500 && !(await done()); turn++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The filters of the listens the fixture holds open. */
async function openListens(client: Client): Promise<unknown[]> {
  const called = await client.callTool("listens", {});
  assert.ok(called.ok, JSON.stringify(called));
  const content = called.value.content[0];
  return JSON.parse(content?.type === "text" ? content.text : "null");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "watchPrompts hears prompts/list_changed on a 2026-07-28 session",
  OPENS_CUSTODIAN,
  async () => {
    const client = new Client(fixture("lists", "list_listen_server.ts", MODERN));
    try {
      assert.ok((await client.connect()).ok);
      let heard = 0;
      const stop = client.watchPrompts(() => heard++);
      await until(() => heard > 0);
      assert.equal(heard, 1);
      assert.deepEqual(await openListens(client), [{ promptsListChanged: true }]);
      stop();
      await until(async () => (await openListens(client)).length === 0);
      assert.deepEqual(await openListens(client), []);
    } finally {
      await client.retire();
    }
  },
);

Deno.test("a listen the server ends is opened again, and hears the next change", async () => {
  const client = new Client(fixture("lists", "list_listen_server.ts", MODERN));
  try {
    assert.ok((await client.connect()).ok);
    let heard = 0;
    const stop = client.watchPrompts(() => heard++);
    await until(() => heard > 0);
    assert.ok((await client.callTool("end", {})).ok);
    await until(() => heard > 1);
    assert.equal(heard, 2);
    assert.deepEqual(await openListens(client), [{ promptsListChanged: true }]);
    stop();
  } finally {
    await client.retire();
  }
});

Deno.test("a restarted server is listened to again, by the new generation", async () => {
  const client = new Client(
    fixture("lists", "list_listen_server.ts", { ...MODERN, restart: { max: 1, backoffMs: 50 } }),
  );
  try {
    assert.ok((await client.connect()).ok);
    let heard = 0;
    const stop = client.watchPrompts(() => heard++);
    await until(() => heard > 0);
    const first = client.pid as number;
    Deno.kill(first, "SIGKILL");
    await until(() => heard > 1);
    assert.equal(heard, 2);
    assert.notEqual(client.pid, first);
    assert.deepEqual(await openListens(client), [{ promptsListChanged: true }]);
    stop();
  } finally {
    await client.retire();
  }
});

Deno.test("one listen asks for every list watched, opened again as the set changes", async () => {
  const client = new Client(fixture("lists", "list_listen_server.ts", MODERN));
  try {
    assert.ok((await client.connect()).ok);
    const stopTools = client.watchTools(() => {});
    const stopResources = client.watchResources(() => {});
    const both = [{ toolsListChanged: true, resourcesListChanged: true }];
    await until(async () => JSON.stringify(await openListens(client)) === JSON.stringify(both));
    assert.deepEqual(await openListens(client), both);
    stopTools();
    const resources = [{ resourcesListChanged: true }];
    await until(async () =>
      JSON.stringify(await openListens(client)) === JSON.stringify(resources)
    );
    assert.deepEqual(await openListens(client), resources);
    stopResources();
  } finally {
    await client.retire();
  }
});

Deno.test("no listen is opened on a 2026-07-28 session while nobody watches", async () => {
  const client = new Client(fixture("lists", "list_listen_server.ts", MODERN));
  try {
    assert.ok((await client.connect()).ok);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await openListens(client), []);
  } finally {
    await client.retire();
  }
});

Deno.test("no listen is opened for a server that declared no listChanged", async () => {
  const client = new Client(fixture("lists", "list_listen_server.ts", {
    ...MODERN,
    env: { UNDECLARED: "1" },
    flags: ["--allow-env=UNDECLARED"],
  }));
  try {
    assert.ok((await client.connect()).ok);
    const stops = [client.watchTools(() => {}), client.watchPrompts(() => {})];
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await openListens(client), []);
    for (const stop of stops) stop();
  } finally {
    await client.retire();
  }
});

Deno.test("a tool list change on a 2026-07-28 session refreshes a harness's listing", async () => {
  const harness = await boot(
    [fixture("lists", "list_listen_server.ts", MODERN)],
    { retirementTimeoutMs: 5_000 },
  );
  try {
    const listed = () => harness.reports.get("lists");
    await until(() => {
      const report = listed();
      return report?.state === "ready" && report.tools.some((tool) => tool.name === "grown");
    });
    const report = listed();
    assert.ok(report?.state === "ready" && report.tools.some((tool) => tool.name === "grown"));
  } finally {
    await harness.retire();
  }
});
