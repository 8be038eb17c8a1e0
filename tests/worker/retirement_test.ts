import assert from "node:assert/strict";
import { ManualClock } from "../../worker/clock.ts";
import { ChannelTransport } from "../../worker/channel_transport.ts";
import {
  ExitWatch,
  ProcessEscalation,
  Retirement,
  SessionRelease,
  stoppingFor,
} from "../../worker/retirement.ts";
import type { SessionControl } from "../../worker/transport.ts";
import type { RemoteEvidence } from "../../thread/evidence.ts";
import { HttpTransport } from "../../worker/http_transport.ts";
import { settle } from "./_peer.ts";

function session(evidence: RemoteEvidence): SessionControl & { released: number[] } {
  const released: number[] = [];
  return {
    released,
    release(deadlineMs) {
      released.push(deadlineMs);
      return Promise.resolve(evidence);
    },
    refused: () => undefined,
  };
}

Deno.test("a retirement runs the strategy it is given: a session is released, then disposed", async () => {
  const clock = new ManualClock();
  const control = session({ kind: "remote", url: "http://h/mcp", session: "deleted", status: 200 });
  let disposed = 0;
  const retirement = new Retirement({
    name: "remote",
    stopping: new SessionRelease(control),
    dispose: () => Promise.resolve(void disposed++),
    clock,
  });
  const outcome = await retirement.retire(1_000);
  assert.deepEqual(outcome, {
    ok: true,
    value: { kind: "remote", url: "http://h/mcp", session: "deleted", status: 200 },
  });
  assert.deepEqual(control.released, [1_000]);
  assert.equal(disposed, 1);
  assert.equal(retirement.escalation, "none");
});

Deno.test("stoppingFor() escalates a process and releases a session", () => {
  const clock = new ManualClock();
  const options = { name: "s", exit: new ExitWatch(clock), clock };
  const child = new ChannelTransport({});
  assert.ok(stoppingFor(child.control, options) instanceof ProcessEscalation);
  const remote = new HttpTransport({ name: "r", url: "http://127.0.0.1:9/mcp", headers: {} });
  assert.equal(remote.control.kind, "session");
  assert.ok(stoppingFor(remote.control, options) instanceof SessionRelease);
});

Deno.test("the HTTP transport has a session's control and none of a process's", () => {
  const remote = new HttpTransport({ name: "r", url: "http://127.0.0.1:9/mcp", headers: {} });
  for (const member of ["closeStdin", "signal", "drain", "stderrTail", "pid"]) {
    assert.equal(member in remote, false, member);
  }
});

Deno.test("a process escalation that times out is run again, and never steps back", async () => {
  const clock = new ManualClock();
  const transport = new ChannelTransport({ stdinClosed: () => {}, signal: () => {} }, { pid: 7 });
  const exit = new ExitWatch(clock);
  await transport.open({ bytes() {}, end() {}, exit: (status) => exit.exited(status) });
  const retirement = new Retirement({
    name: "stubborn",
    stopping: stoppingFor(transport.control, { name: "stubborn", exit, clock }),
    dispose: () => transport.dispose(),
    clock,
  });
  const first = retirement.retire(1_000);
  for (const step of [400, 400, 200]) {
    await settle();
    clock.advance(step);
  }
  const timedOut = await first;
  assert.ok(!timedOut.ok && timedOut.error.kind === "retirement_timed_out");
  assert.equal(timedOut.error.escalation, "sigkill");
  assert.equal(transport.disposed, false, "nothing is released while the process may live");
  transport.peer.exit(137, "SIGKILL");
  await settle();
  const again = await retirement.retire(1_000);
  assert.ok(again.ok && again.value.kind === "exited" && again.value.escalation === "sigkill");
  assert.equal(again.value.pid, 7);
  assert.ok(transport.disposed);
});
