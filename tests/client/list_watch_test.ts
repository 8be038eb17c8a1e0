// A server that says its prompts or its resources changed is heard by the
// listeners given to watchPrompts and watchResources, until each stops.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

async function withChanging(body: (client: Client) => Promise<void>): Promise<void> {
  const census = Census.prepare([fixture("changing", "prompts_changed.ts")]);
  const client = census.clients.get("changing") as Client;
  try {
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    await body(client);
  } finally {
    await census.retire();
  }
}

/** Resolves at the first call of the listener it hands out. */
function heard(): { listener: () => void; told: Promise<void> } {
  let listener = () => {};
  const told = new Promise<void>((resolve) => listener = resolve);
  return { listener, told };
}

Deno.test(
  "watchPrompts() hears prompts/list_changed, and the new listing has the new prompt",
  OPENS_CUSTODIAN,
  async () => {
    await withChanging(async (client) => {
      const before = await client.listPrompts();
      assert.ok(before.ok && before.value.length === 1, JSON.stringify(before));
      const { listener, told } = heard();
      const stop = client.watchPrompts(listener);
      assert.ok((await client.callTool("change", {})).ok);
      await told;
      stop();
      const after = await client.listPrompts();
      assert.ok(after.ok, JSON.stringify(after));
      assert.deepEqual(after.value.map((prompt) => prompt.name), ["prompt-1", "prompt-2"]);
    });
  },
);

Deno.test("watchResources() hears resources/list_changed", async () => {
  await withChanging(async (client) => {
    const { listener, told } = heard();
    const stop = client.watchResources(listener);
    assert.ok((await client.callTool("change", {})).ok);
    await told;
    stop();
  });
});

Deno.test("a prompts listener that stopped is not told, and one that throws stops no other", async () => {
  await withChanging(async (client) => {
    let stoppedCalls = 0;
    const stop = client.watchPrompts(() => stoppedCalls++);
    stop();
    client.watchPrompts(() => {
      throw new Error("a listener's own failure");
    });
    const { listener, told } = heard();
    client.watchPrompts(listener);
    assert.ok((await client.callTool("change", {})).ok);
    await told;
    assert.equal(stoppedCalls, 0);
  });
});

Deno.test("watchPrompts() throws TypeError for a listener that is not a function", () => {
  const census = Census.prepare([fixture("changing", "prompts_changed.ts")]);
  const client = census.clients.get("changing") as Client;
  assert.throws(
    () => client.watchPrompts("no" as unknown as () => void),
    TypeError,
  );
});
