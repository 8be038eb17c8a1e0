import assert from "node:assert/strict";
import { WaitClock } from "../../../client/worker/wait_clock.ts";

// A pending Atomics.waitAsync does not keep Deno's event loop alive (a
// worker's message port does, in production), so each test holds a timer
// of its own until it is done.
async function withLoop(body: () => Promise<void>): Promise<void> {
  const keep = setInterval(() => {}, 1_000);
  try {
    await body();
  } finally {
    clearInterval(keep);
  }
}

function sleep(clock: WaitClock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve));
}

Deno.test("WaitClock fires by deadline, ties in the order they were set, each once", () =>
  withLoop(async () => {
    const clock = new WaitClock();
    const fired: string[] = [];
    // Deadlines far apart, so that a loaded machine's pause between two
    // setTimer calls cannot reorder them.
    clock.setTimer(300, () => fired.push("c"));
    clock.setTimer(100, () => fired.push("a1"));
    clock.setTimer(100, () => fired.push("a2"));
    clock.setTimer(200, () => fired.push("b"));
    clock.setTimer(-50, () => fired.push("now"));
    clock.setTimer(Number.NaN, () => fired.push("nan"));
    await sleep(clock, 400);
    assert.deepEqual(fired, ["now", "nan", "a1", "a2", "b", "c"]);
    assert.equal(clock.pending, 0);
  }));

Deno.test("WaitClock: a cancelled timer never fires; cancelling twice or after firing does nothing", () =>
  withLoop(async () => {
    const clock = new WaitClock();
    const fired: string[] = [];
    const first = clock.setTimer(5, () => fired.push("first"));
    const second = clock.setTimer(10, () => fired.push("second"));
    clock.clearTimer(second);
    clock.clearTimer(second);
    await sleep(clock, 30);
    clock.clearTimer(first);
    clock.clearTimer({ id: -1 });
    assert.deepEqual(fired, ["first"]);
    assert.equal(clock.pending, 0);
  }));

Deno.test("WaitClock: a timer earlier than the armed wait fires first", () =>
  withLoop(async () => {
    const clock = new WaitClock();
    const fired: string[] = [];
    const late = clock.setTimer(10_000, () => fired.push("late"));
    await sleep(clock, 5);
    assert.deepEqual(fired, []);
    clock.clearTimer(late);
    assert.equal(clock.pending, 0);
  }));

Deno.test("WaitClock: ten thousand cancelled timers leave it working and hold nothing", () =>
  withLoop(async () => {
    const clock = new WaitClock();
    let fired = 0;
    for (let index = 0; index < 10_000; index++) {
      clock.clearTimer(clock.setTimer(60_000, () => fired++));
    }
    assert.equal(clock.pending, 0);
    await sleep(clock, 1);
    assert.equal(fired, 0);
  }));

Deno.test("WaitClock: callbacks may set and cancel timers while timers fire", () =>
  withLoop(async () => {
    const clock = new WaitClock();
    const fired: string[] = [];
    let victim = clock.setTimer(50, () => fired.push("victim"));
    clock.setTimer(5, () => {
      fired.push("chain 1");
      clock.clearTimer(victim);
      victim = clock.setTimer(0, () => fired.push("replacement"));
      clock.setTimer(5, () => fired.push("chain 2"));
    });
    await sleep(clock, 80);
    assert.deepEqual(fired, ["chain 1", "replacement", "chain 2"]);
  }));

Deno.test("WaitClock: a callback that throws is reported and the others still run", () =>
  withLoop(async () => {
    const clock = new WaitClock();
    const reported: unknown[] = [];
    const onError = (event: ErrorEvent) => {
      event.preventDefault();
      reported.push(event.error);
    };
    globalThis.addEventListener("error", onError);
    try {
      const fired: string[] = [];
      clock.setTimer(5, () => {
        throw new Error("boom");
      });
      clock.setTimer(5, () => fired.push("after"));
      clock.setTimer(15, () => fired.push("later"));
      await sleep(clock, 40);
      assert.deepEqual(fired, ["after", "later"]);
      assert.equal(reported.length, 1);
      assert.match(String(reported[0]), /boom/);
    } finally {
      globalThis.removeEventListener("error", onError);
    }
  }));

Deno.test("WaitClock falls back to setTimeout where Atomics.waitAsync is missing, and leaves none armed", () =>
  withLoop(async () => {
    const original = Atomics.waitAsync;
    // deno-lint-ignore no-explicit-any
    (Atomics as any).waitAsync = undefined;
    try {
      const clock = new WaitClock();
      const fired: string[] = [];
      const late = clock.setTimer(10_000, () => fired.push("late"));
      clock.setTimer(10, () => fired.push("b"));
      clock.setTimer(5, () => fired.push("a"));
      await sleep(clock, 30);
      clock.clearTimer(late);
      await sleep(clock, 1);
      assert.deepEqual(fired, ["a", "b"]);
      // Nothing left armed once nothing is pending (the op sanitizer checks).
      clock.clearTimer(clock.setTimer(10_000, () => fired.push("never")));
    } finally {
      Atomics.waitAsync = original;
    }
  }));
