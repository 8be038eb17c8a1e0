import assert from "node:assert/strict";
import { ManualClock } from "../../../client/transport/clock.ts";
import { ClientMachine } from "../../../client/worker/machine.ts";
import {
  ChannelTransport,
  type PeerBehaviour,
} from "../../../client/transport/channel_transport.ts";
import type { ClientError } from "../../../client/thread/outcomes.ts";
import type { StateReport } from "../../../client/thread/state.ts";
import { MAX_LINE_BYTES } from "../../../codec/framing.ts";
import { REQUESTED_VERSION } from "../../../codec/protocol.ts";
import type { Result } from "../../../codec/result.ts";
import type { JsonValue } from "../../../codec/json.ts";
import { type Handlers, INIT_RESULT, mcpPeer, reply, sent, settle } from "./_peer.ts";

function machine(
  behaviour: PeerBehaviour,
  options: { clock?: ManualClock; pid?: number; drain?: boolean | "unknown" } = {},
) {
  const clock = options.clock ?? new ManualClock();
  const transport = new ChannelTransport(behaviour, {
    pid: options.pid ?? 4242,
    drain: options.drain ?? true,
  });
  const client = new ClientMachine(transport, {
    name: "peer",
    clock,
    connectTimeoutMs: 1_000,
    retirementTimeoutMs: 1_000,
    // The legacy era's own behaviour; the era probe is tested in era_test.ts.
    era: "legacy",
  });
  return { clock, transport, peer: transport.peer, client };
}

/** One request through send(), as the worker entry sends it: its id and its outcome. */
function request(
  client: ClientMachine,
  method: string,
  params: string | Uint8Array = "",
  timeoutMs = 500,
): { id: number | undefined; outcome: Promise<Result<JsonValue, ClientError>> } {
  let id: number | undefined;
  const outcome = new Promise<Result<JsonValue, ClientError>>((resolve) => {
    id = client.send(method, params, timeoutMs, resolve);
  });
  return { id, outcome };
}

async function ready(handlers: Handlers = {}, extra: Omit<PeerBehaviour, "line"> = {}) {
  const m = machine(mcpPeer(handlers, extra));
  const started = await m.client.connect();
  assert.ok(started.ok, JSON.stringify(started));
  return m;
}

Deno.test("connect() sends initialize with exactly empty capabilities, then initialized", async () => {
  const { client, peer } = await ready();
  const [initialize, initialized] = sent(peer);
  assert.equal(initialize?.id, 0);
  assert.equal(initialize?.method, "initialize");
  assert.deepEqual(initialize?.params?.capabilities, {});
  assert.equal(initialize?.params?.protocolVersion, REQUESTED_VERSION);
  assert.deepEqual(initialized, { jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(client.state, "ready");
  assert.ok((await client.retire()).ok);
});

Deno.test("connect() refuses a server that fails the handshake, retiring it", async (t) => {
  const cases: { name: string; handlers: Handlers; kind: string; text: RegExp }[] = [
    {
      name: "unsupported version",
      handlers: {
        initialize: () => ({ result: { ...INIT_RESULT, protocolVersion: "2099-01-01" } }),
      },
      kind: "version_unsupported",
      text: /"2099-01-01"/,
    },
    {
      name: "no tools capability",
      handlers: { initialize: () => ({ result: { ...INIT_RESULT, capabilities: {} } }) },
      kind: "tools_not_declared",
      text: /declares none of the "tools", "prompts" and "resources" capabilities/,
    },
    {
      name: "error answer",
      handlers: { initialize: () => ({ error: { code: -32000, message: "nope" } }) },
      kind: "handshake_failed",
      text: /nope/,
    },
    {
      name: "wrong result shape",
      handlers: { initialize: () => ({ result: [] }) },
      kind: "handshake_failed",
      text: /answered initialize wrongly/,
    },
    {
      name: "exit before answering",
      handlers: {
        initialize: (_m, peer) => {
          peer.stderr("fatal: missing token\n");
          peer.exit(3);
          return undefined;
        },
      },
      kind: "handshake_failed",
      text: /exited with code 3 before answering initialize/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { client, peer } = machine(mcpPeer(c.handlers));
      const started = await client.connect();
      assert.ok(!started.ok);
      assert.equal(started.error.kind, c.kind);
      assert.match(started.error.message, c.text);
      assert.equal(client.state, "failed");
      assert.ok(started.error.kind !== "cleanup_unconfirmed");
      assert.equal(started.error.cleanup?.kind, "exited");
      if (c.name === "exit before answering") {
        assert.equal(started.error.stderrTail, "fatal: missing token\n");
      } else {
        assert.ok(peer.stdinClosed);
      }
      const retired = await client.retire();
      assert.deepEqual(retired.ok && retired.value.kind, "exited");
    });
  }
});

Deno.test("connect() times out on a silent server and escalates its retirement", async () => {
  const { client, clock, peer } = machine(
    mcpPeer({ initialize: () => undefined }, { stdinClosed: () => {} }),
  );
  const started = client.connect();
  await settle();
  clock.advance(1_000);
  await settle();
  clock.advance(400);
  await settle();
  const result = await started;
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "handshake_failed");
  assert.match(result.error.message, /did not answer initialize within 1000 ms/);
  assert.deepEqual(peer.signals, ["SIGTERM"]);
  assert.equal(
    result.error.cleanup?.kind === "exited" && result.error.cleanup.escalation,
    "sigterm",
  );
});

Deno.test("connect() reports a transport that cannot open, and retirement finds nothing", async () => {
  const transport = new ChannelTransport({}, { openFailure: "no such file: /nowhere" });
  const client = new ClientMachine(transport, { name: "ghost", clock: new ManualClock() });
  const started = await client.connect();
  assert.ok(!started.ok);
  assert.equal(started.error.kind, "transport_failed");
  assert.match(started.error.message, /Cannot start server "ghost": no such file/);
  assert.deepEqual(await client.retire(), { ok: true, value: { kind: "no_resource" } });
});

Deno.test("retire() of a client never connected is no_resource", async () => {
  const { client, peer } = machine(mcpPeer());
  assert.deepEqual(await client.retire(), { ok: true, value: { kind: "no_resource" } });
  assert.equal(client.state, "retired");
  assert.equal(peer.written.length, 0);
});

Deno.test("send() settles with the raw result or the server's error, the channel open", async (t) => {
  const { client } = await ready({
    "tools/call": (m) => {
      const name = m.params?.name;
      if (name === "fail") {
        return { result: { content: [{ type: "text", text: "bad" }], isError: true } };
      }
      if (name === "refuse") return { error: { code: -32602, message: "Invalid params" } };
      if (name === "lie") return { result: { content: "not an array" } };
      return { result: { content: [{ type: "text", text: JSON.stringify(m.params?.arguments) }] } };
    },
  });
  await t.step("a result", async () => {
    const result = await request(client, "tools/call", '{"name":"echo","arguments":{"s":"é"}}')
      .outcome;
    assert.ok(result.ok);
    assert.deepEqual(JSON.parse(JSON.stringify(result.value)), {
      content: [{ type: "text", text: '{"s":"é"}' }],
    });
  });
  await t.step("an isError result is a result", async () => {
    const result = await request(client, "tools/call", '{"name":"fail"}').outcome;
    assert.ok(result.ok && (result.value as { isError: boolean }).isError);
  });
  await t.step("a server error", async () => {
    const result = await request(client, "tools/call", '{"name":"refuse"}').outcome;
    assert.ok(!result.ok && result.error.kind === "server_error");
    assert.equal(result.error.error.code, -32602);
  });
  await t.step("a malformed result is handed back raw, for the caller's decoder", async () => {
    const result = await request(client, "tools/call", '{"name":"lie"}').outcome;
    assert.ok(result.ok);
    assert.deepEqual(JSON.parse(JSON.stringify(result.value)), { content: "not an array" });
  });
  await t.step("the channel is still open", async () => {
    assert.ok((await request(client, "ping").outcome).ok);
  });
  assert.ok((await client.retire()).ok);
});

Deno.test("send() with parameter bytes writes one whole line and settles from its answer", async () => {
  const { client, peer } = await ready({
    "tools/call": (m) => ({
      result: { content: [{ type: "text", text: JSON.stringify(m.params) }] },
    }),
  });
  const params = { name: "echo", arguments: { text: "é😀".repeat(20_000) } };
  const outcome = await new Promise<Result<JsonValue, ClientError>>((resolve) => {
    client.send("tools/call", new TextEncoder().encode(JSON.stringify(params)), 500, resolve);
  });
  assert.ok(outcome.ok, JSON.stringify(outcome).slice(0, 200));
  const content = (outcome.value as { content: { text: string }[] }).content;
  assert.deepEqual(JSON.parse(content[0]?.text ?? ""), params);
  const line = peer.written.at(-1) ?? "";
  assert.ok(line.startsWith('{"jsonrpc":"2.0","id":'), line.slice(0, 60));
  assert.deepEqual(JSON.parse(line).params, params);
  assert.ok((await client.retire()).ok);
});

Deno.test("send() with raw hands a plain response on undecoded, by its peeked id", async () => {
  const held: (number | string | undefined)[] = [];
  const { client, peer } = await ready({
    "tools/call": (m) => {
      held.push(m.id);
      return undefined;
    },
  });
  const raw: [number, string][] = [];
  const settled: Result<JsonValue, ClientError>[] = [];
  const options = {
    raw: (id: number, line: Uint8Array) => raw.push([id, new TextDecoder().decode(line)]),
  };
  const first = client.send("tools/call", "{}", 500, (o) => settled.push(o), options);
  const second = client.send("tools/call", "{}", 500, (o) => settled.push(o), options);
  await settle();
  const plain = reply(held[0], { result: { content: [] } });
  peer.send(plain);
  // A response whose id is not plain digits is decoded here, as always.
  peer.send(`{"jsonrpc":"2.0","id":${held[1]}.0,"result":{"content":[]}}\n`);
  await settle();
  assert.deepEqual(raw, [[first, plain.trimEnd()]]);
  assert.equal(settled.length, 1);
  assert.ok(settled[0]?.ok);
  assert.equal(client.inFlight, 0);
  assert.ok(second !== undefined);
  assert.ok((await client.retire()).ok);
});

Deno.test("malformed() kills the client as a malformed line would, settling every call", async () => {
  const { client, peer } = await ready({ "tools/call": () => undefined });
  const call = request(client, "tools/call", "{}");
  client.malformed('Server "peer" wrote a line that is not a JSON-RPC message');
  const outcome = await call.outcome;
  assert.ok(!outcome.ok && outcome.error.kind === "unavailable");
  assert.equal(outcome.error.cause, "malformed");
  assert.equal(client.state, "dead");
  assert.ok(peer.stdinClosed, "the server is being retired");
  assert.ok((await client.retire()).ok);
});

Deno.test("responses out of order reach their own callers", async () => {
  const held: { id: number | string | undefined; n: unknown }[] = [];
  const { client, peer } = await ready({
    "tools/call": (m) => {
      held.push({ id: m.id, n: (m.params?.arguments as { n: number }).n });
      return undefined;
    },
  });
  const calls = [0, 1, 2, 3, 4].map((n) =>
    request(client, "tools/call", `{"name":"echo","arguments":{"n":${n}}}`).outcome
  );
  await settle();
  for (const entry of held.reverse()) {
    peer.send(reply(entry.id, { result: { content: [{ type: "text", text: String(entry.n) }] } }));
  }
  const results = await Promise.all(calls);
  assert.deepEqual(
    results.map((r) => r.ok && (r.value as { content: { text: string }[] }).content[0]?.text),
    ["0", "1", "2", "3", "4"],
  );
  assert.ok((await client.retire()).ok);
});

Deno.test("a call past its deadline is call_timed_out, cancelled, and a late answer is dropped", async () => {
  let lateId: number | string | undefined;
  const { client, clock, peer } = await ready({
    "tools/call": (m) => {
      lateId = m.id;
      return undefined;
    },
  });
  const call = request(client, "tools/call", '{"name":"slow"}', 200).outcome;
  await settle();
  clock.advance(199);
  await settle();
  assert.equal(client.inFlight, 1);
  clock.advance(1);
  const result = await call;
  assert.ok(!result.ok && result.error.kind === "call_timed_out");
  assert.equal(result.error.aborted, false);
  const cancelled = sent(peer).find((m) => m.method === "notifications/cancelled");
  assert.equal(cancelled?.params?.requestId, lateId);
  peer.send(reply(lateId, { result: { content: [] } }));
  peer.send(reply(9999, { result: {} }));
  await settle();
  assert.equal(client.state, "ready");
  assert.ok((await request(client, "ping").outcome).ok);
  assert.ok((await client.retire()).ok);
});

Deno.test("a forwarded call keeps no deadline in the machine: only its sender's cancel ends it", async () => {
  const { client, clock, peer } = await ready({ "tools/call": () => undefined });
  let id: number | undefined;
  const outcome = new Promise<Result<JsonValue, ClientError>>((resolve) => {
    id = client.forward("tools/call", '{"name":"slow"}', 200, resolve);
  });
  await settle();
  clock.advance(10_000);
  await settle();
  assert.equal(client.inFlight, 1);
  client.cancel(id ?? -1, true);
  const result = await outcome;
  assert.ok(!result.ok && result.error.kind === "call_timed_out" && !result.error.aborted);
  assert.ok(sent(peer).some((m) => m.method === "notifications/cancelled"));
  assert.ok((await client.retire()).ok);
});

Deno.test("a cancelled call settles at once and the server is told", async () => {
  const { client, peer } = await ready({ "tools/call": () => undefined });
  const call = request(client, "tools/call", '{"name":"slow"}');
  await settle();
  assert.notEqual(call.id, undefined);
  client.cancel(call.id ?? -1);
  const result = await call.outcome;
  assert.ok(!result.ok && result.error.kind === "call_timed_out" && result.error.aborted);
  const cancelled = sent(peer).find((m) => m.method === "notifications/cancelled");
  assert.equal(cancelled?.params?.requestId, call.id);
  client.cancel(call.id ?? -1);
  assert.equal(sent(peer).filter((m) => m.method === "notifications/cancelled").length, 1);
  assert.ok((await client.retire()).ok);
});

Deno.test("server requests get -32601 and notifications are dropped, the channel open", async () => {
  const { client, peer } = await ready();
  peer.send('{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}\n');
  peer.send('{"jsonrpc":"2.0","id":"abc","method":"roots/list"}\n');
  peer.send('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n');
  peer.send('{"jsonrpc":"2.0","id":"zzz","result":{}}\n');
  await settle();
  const answers = sent(peer).filter((m) => m.error !== undefined);
  assert.deepEqual(answers.map((m) => [m.id, m.error?.code]), [[0, -32601], ["abc", -32601]]);
  assert.equal(client.state, "ready");
  assert.ok((await request(client, "ping").outcome).ok);
  assert.ok((await client.retire()).ok);
});

Deno.test("every death path settles every waiting call once with unavailable and latches", async (t) => {
  const big = new Uint8Array(MAX_LINE_BYTES + 2).fill(0x61);
  const paths: {
    name: string;
    kill: (m: Awaited<ReturnType<typeof ready>>) => void;
    cause: string;
  }[] = [
    { name: "exit", kill: ({ peer }) => peer.exit(1), cause: "exited" },
    {
      name: "stdout closed",
      kill: ({ peer, clock }) => {
        peer.closeStdout();
        void settle().then(() => clock.advance(50));
      },
      cause: "stdout_closed",
    },
    {
      name: "failed write",
      kill: ({ peer, client }) => {
        peer.failWrites = true;
        void request(client, "ping").outcome;
      },
      cause: "write_failed",
    },
    { name: "line too long", kill: ({ peer }) => peer.send(big), cause: "framing" },
    {
      name: "not UTF-8",
      kill: ({ peer }) => peer.send(new Uint8Array([0xff, 0xfe, 0x0a])),
      cause: "framing",
    },
    { name: "not JSON", kill: ({ peer }) => peer.send("hello\n"), cause: "malformed" },
    {
      name: "not JSON-RPC",
      kill: ({ peer }) => peer.send('{"jsonrpc":"1.0","id":1}\n'),
      cause: "malformed",
    },
    { name: "a batch", kill: ({ peer }) => peer.send("[]\n"), cause: "malformed" },
    { name: "retire", kill: ({ client }) => void client.retire(), cause: "shutdown" },
  ];
  for (const path of paths) {
    await t.step(path.name, async () => {
      const m = await ready({ "tools/call": () => undefined }, { stdinClosed: (p) => p.exit(0) });
      m.peer.stderr("last words\n");
      const outcomes: Result<JsonValue, ClientError>[][] = [[], [], []];
      for (const list of outcomes) {
        m.client.send("tools/call", '{"name":"x"}', 500, (o) => list.push(o));
      }
      await settle();
      path.kill(m);
      await settle();
      for (const list of outcomes) {
        assert.equal(list.length, 1);
        const outcome = list[0];
        assert.ok(outcome !== undefined && !outcome.ok && outcome.error.kind === "unavailable");
        assert.equal(outcome.error.cause, path.cause);
        assert.equal(outcome.error.stderrTail, "last words\n");
      }
      m.peer.exit(0);
      await settle();
      const later = await request(m.client, "ping").outcome;
      assert.ok(
        !later.ok && later.error.kind === "unavailable" && later.error.cause === path.cause,
      );
      m.clock.advance(10_000);
      await settle();
      const retired = await m.client.retire();
      assert.ok(retired.ok && retired.value.kind === "exited");
      assert.equal(m.transport.signalsAfterExit, 0);
      assert.ok(m.transport.disposed);
    });
  }
});

Deno.test("a second connect() answers the same start, and connect() after retire() is refused", async () => {
  const { client } = machine(mcpPeer());
  const first = client.connect();
  assert.equal(client.connect(), first);
  assert.ok((await first).ok);
  assert.ok((await client.retire()).ok);
  const parked = machine(mcpPeer()).client;
  assert.ok((await parked.retire()).ok);
  const refused = await parked.connect();
  assert.ok(!refused.ok && refused.error.kind === "transport_failed");
  assert.match(refused.error.message, /Cannot connect client "peer": it is retired/);
});

Deno.test("the machine reports each change of its life, its death latched once", async () => {
  const reports: StateReport[] = [];
  const clock = new ManualClock();
  const transport = new ChannelTransport(mcpPeer({ "tools/call": () => undefined }), { pid: 5 });
  const client = new ClientMachine(transport, {
    name: "peer",
    clock,
    era: "legacy",
    onReport: (report) => reports.push(report),
  });
  assert.ok((await client.connect()).ok);
  const call = request(client, "tools/call", "{}");
  await settle();
  transport.peer.exit(2);
  const outcome = await call.outcome;
  assert.ok(
    !outcome.ok && outcome.error.kind === "unavailable" && outcome.error.cause === "exited",
  );
  await settle();
  const retired = await client.retire();
  assert.ok(retired.ok && retired.value.kind === "exited");
  const seen = reports.map((r) =>
    r.death?.kind === "unavailable" ? `${r.state} ${r.death.cause}` : r.state
  );
  assert.deepEqual(seen, [
    "connecting",
    "ready",
    "dead exited",
    "retiring exited",
    "retired exited",
  ]);
  assert.deepEqual(reports.at(-1)?.evidence, retired.value);
  assert.deepEqual(client.report, reports.at(-1));
});
