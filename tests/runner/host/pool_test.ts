// The sandboxes a runner keeps started ahead follow demand: one while runs
// come one at a time, more when a run finds none ready, back to one after a
// pause, never past the cap; they start one at a time; a ready one is taken
// before an older one still starting; retirement disposes all. Fake
// sandboxes, an injected clock and timer: no process is started here.

import assert from "node:assert/strict";
import { SandboxPool } from "../../../runner/host/_pool.ts";
import type { Sandbox } from "../../../runner/host/_sandbox.ts";
import { POOL_IDLE_MS, POOL_QUIET_MS } from "../../../runner/host/limits.ts";

type Fake = {
  id: number;
  isReady: boolean;
  usable: boolean;
  disposed: boolean;
  markReady: () => void;
};

/** A pool of fake sandboxes, each ready once marked so. */
function fakePool(max: number) {
  let clock = 0;
  const started: Fake[] = [];
  const timers: { run: () => void; ms: number; cancelled: boolean }[] = [];
  const pool = new SandboxPool({
    start: () => {
      let resolve: (ready: boolean) => void = () => {};
      const ready = new Promise<boolean>((done) => resolve = done);
      const fake: Fake = {
        id: started.length,
        isReady: false,
        usable: true,
        disposed: false,
        markReady: () => {
          fake.isReady = true;
          resolve(true);
        },
      };
      started.push(fake);
      const sandbox = {
        ready,
        get isReady() {
          return fake.isReady && fake.usable;
        },
        get usable() {
          return fake.usable;
        },
        dispose: () => {
          fake.disposed = true;
          fake.usable = false;
          resolve(false);
          return Promise.resolve();
        },
      };
      return Promise.resolve(sandbox as unknown as Sandbox);
    },
    max,
    now: () => clock,
    schedule: (run, ms) => {
      const timer = { run, ms, cancelled: false };
      timers.push(timer);
      return () => timer.cancelled = true;
    },
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  /** Lets the quiet time pass: fires the timers armed for it. */
  const quiet = () => {
    clock += POOL_QUIET_MS;
    for (const timer of timers.splice(0)) {
      if (timer.ms <= POOL_QUIET_MS && !timer.cancelled) timer.run();
      else timers.push(timer);
    }
  };
  /** One run: it takes a sandbox, uses it, and is over; `quietly` lets the quiet time pass. */
  const run = async (quietly = true): Promise<Sandbox | undefined> => {
    pool.enter();
    const sandbox = await pool.take();
    await (sandbox as unknown as { dispose(): Promise<void> } | undefined)?.dispose();
    pool.leave();
    if (quietly) quiet();
    return sandbox;
  };
  return {
    pool,
    started,
    timers,
    tick: (ms: number) => clock += ms,
    settle,
    quiet,
    run,
    /** Marks every sandbox started so far ready, until no more start. */
    readyAll: async () => {
      for (let seen = -1; seen !== started.length;) {
        seen = started.length;
        await settle();
        started.forEach((fake) => fake.usable && !fake.isReady && fake.markReady());
        await settle();
        quiet();
      }
    },
  };
}

Deno.test("a pool starts nothing before it is filled", async () => {
  const { pool, started } = fakePool(4);
  assert.equal(await pool.take(), undefined);
  assert.equal(started.length, 0);
  assert.equal(pool.size, 0);
});

Deno.test("runs that each find one ready keep one sandbox waiting", async () => {
  const { pool, started, tick, readyAll, run } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 5; i++) {
    await readyAll();
    tick(POOL_IDLE_MS / 10);
    assert.ok(await run() !== undefined);
    assert.equal(pool.target, 1);
  }
  assert.equal(pool.size, 1);
  assert.equal(started.length, 6);
});

Deno.test("a run that finds none ready raises the target, up to the cap", async () => {
  const { pool, readyAll, run } = fakePool(3);
  pool.fill();
  // Runs back to back: each but the first finds the one started after the last still starting.
  for (let i = 0; i < 6; i++) await run();
  assert.equal(pool.target, 3);
  await readyAll();
  assert.equal(pool.size, 3);
  assert.equal(pool.ready, 3);
});

Deno.test("sandboxes start one at a time, the next once the one before is ready", async () => {
  const { pool, started, settle, run } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 4; i++) await run();
  await settle();
  const before = started.length;
  await settle();
  assert.equal(started.length, before, "a second start before the first was ready");
  started.at(-1)?.markReady();
  await settle();
  assert.equal(started.length, before + 1);
});

Deno.test("a pause without runs sets the target back to one and disposes the rest", async () => {
  const { pool, started, timers, readyAll, run } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 4; i++) await run();
  await readyAll();
  assert.equal(pool.size, 4);
  const timer = timers.find((each) => each.ms === POOL_IDLE_MS && !each.cancelled);
  assert.ok(timer !== undefined);
  timer.run();
  await readyAll();
  assert.equal(pool.target, 1);
  assert.equal(pool.size, 1);
  assert.equal(started.filter((fake) => !fake.disposed).length, 1);
});

Deno.test("the first run after a pause is no miss", async () => {
  const { pool, tick, run } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 4; i++) await run();
  assert.equal(pool.target, 4);
  tick(POOL_IDLE_MS + 1);
  await run();
  assert.equal(pool.target, 1);
});

Deno.test("a ready sandbox is taken before an older one still starting", async () => {
  const { pool, started, readyAll, settle, run } = fakePool(4);
  pool.fill();
  await run(); // the first take: no miss, target 1
  await run(); // a miss: target 2
  await readyAll();
  assert.equal(pool.size, 2);
  const [older, newer] = started.slice(-2) as [Fake, Fake];
  older.isReady = false; // as if the older one were still starting
  await settle();
  const taken = await pool.take();
  assert.equal(taken?.isReady, true);
  assert.equal(newer.isReady, true);
  assert.equal(older.disposed, false);
});

Deno.test("a sandbox that died waiting is disposed and the next one taken", async () => {
  const { pool, started, readyAll, run } = fakePool(4);
  pool.fill();
  await run();
  await run();
  await readyAll();
  const [dead, alive] = started.slice(-2) as [Fake, Fake];
  dead.usable = false;
  const taken = await pool.take();
  assert.ok(taken !== undefined);
  assert.equal(dead.disposed, true);
  assert.equal(alive.disposed, false);
});

Deno.test("while one still waits, no sandbox starts during a run or until the quiet time after it", async () => {
  const { pool, started, settle, quiet, readyAll, run } = fakePool(4);
  pool.fill();
  await run(); // the first take: no miss, target 1
  await run(); // a miss: target 2
  await readyAll();
  assert.equal(pool.size, 2);
  const before = started.length;
  pool.enter(); // the next run follows at once
  await pool.take();
  await settle();
  quiet();
  await settle();
  assert.equal(started.length, before, "a sandbox started during a run");
  pool.leave();
  await settle();
  assert.equal(started.length, before, "a sandbox started before the quiet time");
  quiet();
  await settle();
  assert.equal(started.length, before + 1);
});

Deno.test("after a miss, a take that leaves the pool empty starts the next sandbox at once", async () => {
  const { pool, started, settle, readyAll, run } = fakePool(4);
  pool.fill();
  await run(); // the first take: no miss, target 1
  await run(); // a miss: target 2
  await readyAll();
  assert.equal(pool.size, 2);
  const before = started.length;
  pool.enter();
  pool.enter();
  assert.ok(await pool.take() !== undefined);
  await settle();
  assert.equal(started.length, before, "a start while one still waits");
  assert.ok(await pool.take() !== undefined);
  await settle();
  assert.equal(started.length, before + 1, "the next program's sandbox waited for the runs");
  pool.leave();
  pool.leave();
});

Deno.test("a take that finds nothing waiting or starting starts nothing while runs are in flight", async () => {
  const { pool, started, settle, quiet, readyAll } = fakePool(4);
  pool.fill();
  await readyAll();
  pool.enter();
  assert.ok(await pool.take() !== undefined); // the first take: no miss, target 1
  pool.enter();
  // Programs at once: this one starts its own, and one more start now would
  // share the cores with every one of them (BENCHMARKS.md, sixth pass).
  assert.equal(await pool.take(), undefined);
  assert.equal(pool.target, 2);
  await settle();
  assert.equal(started.length, 1, "a start while the runs are in flight");
  pool.leave();
  pool.leave();
  quiet();
  await settle();
  assert.equal(started.length, 2, "no start once the runs are over and quiet");
});

Deno.test("while programs come one at a time, a take that empties the pool starts nothing during its run", async () => {
  const { pool, started, settle, quiet, readyAll } = fakePool(4);
  pool.fill();
  await readyAll();
  assert.equal(pool.target, 1);
  pool.enter();
  assert.ok(await pool.take() !== undefined);
  await settle();
  quiet();
  await settle();
  assert.equal(started.length, 1, "a start during the run");
  pool.leave();
  quiet();
  await settle();
  assert.equal(started.length, 2);
});

Deno.test("retire() disposes every waiting sandbox, cancels the timer, and starts no more", async () => {
  const { pool, started, timers, readyAll, run } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 4; i++) await run();
  await readyAll();
  await pool.retire();
  assert.ok(started.every((fake) => fake.disposed));
  assert.ok(timers.every((timer) => timer.cancelled));
  const before = started.length;
  pool.fill();
  assert.equal(started.length, before);
  assert.equal(pool.size, 0);
});
