import assert from "node:assert/strict";
import { Tickets } from "../../client/_tickets.ts";
import type { ToWorker } from "../../client/thread/to_worker.ts";
import { runToEnd } from "./_fixtures.ts";

function table() {
  const batches: string[] = [];
  const messages: ToWorker[] = [];
  const tickets = new Tickets("peer", {
    batch: (text) => batches.push(text),
    message: (message) => messages.push(message),
  });
  return { tickets, batches, messages };
}

Deno.test("Tickets times each request out at its own deadline, with no worker answering", async () => {
  const { tickets, messages } = table();
  const long = tickets.request("ping", "", 5_000, undefined);
  const started = performance.now();
  const short = await tickets.request("ping", "", 50, undefined);
  assert.ok(performance.now() - started < 4_000);
  assert.ok(!short.ok && short.error.kind === "call_timed_out" && short.error.timeoutMs === 50);
  assert.deepEqual(messages, [{ kind: "cancel", ticket: 1, timedOut: true }]);
  // The worker answers the other: the table empties.
  assert.equal(
    tickets.answered(0, 0, '{"jsonrpc":"2.0","id":0,"result":{}}'),
    undefined,
  );
  const answered = await long;
  assert.ok(answered.ok);
  // The table's timer outlives an empty table by design (unref'd) until the
  // client's end settles the table, as every end of a client does.
  tickets.settleAll({ kind: "unavailable", cause: "malformed", message: "x", stderrTail: "" });
});

Deno.test("Tickets refuses a routed line that is not the response it was routed as", async () => {
  const { tickets } = table();
  const call = tickets.request("ping", "", 5_000, undefined);
  assert.match(
    tickets.answered(0, 0, '{"jsonrpc":"2.0","id":1,"result":{}}') ?? "",
    /not the response 0 it was routed as/,
  );
  assert.match(tickets.answered(0, 0, "{") ?? "", /not a JSON-RPC message/);
  tickets.settleAll({ kind: "unavailable", cause: "malformed", message: "x", stderrTail: "" });
  const settled = await call;
  assert.ok(!settled.ok && settled.error.kind === "unavailable");
});

Deno.test("Tickets starts a deadline when its request leaves, not before", async () => {
  const { tickets, batches } = table();
  const call = tickets.request("ping", "", 100, undefined);
  // The turn that made the request goes on for longer than its deadline.
  const blocked = performance.now();
  while (performance.now() - blocked < 150) {
    // Busy: the request has not left yet.
  }
  const left = performance.now();
  const outcome = await call;
  assert.equal(batches.length, 1);
  assert.ok(!outcome.ok && outcome.error.kind === "call_timed_out");
  assert.ok(performance.now() - left >= 50, "the deadline ran from when the request left");
});

Deno.test("Tickets keeps no process alive for requests that ended in the turn that made them", async () => {
  // A timer left armed would hold the process for the requests' 60 s.
  assert.equal(await runToEnd("tickets_exit.ts", []), "done\n");
});

Deno.test("Tickets settle nothing more from answers once one was refused, until the death settles all", async () => {
  const { tickets } = table();
  const first = tickets.request("ping", "", 5_000, undefined);
  const second = tickets.request("ping", "", 5_000, undefined);
  tickets.flush();
  const fault = tickets.answers([0], [0], '{"jsonrpc":"1.0","id":0,"result":{}}');
  assert.equal(fault?.cause, "malformed");
  // A good answer that comes after it waits for the worker's verdict.
  assert.equal(tickets.answers([1], [1], '{"jsonrpc":"2.0","id":1,"result":{}}'), undefined);
  let settled = false;
  void second.then(() => settled = true);
  await Promise.resolve();
  assert.equal(settled, false);
  const death = { kind: "unavailable" as const, cause: "malformed" as const, message: "m" };
  tickets.settleAll({ ...death, stderrTail: "" });
  for (const outcome of await Promise.all([first, second])) {
    assert.ok(!outcome.ok && outcome.error.kind === "unavailable");
    assert.equal(outcome.error.cause, "malformed");
  }
});
