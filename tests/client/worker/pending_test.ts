import assert from "node:assert/strict";
import { ManualClock } from "../../../client/transport/clock.ts";
import { type Pending, PendingTable } from "../../../client/worker/_pending.ts";

function pending(settled: unknown[], timed = true): Pending {
  return {
    method: "tools/list",
    settle: (outcome) => settled.push(outcome),
    timeoutMs: 1_000,
    tellCancel: true,
    raw: undefined,
    timed,
  };
}

Deno.test("a re-issued request keeps its deadline and its first id still takes it", () => {
  const clock = new ManualClock();
  const expired: number[] = [];
  const done: number[] = [];
  const table = new PendingTable(clock, (id) => expired.push(id), { done: (id) => done.push(id) });
  const first = table.add(pending([]));
  clock.advance(600);
  const second = table.rekey(first);
  assert.notEqual(second, undefined);
  assert.notEqual(second, first);
  const third = table.rekey(first);
  assert.ok(third !== undefined && third !== second);
  // The deadline is the first one's: 400 ms are left, not 1,000.
  clock.advance(399);
  assert.deepEqual(expired, []);
  clock.advance(1);
  assert.deepEqual(expired, [third]);
  assert.equal(table.take(first), undefined, "gone, by every id it had");
  assert.deepEqual(done, [third]);
});

Deno.test("a cancel by the first id takes the request re-issued under a new one", () => {
  const table = new PendingTable(new ManualClock(), () => {});
  const first = table.add(pending([], false));
  const next = table.rekey(first)!;
  assert.equal(table.size, 1);
  assert.ok(table.take(first) !== undefined);
  assert.equal(table.size, 0);
  assert.equal(table.take(next), undefined);
  assert.equal(table.rekey(first), undefined, "nothing waits any more");
});
