import assert from "node:assert/strict";
import fc from "fast-check";
import { InOrder } from "../../../client/thread/order.ts";

Deno.test("InOrder runs each action at its turn, holding the early ones", () => {
  const ran: number[] = [];
  const order = new InOrder();
  assert.ok(order.take(2, () => ran.push(2)));
  assert.ok(order.take(1, () => ran.push(1)));
  assert.equal(ran.length, 0, "nothing before 0");
  assert.ok(order.take(0, () => ran.push(0)));
  assert.deepEqual([...ran], [0, 1, 2]);
  assert.ok(order.take(3, () => ran.push(3)));
  assert.deepEqual(ran, [0, 1, 2, 3]);
});

Deno.test("InOrder refuses an order that came before, is held already, or is not a count", () => {
  const order = new InOrder();
  assert.ok(order.take(0, () => {}));
  assert.ok(order.take(5, () => {}));
  for (const bad of [0, 5, -1, 1.5, NaN, Infinity]) {
    assert.ok(!order.take(bad, () => assert.fail(`ran ${bad}`)), String(bad));
  }
});

Deno.test("InOrder runs any permutation in order", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }).chain((n) =>
        fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n })
      ),
      (arrival) => {
        const ran: number[] = [];
        const order = new InOrder();
        for (const index of arrival) assert.ok(order.take(index, () => ran.push(index)));
        assert.deepEqual(ran, arrival.toSorted((a, b) => a - b));
      },
    ),
  );
});
