import assert from "node:assert/strict";
import { ManualClock } from "../../../client/transport/clock.ts";
import {
  ChannelTransport,
  type PeerBehaviour,
} from "../../../client/transport/channel_transport.ts";
import type { GroupControl } from "../../../client/transport/stdio/command_transport.ts";
import { WorkerHost } from "../../../client/worker/host.ts";
import type { Drain } from "../../../client/transport/transport.ts";
import { ThreadEnd } from "../../../client/thread/link.ts";
import { ringMemory } from "../../../client/thread/ring.ts";
import {
  decodeAnswers,
  decodeFromWorker,
  type FromWorker,
} from "../../../client/thread/from_worker.ts";
import {
  encodeAskReply,
  encodeCancel,
  encodeLongCall,
  encodeMalformed,
  encodeRetire,
  encodeStart,
  renderRequest,
} from "../../../client/thread/to_worker.ts";
import { type Handlers, mcpPeer, reply, sent } from "./_peer.ts";
import { SERVES_NONE } from "../../../client/thread/asked.ts";

/** A channel whose drain check is asked of the main thread, as a child's is. */
class GroupedChannel extends ChannelTransport {
  #group: GroupControl;
  constructor(behaviour: PeerBehaviour, group: GroupControl) {
    super(behaviour, { pid: 4242 });
    this.#group = group;
  }
  override drain(deadlineMs: number): Promise<Drain> {
    return this.#group.drain(this.pid ?? 0, deadlineMs);
  }
}

type Seen = { via: "text" | "message"; event: FromWorker };

/**
 * A host driven without a Worker: the test holds the main thread's end of
 * the link (its rings and its posts), and answers the host's own requests.
 */
function hosted(handlers: Handlers = {}, drained: Drain = true) {
  const seen: Seen[] = [];
  const waiting: { test: (seen: Seen) => boolean; resolve: (seen: Seen) => void }[] = [];
  const transports: GroupedChannel[] = [];
  const rings = { requests: ringMemory(), answers: ringMemory() };
  // Crossing a thread takes a turn: each post is received on a microtask.
  const main: ThreadEnd = new ThreadEnd((data) => queueMicrotask(() => host.receive(data)), {
    text(text) {
      const decoded = decodeAnswers(text);
      assert.ok(decoded.ok, decoded.ok ? "" : decoded.error);
      record({ via: "text", event: decoded.value });
    },
    message(body) {
      const decoded = decodeFromWorker(body);
      assert.ok(decoded.ok, decoded.ok ? "" : decoded.error);
      for (const event of decoded.value) {
        record({ via: "message", event });
        // The main thread answers what the host asks of it.
        if (event.kind === "ask") main.message(encodeAskReply(event.ticket, drained));
      }
    },
    broken(message) {
      throw new Error(message);
    },
  });
  function record(entry: Seen): void {
    seen.push(entry);
    for (const wait of [...waiting]) {
      if (!wait.test(entry)) continue;
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve(entry);
    }
  }
  const clock = new ManualClock();
  // A ring's reader waits on `Atomics.waitAsync`, whose wake-up is a task
  // that does not keep the event loop alive; the worker's thread does, here
  // this timer, cleared by `close`.
  const alive = setInterval(() => {}, 60_000);
  const host = new WorkerHost((data) => queueMicrotask(() => main.receive(data)), {
    clock,
    transport: (_start, group) => {
      const transport = new GroupedChannel(mcpPeer(handlers), group);
      transports.push(transport);
      return transport;
    },
  });
  const start = encodeStart({
    name: "peer",
    command: "",
    args: [],
    env: {},
    cwd: null,
    connectTimeoutMs: 1_000,
    retirementTimeoutMs: 1_000,
    forwardStderr: false,
    era: "legacy",
    versions: null,
    remote: null,
    served: SERVES_NONE,
    rings,
  });
  return {
    main,
    seen,
    transports,
    start() {
      main.attach({ out: rings.requests, in: rings.answers });
      main.message(start);
    },
    close() {
      clearInterval(alive);
      main.close();
    },
    /** The next event, from now on, of `kind` (and matching `test`). */
    next(kind: FromWorker["kind"], test: (event: FromWorker) => boolean = () => true) {
      return new Promise<Seen>((resolve) => {
        waiting.push({ test: (s) => s.event.kind === kind && test(s.event), resolve });
      });
    },
    kinds: () =>
      seen.map((s) => s.event.kind === "state" ? `state ${s.event.state}` : s.event.kind),
  };
}

Deno.test("the host starts its machine, answers a call through the ring, and retires", async () => {
  const h = hosted({}, "unknown");
  try {
    const started = h.next("started");
    h.start();
    const { event: outcome } = await started;
    assert.ok(outcome.kind === "started" && outcome.outcome.ok, JSON.stringify(outcome));
    const answered = h.next("answers");
    h.main.text(renderRequest(0, 500, "tools/call", '{"name":"echo","arguments":{"x":1}}'));
    const { via, event } = await answered;
    assert.equal(via, "text", "a turn's answers alone cross the ring as one string");
    assert.ok(event.kind === "answers");
    assert.deepEqual(event.tickets, [0]);
    assert.match(String(event.lines), /"text":"\{\\"x\\":1\}"/);
    const retired = h.next("retired");
    h.main.message(encodeRetire(1_000));
    const { event: retirement } = await retired;
    assert.ok(retirement.kind === "retired" && retirement.outcome.ok);
    // The drain check was a ticket of the host's own, answered by the test.
    assert.deepEqual(retirement.outcome.value, {
      kind: "exited",
      pid: 4242,
      code: 0,
      signal: null,
      drained: "unknown",
      escalation: "stdin_closed",
    });
    assert.deepEqual(h.kinds(), [
      "state connecting",
      "state ready",
      "started",
      "answers",
      "state retiring",
      "ask",
      "state retired",
      "retired",
    ]);
  } finally {
    h.close();
  }
});

Deno.test("the host tells the server of a cancel, and a refused answer kills the client in the worker", async () => {
  const h = hosted({ "tools/call": () => undefined });
  try {
    const started = h.next("started");
    h.start();
    await started;
    const cancelled = h.next("settled");
    h.main.text(renderRequest(1, 500, "tools/call", '{"name":"slow"}'));
    h.main.message(encodeCancel(1, true));
    const { event: settled } = await cancelled;
    assert.ok(settled.kind === "settled" && !settled.outcome.ok);
    assert.equal(settled.outcome.error.kind, "call_timed_out");
    const peer = h.transports[0]?.peer;
    assert.ok(peer !== undefined);
    assert.ok(sent(peer).some((m) => m.method === "notifications/cancelled"));
    const died = h.next("state", (event) => event.kind === "state" && event.state === "dead");
    h.main.message(encodeMalformed('Server "peer" wrote a line that is not one', "malformed"));
    const { event: death } = await died;
    assert.ok(death.kind === "state" && death.death?.kind === "unavailable");
    assert.equal(death.death.cause, "malformed");
    assert.ok(peer.stdinClosed, "the worker retires the server of a client that died");
  } finally {
    h.close();
  }
});

Deno.test("a host not started answers a call and a retirement at once", async () => {
  const h = hosted();
  try {
    const settled = h.next("settled");
    h.main.text(renderRequest(3, 500, "ping", ""));
    const { event } = await settled;
    assert.ok(event.kind === "settled" && event.ticket === 3 && !event.outcome.ok);
    assert.equal(event.outcome.error.kind, "unavailable");
    const retired = h.next("retired");
    h.main.message(encodeRetire(100));
    assert.deepEqual((await retired).event, {
      kind: "retired",
      outcome: { ok: true, value: { kind: "no_resource" } },
    });
  } finally {
    h.close();
  }
});

Deno.test("the host tells the main thread once of a flood of list_changed, and of nothing else", async () => {
  const h = hosted();
  try {
    const started = h.next("started");
    h.start();
    await started;
    const peer = h.transports[0]?.peer;
    assert.ok(peer !== undefined);
    const changed = h.next("tools_changed");
    const line = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n';
    peer.send(line.repeat(1_000) + '{"jsonrpc":"2.0","method":"notifications/message"}\n');
    assert.deepEqual((await changed).event, { kind: "tools_changed" });
    // A call answered after it shows that the flood crossed as one event.
    const answered = h.next("answers");
    h.main.text(renderRequest(0, 500, "ping", ""));
    await answered;
    assert.equal(h.kinds().filter((kind) => kind === "tools_changed").length, 1);
    const later = h.next("tools_changed");
    peer.send(line);
    await later;
    assert.equal(h.kinds().filter((kind) => kind === "tools_changed").length, 2);
    const retired = h.next("retired");
    h.main.message(encodeRetire(1_000));
    await retired;
  } finally {
    h.close();
  }
});

Deno.test("a flood of progress read in one turn crosses as one event with the newest report, before the answer", async () => {
  const count = 500;
  const h = hosted({
    "tools/call": (message, peer) => {
      const token = (message.params?._meta as { progressToken?: number } | undefined)
        ?.progressToken;
      let lines = "";
      for (let step = 1; step <= count; step++) {
        lines += JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: step, total: count },
        }) + "\n";
      }
      peer.send(lines + reply(message.id, { result: { content: [] } }));
      return undefined;
    },
  });
  try {
    const started = h.next("started");
    h.start();
    await started;
    const answered = h.next("answers");
    h.main.message(encodeLongCall({
      ticket: 0,
      timeoutMs: 5_000,
      params: '{"name":"echo","arguments":{}}',
      progress: true,
      task: false,
      ttlMs: 0,
    }));
    await answered;
    const reports = h.seen.filter((s) => s.event.kind === "progress").map((s) => s.event);
    assert.deepEqual(reports, [{
      kind: "progress",
      ticket: 0,
      progress: { kind: "progress", progress: count, total: count },
    }]);
    assert.deepEqual(h.kinds().slice(-2), ["progress", "answers"]);
    const retired = h.next("retired");
    h.main.message(encodeRetire(1_000));
    await retired;
  } finally {
    h.close();
  }
});
