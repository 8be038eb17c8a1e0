// Attacks on the client that held when they were tried, kept as regression
// tests: duplicate and unknown response ids, a flood of notifications, a
// server that stops reading its stdin. (A server that closes its stdout and
// lives on is tested on the machine, tests/client/worker/machine_test.ts: a live
// Deno process cannot close every descriptor of its stdout.)
import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { fixture, survivors } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 3_000 };

async function ready(client: Client): Promise<void> {
  const started = await client.connect();
  assert.ok(started.ok, JSON.stringify(started));
}

async function retiredWithoutSurvivors(client: Client): Promise<void> {
  const pid = client.pid ?? -1;
  const outcome = await client.retire();
  assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
  assert.equal(outcome.value.drained, true);
  assert.deepEqual(survivors(pid), []);
}

function text(result: Awaited<ReturnType<Client["callTool"]>>): string {
  assert.ok(result.ok, JSON.stringify(result));
  const block = result.value.content[0];
  assert.ok(block?.type === "text", JSON.stringify(result.value));
  return block.text;
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a duplicate answer and an answer to no request are dropped; the first answer stands",
  OPENS_CUSTODIAN,
  async () => {
    const client = new Client(fixture("twice", "duplicate_ids.ts"), QUICK);
    await ready(client);
    assert.equal(text(await client.callTool("go", {})), "first");
    // The channel stays open and ids stay matched: the next call gets its own first answer.
    assert.equal(text(await client.callTool("go", {})), "first");
    assert.equal(client.state, "ready");
    await retiredWithoutSurvivors(client);
  },
);

Deno.test("400,000 notifications before an answer are dropped and the call still settles", async () => {
  const client = new Client(
    fixture("flood", "notification_flood.ts", { callTimeoutMs: 60_000 }),
    QUICK,
  );
  await ready(client);
  assert.equal(text(await client.callTool("go", {})), "after 400000");
  assert.equal(client.state, "ready");
  await retiredWithoutSurvivors(client);
});

Deno.test("a server that stops reading: a call that cannot be written times out, and retirement still ends it", async () => {
  const client = new Client(
    fixture("deaf", "stops_reading.ts", { callTimeoutMs: 1_500 }),
    QUICK,
  );
  await ready(client);
  // 8 MiB of arguments cannot fit in a pipe nobody reads.
  const call = await client.callTool("go", { blob: "x".repeat(8 * 1024 * 1024) });
  assert.ok(!call.ok, JSON.stringify(call).slice(0, 500));
  assert.equal(call.error.kind, "call_timed_out", call.error.message);
  const pid = client.pid ?? -1;
  const outcome = await client.retire();
  assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
  assert.notEqual(outcome.value.escalation, "stdin_closed", "it had to be signalled");
  assert.deepEqual(survivors(pid), []);
});
