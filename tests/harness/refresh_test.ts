// Listings that stay true: a handshake-era notifications/tools/list_changed
// and an expired stateless-era ttlMs list the server again, never more than
// once per MIN_RELIST_INTERVAL_MS, regenerate its module and its part of the
// surface, and tell onToolsChanged; a program already running keeps the
// modules it was checked against.

import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import { type RelistClock, RelistScheduler } from "../../harness/_refresh.ts";
import { MIN_RELIST_INTERVAL_MS } from "../../harness/limits.ts";
import type { ToolsChange } from "../../harness/types.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 5_000 };
/** How long a test waits for a re-listing it expects, far past the bound. */
const PATIENCE_MS = 15_000;

function listings(harness: Harness, server: string): number {
  const tail = harness.census.clients.get(server)?.stderrTail() ?? "";
  return tail.split("\n").filter((line) => line === "recv tools/list").length;
}

async function until(what: string, test: () => boolean): Promise<void> {
  const deadline = performance.now() + PATIENCE_MS;
  while (!test()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a list_changed notification re-lists the server within the bound, once for a flood",
  OPENS_CUSTODIAN,
  async () => {
    const changes: ToolsChange[] = [];
    const harness = await boot(
      [fixture("gov", "governed_tools.ts", { flags: ["--allow-env=DESCRIPTION"] })],
      { ...QUICK, onToolsChanged: (change) => void changes.push(change) },
    );
    try {
      assert.doesNotMatch(harness.surface, /extra_0/);
      // A program running while the listing changes keeps the modules it was checked against.
      const running = harness.run(
        'import * as gov from "./mcp/gov.ts";\n' +
          "await gov.grow({ times: 50 });\n" +
          "await new Promise((resolve) => setTimeout(resolve, 2_500));\n" +
          'export default Object.keys(await import("./mcp/gov.ts")).includes("extra_0");',
      );
      await until("the re-listing", () => /^extra_0\(/m.test(harness.surface));
      assert.deepEqual(
        changes.map((c) => [c.server, c.cause, c.added.map((t) => t.name), c.removed, c.changed]),
        [["gov", "list_changed", ["extra_0"], [], []]],
      );
      assert.ok(harness.modules.get("gov")?.manifest.has("extra_0"));
      const report = harness.reports.get("gov");
      assert.ok(report?.state === "ready" && report.tools.some((tool) => tool.name === "extra_0"));
      assert.deepEqual((await running).outcome, { kind: "returned", value: false });
      // Fifty notifications, one re-listing, and one more when some of them
      // arrived while it was under way (the server's stderr, where it says so,
      // comes in batches): never one per notification.
      await until("the server's stderr", () => listings(harness, "gov") >= 2);
      await new Promise((resolve) => setTimeout(resolve, 2 * MIN_RELIST_INTERVAL_MS));
      const count = listings(harness, "gov");
      assert.ok(count === 2 || count === 3, `${count} listings`);
      // A program started now is checked against the new module, and runs with it.
      const next = await harness.run(
        'import { extra_0 } from "./mcp/gov.ts";\nexport default (await extra_0({})).text;',
      );
      assert.deepEqual(next.outcome, { kind: "returned", value: "called extra_0" });
      assert.ok((await harness.call("gov", "extra_0", {})).ok);
      // Search and describe read the new listing too, a program's as the harness's.
      assert.ok(harness.search("extra_0").some((match) => match.tool === "extra_0"));
      assert.ok(harness.describe("gov", "extra_0").ok);
      const found = await harness.run(
        'import { describe } from "./tools.ts";\n' +
          'export default (await describe("gov", "extra_0")).includes("extra_0");',
      );
      assert.deepEqual(found.outcome, { kind: "returned", value: true });
    } finally {
      assert.ok((await harness.retire()).confirmed);
    }
  },
);

Deno.test("an expired ttlMs re-lists a stateless-era server, at most once per interval", async () => {
  const harness = await boot([fixture("ttl", "expiring_listing.ts")], QUICK);
  try {
    assert.equal(harness.reports.get("ttl")?.state, "ready");
    assert.match(harness.surface, /^tick_0\(/m);
    const started = performance.now();
    await until("the re-listing", () => /^tick_1\(/m.test(harness.surface));
    const elapsed = performance.now() - started;
    // Its ttlMs is 0: the interval alone bounds how often it is listed.
    const count = listings(harness, "ttl");
    assert.ok(count <= 2 + Math.floor(elapsed / MIN_RELIST_INTERVAL_MS), `${count} listings`);
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

/** A clock whose time moves only when told. */
class FakeClock implements RelistClock {
  time = 0;
  timers = new Map<number, { at: number; run: () => void }>();
  #next = 0;
  now(): number {
    return this.time;
  }
  setTimer(run: () => void, ms: number): number {
    this.timers.set(++this.#next, { at: this.time + ms, run });
    return this.#next;
  }
  clearTimer(timer: unknown): void {
    this.timers.delete(timer as number);
  }
  async advance(ms: number): Promise<void> {
    this.time += ms;
    for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > this.time) continue;
      this.timers.delete(id);
      timer.run();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}

Deno.test("the re-listing scheduler keeps the bound a server cannot shorten", async (t) => {
  await t.step("a flood of changes is one re-listing, no sooner than the interval", async () => {
    const clock = new FakeClock();
    const relisted: [string, number][] = [];
    const scheduler = new RelistScheduler((_server, cause) => {
      relisted.push([cause, clock.now()]);
      return Promise.resolve(undefined);
    }, clock);
    scheduler.listed("s", 0);
    for (let index = 0; index < 1_000; index++) scheduler.changed("s");
    await clock.advance(MIN_RELIST_INTERVAL_MS - 1);
    assert.deepEqual(relisted, []);
    await clock.advance(1);
    assert.deepEqual(relisted, [["list_changed", MIN_RELIST_INTERVAL_MS]]);
    await clock.advance(10 * MIN_RELIST_INTERVAL_MS);
    assert.equal(relisted.length, 1);
    scheduler.stop();
  });
  await t.step("a ttlMs of 0 is listed once per interval", async () => {
    const clock = new FakeClock();
    let count = 0;
    const scheduler = new RelistScheduler(() => {
      count++;
      return Promise.resolve(0);
    }, clock);
    scheduler.listed("s", 0, 0);
    for (let step = 0; step < 10; step++) await clock.advance(MIN_RELIST_INTERVAL_MS);
    assert.equal(count, 10);
    scheduler.stop();
    await clock.advance(10 * MIN_RELIST_INTERVAL_MS);
    assert.equal(count, 10, "nothing after stop");
    assert.equal(clock.timers.size, 0);
  });
  await t.step("a change said during a re-listing makes one more, after it", async () => {
    const clock = new FakeClock();
    const times: number[] = [];
    let release = (): void => {};
    const scheduler = new RelistScheduler(() => {
      times.push(clock.now());
      return new Promise((resolve) => release = () => resolve(undefined));
    }, clock);
    scheduler.listed("s", 0);
    scheduler.changed("s");
    await clock.advance(MIN_RELIST_INTERVAL_MS);
    assert.deepEqual(times, [MIN_RELIST_INTERVAL_MS]);
    scheduler.changed("s");
    scheduler.changed("s");
    await clock.advance(5 * MIN_RELIST_INTERVAL_MS);
    assert.equal(times.length, 1, "one at a time");
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await clock.advance(0);
    assert.equal(times.length, 2);
    release();
    scheduler.stop();
  });
  await t.step("a long ttlMs waits for its expiry", async () => {
    const clock = new FakeClock();
    let count = 0;
    const scheduler = new RelistScheduler(() => {
      count++;
      return Promise.resolve(undefined);
    }, clock);
    scheduler.listed("s", 0, 60_000);
    await clock.advance(59_999);
    assert.equal(count, 0);
    await clock.advance(1);
    assert.equal(count, 1);
    scheduler.stop();
  });
});
