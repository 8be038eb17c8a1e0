// A URL elicitation's completion (`notifications/elicitation/complete`):
// the handler that accepted is given `completed`, which settles when its
// server says so; one that declined, or ids never asked, hear nothing.

import assert from "node:assert/strict";
import type { Client } from "../../client/client.ts";
import type { ServerRequestHandlers } from "../../client/handlers.ts";
import { NoticeGate } from "../../client/worker/notices.ts";
import { LOG_MESSAGE_BURST, MAX_ELICITATION_ID_CHARS } from "../../settings/limits.ts";
import { fixture, withClient } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

type OnElicit = NonNullable<ServerRequestHandlers["onElicit"]>;

function withVisits(onElicit: OnElicit, body: (client: Client) => Promise<void>) {
  return withClient(fixture("visits", "url_completion.ts"), { onElicit }, body);
}

function textOf(called: Awaited<ReturnType<Client["callTool"]>>): string {
  assert.ok(called.ok, JSON.stringify(called));
  const [block] = called.value.content;
  return block?.type === "text" ? block.text : "";
}

Deno.test({
  name: "an accepted URL elicitation's completed settles when its server says it is complete",
  ...OPENS_CUSTODIAN,
  fn: async () => {
    let completed: Promise<void> | undefined;
    let seenId: string | undefined;
    await withVisits((request, context) => {
      seenId = request.elicitationId;
      completed = context?.completed;
      return Promise.resolve({ action: "accept" });
    }, async (client) => {
      // Ids it never asked come first: they settle nothing.
      const called = await client.callTool("visit", { elicitationId: "visit-1", noise: 10 });
      assert.equal(textOf(called), "accept");
      assert.equal(seenId, "visit-1");
      assert.ok(completed !== undefined, "the handler was given no completed");
      await completed;
    });
  },
});

Deno.test("a declined URL elicitation's completed never settles, whatever the server says", async () => {
  let completed: Promise<void> | undefined;
  await withVisits((_request, context) => {
    completed = context?.completed;
    return Promise.resolve({ action: "decline" });
  }, async (client) => {
    const called = await client.callTool("visit", { elicitationId: "visit-2" });
    assert.equal(textOf(called), "decline");
    assert.ok(completed !== undefined);
    let settled = false;
    void completed.then(() => (settled = true));
    // The completion was said before the call's answer: a ping after both has passed it.
    assert.ok((await client.ping()).ok);
    assert.equal(settled, false);
  });
});

Deno.test("NoticeGate passes an elicitation's completion by id, within a rate of its own", () => {
  let now = 0;
  const gate = new NoticeGate(() => now);
  const method = "notifications/elicitation/complete";
  assert.deepEqual(gate.take(method, { elicitationId: "e1" }), {
    kind: "elicitation_complete",
    elicitationId: "e1",
  });
  for (const params of [{}, { elicitationId: "" }, { elicitationId: 7 }, null, "e1"]) {
    assert.equal(gate.take(method, params), null, JSON.stringify(params));
  }
  const long = { elicitationId: "x".repeat(MAX_ELICITATION_ID_CHARS + 1) };
  assert.equal(gate.take(method, long), null);
  let passed = 1;
  for (let index = 0; index < 1_000; index++) {
    if (gate.take(method, { elicitationId: `e${index}` }) !== null) passed++;
  }
  assert.equal(passed, LOG_MESSAGE_BURST);
  // Log messages keep a rate of their own.
  assert.equal(gate.take("notifications/message", { level: "info", data: 1 })?.kind, "log");
  now += 1_000;
  assert.notEqual(gate.take(method, { elicitationId: "later" }), null);
});
