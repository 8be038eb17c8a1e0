// The supervisor's decisions, on an injected clock and a client port that
// records what it is asked: no replacement without evidence, exponential
// backoff with a cap, failed starts counted, a stable generation resetting
// the count.

import assert from "node:assert/strict";
import { err, ok, type Result } from "../../codec/result.ts";
import {
  type GenerationEnd,
  type GenerationEvent,
  Generations,
  replacementRefusal,
  Supervisor,
  type SupervisorClock,
} from "../../client/supervisor.ts";
import { RESTART_BACKOFF_CAP_MS, RESTART_STABLE_MS, restartDelay } from "../../settings/restart.ts";
import type { ClientError, StartError } from "../../client/thread/outcomes.ts";
import type { ServerInfo } from "../../client/thread/server_info.ts";

const DEATH: ClientError = {
  kind: "unavailable",
  cause: "exited",
  message: 'Server "s" exited on signal SIGKILL',
  stderrTail: "",
};
const INFO: ServerInfo = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "s", version: "1" },
  era: "legacy",
};

function exited(drained: boolean | "unknown"): GenerationEnd {
  return ok({ kind: "exited", pid: 7, code: 137, signal: "SIGKILL", drained, escalation: "none" });
}

class FakeClock implements SupervisorClock {
  at = 0;
  timers = new Map<number, { at: number; fire: () => void }>();
  #next = 0;
  now(): number {
    return this.at;
  }
  setTimer(ms: number, fire: () => void): number {
    const id = this.#next++;
    this.timers.set(id, { at: this.at + ms, fire });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Moves to the next timer and fires it; its wait. */
  fireNext(): number {
    const [id, timer] = [...this.timers].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
    assert.ok(timer !== undefined && id !== undefined, "no timer is set");
    this.timers.delete(id);
    const waited = timer.at - this.at;
    this.at = timer.at;
    timer.fire();
    return waited;
  }
}

function rig(max: number, ends: GenerationEnd[], starts: Result<ServerInfo, StartError>[]) {
  const clock = new FakeClock();
  const events: GenerationEvent[] = [];
  const generations = new Generations();
  generations.begin();
  let renewed = 0;
  const supervisor = new Supervisor("s", { max, backoffMs: 100 }, {
    retireDead: () => Promise.resolve(ends.shift() ?? exited(true)),
    renew: () => {
      renewed++;
      generations.begin();
      return Promise.resolve(starts.shift() ?? ok(INFO));
    },
    generations,
    told: (event) => events.push(event),
  }, clock);
  return { clock, events, generations, supervisor, renewed: () => renewed };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("replacementRefusal() allows a replacement only on a witnessed exit of a drained group", () => {
  assert.equal(replacementRefusal(exited(true)), undefined);
  assert.equal(replacementRefusal(ok({ kind: "no_resource" })), undefined);
  assert.equal(replacementRefusal(exited(false))?.reason, "not_drained");
  assert.equal(replacementRefusal(exited("unknown"))?.reason, "drain_unknown");
  const lost = err({ kind: "retirement_unconfirmed" as const, message: "lost" });
  assert.equal(replacementRefusal(lost)?.reason, "unconfirmed");
});

Deno.test("restartDelay() doubles from backoffMs up to the cap", () => {
  const policy = { max: 10, backoffMs: 500 };
  assert.deepEqual([1, 2, 3, 4].map((n) => restartDelay(policy, n)), [500, 1000, 2000, 4000]);
  assert.equal(restartDelay(policy, 10), RESTART_BACKOFF_CAP_MS);
});

Deno.test("a death whose group did not drain starts nothing, and calls say why", async () => {
  const { events, supervisor, clock, renewed } = rig(3, [exited(false)], []);
  supervisor.ready();
  await supervisor.died(DEATH);
  assert.equal(clock.timers.size, 0);
  assert.equal(renewed(), 0);
  const died = events[0];
  assert.ok(died?.kind === "died" && died.next.kind === "no_restart");
  assert.equal(died.next.reason, "not_drained");
  const refused = supervisor.unavailable({ ...DEATH, message: "base" });
  assert.match(refused.message, /exited on signal SIGKILL; it is not restarted: a process/);
});

Deno.test("a failed start counts: attempts back off and stop at max", async () => {
  const failed: Result<ServerInfo, StartError> = err({
    kind: "transport_failed",
    message: "no",
    stderrTail: "",
    cleanup: { kind: "no_resource" },
  });
  const { events, supervisor, clock, renewed } = rig(3, [], [failed, failed, failed]);
  supervisor.ready();
  await supervisor.died(DEATH);
  const waits: number[] = [];
  while (clock.timers.size > 0) {
    waits.push(clock.fireNext());
    await settle();
  }
  assert.deepEqual(waits, [100, 200, 400]);
  assert.equal(renewed(), 3);
  const last = events.at(-1);
  assert.ok(last?.kind === "restart_failed" && last.next.kind === "no_restart");
  assert.equal(last.next.reason, "attempts_exhausted");
});

Deno.test("a start whose cleanup was not confirmed is not tried again", async () => {
  const unconfirmed: Result<ServerInfo, StartError> = err({
    kind: "cleanup_unconfirmed",
    message: "lost",
    cause: { kind: "transport_failed", message: "no", stderrTail: "" },
    retirement: { kind: "retirement_unconfirmed", message: "lost" },
    stderrTail: "",
  });
  const { events, supervisor, clock } = rig(3, [], [unconfirmed]);
  await supervisor.died(DEATH);
  clock.fireNext();
  await settle();
  assert.equal(clock.timers.size, 0);
  const last = events.at(-1);
  assert.ok(last?.kind === "restart_failed" && last.next.kind === "no_restart");
  assert.equal(last.next.reason, "unconfirmed");
});

Deno.test("a generation ready for RESTART_STABLE_MS starts a new count of attempts", async () => {
  const { events, supervisor, clock } = rig(1, [], []);
  supervisor.ready();
  await supervisor.died(DEATH);
  clock.fireNext();
  await settle();
  supervisor.ready();
  clock.at += RESTART_STABLE_MS;
  await supervisor.died(DEATH);
  const deaths = events.filter((event) => event.kind === "died");
  assert.deepEqual(deaths.map((event) => event.next.kind), ["restart", "restart"]);
});

Deno.test("stop() cancels the next attempt", async () => {
  const { supervisor, clock, renewed } = rig(3, [], []);
  await supervisor.died(DEATH);
  assert.equal(clock.timers.size, 1);
  supervisor.stop();
  assert.equal(clock.timers.size, 0);
  assert.equal(renewed(), 0);
});
