// The sandboxes a runner keeps started ahead follow demand: one while runs
// come one at a time, more when a run finds none ready, back to one after a
// pause, never past the cap; a ready one is taken before an older one still
// starting; retirement disposes all. Fake sandboxes and an injected clock:
// no process is started here.

import assert from "node:assert/strict";
import { SandboxPool } from "../../runner/_pool.ts";
import { POOL_IDLE_MS } from "../../runner/slots.ts";
import type { Sandbox } from "../../runner/_sandbox.ts";

type Fake = { id: number; isReady: boolean; usable: boolean; disposed: boolean };

/** A pool of fake sandboxes, each ready once `ready(id)` says so. */
function fakePool(max: number) {
  let clock = 0;
  const started: Fake[] = [];
  const pool = new SandboxPool({
    start: () => {
      const fake: Fake = { id: started.length, isReady: false, usable: true, disposed: false };
      started.push(fake);
      const sandbox = {
        get isReady() {
          return fake.isReady && fake.usable;
        },
        get usable() {
          return fake.usable;
        },
        dispose: () => {
          fake.disposed = true;
          fake.usable = false;
          return Promise.resolve();
        },
      };
      return Promise.resolve(sandbox as unknown as Sandbox);
    },
    max,
    now: () => clock,
  });
  return {
    pool,
    started,
    tick: (ms: number) => clock += ms,
    readyAll: () => started.forEach((fake) => fake.isReady = true),
    settle: () => new Promise((resolve) => setTimeout(resolve, 0)),
  };
}

/** Takes one sandbox and gives it back used, as a run does. */
async function run(pool: SandboxPool): Promise<Sandbox | undefined> {
  const sandbox = await pool.take();
  (sandbox as unknown as { dispose(): Promise<void> } | undefined)?.dispose();
  pool.fill();
  return sandbox;
}

Deno.test("a pool starts nothing before it is filled", async () => {
  const { pool, started } = fakePool(4);
  assert.equal(await pool.take(), undefined);
  assert.equal(started.length, 0);
  assert.equal(pool.size, 0);
});

Deno.test("runs with a pause between them keep one sandbox waiting", async () => {
  const { pool, started, tick, readyAll, settle } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 5; i++) {
    await settle();
    readyAll();
    tick(POOL_IDLE_MS / 10);
    assert.ok(await run(pool) !== undefined);
    assert.equal(pool.target, 1);
  }
  assert.equal(pool.size, 1);
  assert.equal(started.length, 6);
});

Deno.test("a run that finds none ready raises the target, up to the cap", async () => {
  const { pool } = fakePool(3);
  pool.fill();
  // None is ever ready: each take after the first is a miss.
  for (let i = 0; i < 6; i++) await run(pool);
  assert.equal(pool.target, 3);
  assert.equal(pool.size, 3);
});

Deno.test("the first run after a pause sets the target back to one and is no miss", async () => {
  const { pool, tick } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 4; i++) await run(pool);
  assert.equal(pool.target, 4);
  tick(POOL_IDLE_MS + 1);
  await run(pool);
  assert.equal(pool.target, 1);
});

Deno.test("a ready sandbox is taken before an older one still starting", async () => {
  const { pool, started, settle } = fakePool(4);
  pool.fill();
  await run(pool); // first take: no miss, target 1
  await run(pool); // a miss: target 2, two waiting
  await settle();
  assert.equal(pool.size, 2);
  const [older, newer] = started.slice(-2) as [Fake, Fake];
  newer.isReady = true;
  const taken = await pool.take();
  assert.equal(taken?.isReady, true);
  assert.equal(older.disposed, false);
});

Deno.test("a sandbox that died waiting is disposed and the next one taken", async () => {
  const { pool, started, settle } = fakePool(4);
  pool.fill();
  await run(pool);
  await run(pool);
  await settle();
  const [dead, alive] = started.slice(-2) as [Fake, Fake];
  dead.usable = false;
  const taken = await pool.take();
  assert.ok(taken !== undefined);
  assert.equal(dead.disposed, true);
  assert.equal(alive.disposed, false);
});

Deno.test("retire() disposes every waiting sandbox and later fills start none", async () => {
  const { pool, started } = fakePool(4);
  pool.fill();
  for (let i = 0; i < 4; i++) await run(pool);
  await pool.retire();
  assert.ok(started.every((fake) => fake.disposed));
  const before = started.length;
  pool.fill();
  assert.equal(started.length, before);
  assert.equal(pool.size, 0);
});
