import assert from "node:assert/strict";
import { ManualClock } from "../../../client/transport/clock.ts";
import { ChannelTransport } from "../../../client/transport/channel_transport.ts";
import {
  ExitWatch,
  ProcessEscalation,
  Retirement,
  SessionRelease,
  stoppingFor,
} from "../../../client/worker/retirement.ts";
import type { SessionControl } from "../../../client/transport/transport.ts";
import type { RemoteEvidence } from "../../../client/thread/evidence.ts";
import { HttpTransport } from "../../../client/transport/http/http_transport.ts";
import { mcpPeer, settle } from "./_peer.ts";
import { ClientMachine } from "../../../client/worker/machine.ts";
import type { PeerBehaviour } from "../../../client/transport/channel_transport.ts";

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

/** A ready machine over a peer that answers like an MCP server, as machine_test.ts makes one. */
async function ready(extra: Omit<PeerBehaviour, "line"> = {}, drain: boolean | "unknown" = true) {
  const clock = new ManualClock();
  const transport = new ChannelTransport(mcpPeer({}, extra), { pid: 4242, drain });
  const client = new ClientMachine(transport, {
    name: "peer",
    clock,
    connectTimeoutMs: 1_000,
    retirementTimeoutMs: 1_000,
    era: "legacy",
  });
  assert.ok((await client.connect()).ok);
  return { clock, transport, peer: transport.peer, client };
}

Deno.test("retire() escalates stdin, SIGTERM, SIGKILL within one deadline", async (t) => {
  const cases: {
    name: string;
    behaviour: Omit<PeerBehaviour, "line">;
    steps: number[];
    escalation?: string;
    signals: string[];
  }[] = [
    { name: "exits on EOF", behaviour: {}, steps: [0], escalation: "stdin_closed", signals: [] },
    {
      name: "ignores EOF",
      behaviour: { stdinClosed: () => {} },
      steps: [400],
      escalation: "sigterm",
      signals: ["SIGTERM"],
    },
    {
      name: "ignores SIGTERM",
      behaviour: {
        stdinClosed: () => {},
        signal: (s, p) => s === "SIGKILL" && p.exit(137, "SIGKILL"),
      },
      steps: [400, 400],
      escalation: "sigkill",
      signals: ["SIGTERM", "SIGKILL"],
    },
    {
      name: "survives everything",
      behaviour: { stdinClosed: () => {}, signal: () => {} },
      steps: [400, 400, 200],
      signals: ["SIGTERM", "SIGKILL"],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const m = await ready(c.behaviour);
      const retiring = m.client.retire({ timeoutMs: 1_000 });
      assert.equal(m.client.state, "retiring");
      for (const step of c.steps) {
        await settle();
        m.clock.advance(step);
      }
      await settle();
      const outcome = await retiring;
      assert.deepEqual(m.peer.signals, c.signals);
      assert.equal(m.transport.signalsAfterExit, 0);
      if (c.escalation === undefined) {
        assert.ok(!outcome.ok && outcome.error.kind === "retirement_timed_out");
        assert.equal(m.client.state, "retiring");
        m.peer.exit(137, "SIGKILL");
        await settle();
        const again = m.client.retire({ timeoutMs: 1_000 });
        await settle();
        const confirmed = await again;
        assert.ok(confirmed.ok && confirmed.value.kind === "exited");
        assert.equal(m.transport.signalsAfterExit, 0);
      } else {
        assert.ok(outcome.ok && outcome.value.kind === "exited");
        assert.equal(outcome.value.escalation, c.escalation);
        assert.equal(outcome.value.pid, 4242);
        assert.equal(outcome.value.drained, true);
      }
      assert.equal(m.client.state, c.escalation === undefined ? "retired" : "retired");
    });
  }
});

Deno.test("retirement evidence carries the drain the transport reports", async () => {
  const m = await ready({}, "unknown");
  const outcome = await m.client.retire();
  assert.ok(outcome.ok && outcome.value.kind === "exited");
  assert.equal(outcome.value.drained, "unknown");
  assert.equal(outcome.value.code, 0);
});
