import assert from "node:assert/strict";
import { ManualClock } from "../../../client/transport/clock.ts";
import { CLIENT_INFO, ClientMachine } from "../../../client/worker/machine.ts";
import { eraPlan, PROBE_TIMEOUT_MS } from "../../../settings/era.ts";
import { handshakeFailure } from "../../../client/worker/handshake.ts";
import { ChannelTransport } from "../../../client/transport/channel_transport.ts";
import type { ClientError } from "../../../client/thread/outcomes.ts";
import type { Result } from "../../../codec/result.ts";
import type { JsonValue } from "../../../codec/json.ts";
import { type Handlers, mcpPeer, reply, sent, settle } from "./_peer.ts";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { ...CLIENT_INFO },
};

const DISCOVERED = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: "private",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "2" } },
};

function machine(handlers: Handlers, options: { era?: "auto" | "modern" | "legacy" } = {}) {
  const clock = new ManualClock();
  const transport = new ChannelTransport(mcpPeer(handlers), { pid: 7, drain: true });
  const client = new ClientMachine(transport, {
    name: "peer",
    clock,
    connectTimeoutMs: 60_000,
    retirementTimeoutMs: 1_000,
    ...options,
  });
  return { clock, peer: transport.peer, client };
}

function request(client: ClientMachine, method: string, params: string | Uint8Array) {
  return new Promise<Result<JsonValue, ClientError>>((resolve) => {
    client.send(method, params, 500, resolve);
  });
}

Deno.test("the probe carries the full envelope with empty client capabilities, and nothing else", async () => {
  const { client, peer } = machine({ "server/discover": () => ({ result: DISCOVERED }) });
  const started = await client.connect();
  assert.ok(started.ok, JSON.stringify(started));
  const [probe, ...rest] = sent(peer);
  assert.equal(probe?.method, "server/discover");
  assert.deepEqual(JSON.parse(JSON.stringify(probe?.params)), { _meta: ENVELOPE });
  assert.deepEqual(rest, []);
  assert.deepEqual(JSON.parse(JSON.stringify(started.value)), {
    protocolVersion: "2026-07-28",
    capabilities: { tools: {} },
    serverInfo: { name: "modern", version: "2" },
    era: "modern",
  });
  assert.ok((await client.retire()).ok);
});

Deno.test("a modern session puts the envelope first in every request, text or bytes", async () => {
  const { client, peer } = machine({
    "server/discover": () => ({ result: DISCOVERED }),
    "tools/call": (m) => ({ result: { resultType: "complete", content: [], echo: m.params } }),
  });
  assert.ok((await client.connect()).ok);
  await request(client, "tools/call", '{"name":"a","arguments":{"x":1}}');
  await request(client, "tools/call", new TextEncoder().encode('{"name":"b","arguments":{}}'));
  await request(client, "tools/list", "{}");
  await request(client, "ping", "");
  const lines = peer.written.slice(1);
  assert.ok(
    lines[0]?.startsWith('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":'),
  );
  const params = sent(peer).slice(1).map((m) => [m.method, JSON.parse(JSON.stringify(m.params))]);
  assert.deepEqual(params, [
    ["tools/call", { _meta: ENVELOPE, name: "a", arguments: { x: 1 } }],
    ["tools/call", { _meta: ENVELOPE, name: "b", arguments: {} }],
    ["tools/list", { _meta: ENVELOPE }],
    // ping is gone from 2026-07-28: the liveness check is a discover.
    ["server/discover", { _meta: ENVELOPE }],
  ]);
  assert.ok((await client.retire()).ok);
});

Deno.test("a modern session drops the server's requests instead of answering them", async () => {
  const { client, peer } = machine({ "server/discover": () => ({ result: DISCOVERED }) });
  assert.ok((await client.connect()).ok);
  peer.send('{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}\n');
  await settle();
  assert.deepEqual(sent(peer).filter((m) => m.id === "s1"), []);
  assert.equal(client.state, "ready");
  assert.ok((await client.retire()).ok);
});

Deno.test("auto falls back on the same process for each legacy signal", async (t) => {
  const signals: [string, Handlers["x"]][] = [
    ["method not found", () => ({ error: { code: -32601, message: "Method not found" } })],
    ["invalid params", () => ({ error: { code: -32602, message: "Invalid params" } })],
    ["a vendor error", () => ({ error: { code: -32000, message: "Not initialized" } })],
    [
      "-32022 naming only legacy versions",
      () => ({ error: { code: -32022, message: "no", data: { supported: ["2025-11-25"] } } }),
    ],
    ["not a discover result", () => ({ result: { foo: 1 } })],
    ["no common version", () => ({ result: { ...DISCOVERED, supportedVersions: ["2099-01-01"] } })],
    ["an unknown resultType", () => ({ result: { ...DISCOVERED, resultType: "weird" } })],
  ];
  for (const [name, handler] of signals) {
    await t.step(name, async () => {
      const { client, peer } = machine({ "server/discover": handler });
      const started = await client.connect();
      assert.ok(started.ok && started.value.era === "legacy", JSON.stringify(started));
      assert.deepEqual(sent(peer).map((m) => m.method), [
        "server/discover",
        "initialize",
        "notifications/initialized",
      ]);
      assert.ok((await client.retire()).ok);
    });
  }
});

Deno.test("a silent probe falls back at PROBE_TIMEOUT_MS without a cancellation", async () => {
  const { client, peer, clock } = machine({ "server/discover": () => undefined });
  const started = client.connect();
  await settle();
  clock.advance(PROBE_TIMEOUT_MS - 1);
  await settle();
  assert.deepEqual(sent(peer).map((m) => m.method), ["server/discover"]);
  clock.advance(1);
  const outcome = await started;
  assert.ok(outcome.ok && outcome.value.era === "legacy");
  assert.deepEqual(sent(peer).map((m) => m.method), [
    "server/discover",
    "initialize",
    "notifications/initialized",
  ]);
  // A late answer to the probe is dropped; the session stays legacy.
  peer.send(reply(0, { result: DISCOVERED }));
  await settle();
  assert.equal(client.state, "ready");
  assert.ok((await client.retire()).ok);
});

Deno.test("modern pinned: a legacy server is a start failure with no initialize", async (t) => {
  await t.step("method not found", async () => {
    const { client, peer } = machine({}, { era: "modern" });
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "handshake_failed");
    assert.match(started.error.message, /refused server\/discover: Method not found/);
    assert.deepEqual(sent(peer).map((m) => m.method), ["server/discover"]);
  });
  await t.step("-32022 carries both sides", async () => {
    const { client } = machine({
      "server/discover": () => ({
        error: { code: -32022, message: "no", data: { supported: ["2027-01-01"], requested: "x" } },
      }),
    }, { era: "modern" });
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "version_unsupported");
    assert.equal(started.error.requested, "2026-07-28");
    assert.equal(started.error.received, "2027-01-01");
  });
  await t.step("no tools capability", async () => {
    const { client } = machine({
      "server/discover": () => ({ result: { ...DISCOVERED, capabilities: {} } }),
    });
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "tools_not_declared");
    assert.equal(started.error.serverInfo.era, "modern");
  });
});

Deno.test("eraPlan() offers each era its own versions, and refuses an empty offer", () => {
  assert.deepEqual(eraPlan("auto", ["2025-06-18", "2026-07-28"]), {
    modern: ["2026-07-28"],
    legacy: ["2025-06-18"],
  });
  assert.deepEqual(eraPlan("legacy").modern, []);
  assert.deepEqual(eraPlan("modern").legacy, []);
  assert.throws(() => eraPlan("modern", ["2025-11-25"]), RangeError);
});

/** A launcher of in-process servers, each scripted by the next of `handlers`. */
function launcher(handlers: Handlers[]) {
  const made: ChannelTransport[] = [];
  const launch = () => {
    const transport = new ChannelTransport(mcpPeer(handlers[made.length] ?? {}), {
      pid: 100 + made.length,
    });
    made.push(transport);
    return transport;
  };
  return { made, launch };
}

const EXIT_ON_PROBE: Handlers = {
  "server/discover": (_m, peer) => {
    peer.exit(1);
    return undefined;
  },
};

Deno.test("a server that exits on the probe is launched once more, straight to initialize", async () => {
  const { made, launch } = launcher([EXIT_ON_PROBE, {}]);
  const client = new ClientMachine(launch, { name: "peer", clock: new ManualClock() });
  const started = await client.connect();
  assert.ok(started.ok && started.value.era === "legacy", JSON.stringify(started));
  assert.equal(made.length, 2);
  assert.deepEqual(sent(made[0]!.peer).map((m) => m.method), ["server/discover"]);
  assert.ok(made[0]!.disposed, "the first launch was retired");
  assert.deepEqual(sent(made[1]!.peer).map((m) => m.method), [
    "initialize",
    "notifications/initialized",
  ]);
  assert.equal(client.pid, 101);
  assert.ok((await request(client, "ping", "")).ok);
  assert.ok((await client.retire()).ok);
});

Deno.test("a launch once more that fails too carries both attempts", async () => {
  const refuse: Handlers = {
    initialize: () => ({ error: { code: -32000, message: "not today" } }),
  };
  const { made, launch } = launcher([EXIT_ON_PROBE, refuse]);
  const client = new ClientMachine(launch, { name: "peer", clock: new ManualClock() });
  const started = await client.connect();
  assert.ok(!started.ok && started.error.kind === "handshake_failed", JSON.stringify(started));
  assert.deepEqual(started.error.attempts?.map((a) => a.method), ["server/discover", "initialize"]);
  assert.match(started.error.attempts?.[0]?.outcome ?? "", /exited with code 1/);
  assert.equal(started.error.cleanup?.kind, "exited");
  assert.equal(made.length, 2);
  assert.equal(client.state, "failed");
  const later = await request(client, "ping", "");
  assert.ok(!later.ok && later.error.kind === "unavailable");
  assert.equal(later.error.cause, "not_connected");
  assert.match(later.error.message, /Server "peer" failed to start: .*not today/);
});

Deno.test("a machine given one transport does not launch its server again", async () => {
  const transport = new ChannelTransport(mcpPeer(EXIT_ON_PROBE), { pid: 7 });
  const client = new ClientMachine(transport, { name: "peer", clock: new ManualClock() });
  const started = await client.connect();
  assert.ok(!started.ok && started.error.kind === "handshake_failed");
  assert.match(started.error.message, /exited with code 1 before answering server\/discover/);
  assert.equal(started.error.attempts, undefined);
});

Deno.test("a step of the start given under a millisecond is said to have had less than 1 ms", () => {
  const timedOut: ClientError = {
    kind: "call_timed_out",
    method: "server/discover",
    timeoutMs: 0,
    aborted: false,
    message: "",
  };
  const context = { name: "peer", timeoutMs: 0.4, stderrTail: "", remote: true };
  const failure = handshakeFailure("server/discover", timedOut, context);
  assert.match(failure.message, /within less than 1 ms;/);
  const later = handshakeFailure("initialize", timedOut, { ...context, timeoutMs: 1_499.6 });
  assert.match(later.message, /within 1500 ms;/);
});
