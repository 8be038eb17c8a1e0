import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import { Client } from "../../client/client.ts";
import { isRemote, type StdioServerSpec } from "../../settings/mod.ts";
import { listening } from "../../client/custody/exit_guard.ts";
import { fixture, survivors } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 3_000 };

function echo(name: string, extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return fixture(name, "echo_server.ts", extra);
}

Deno.test("Census.prepare() publishes every client parked and refuses bad specs", async (t) => {
  await t.step("parked, in order, nothing spawned", async () => {
    const census = Census.prepare([echo("a"), echo("b")], { permissions: "inherit" });
    assert.deepEqual([...census.clients.keys()], ["a", "b"]);
    assert.ok(
      [...census.clients.values()].every((c) => c.state === "parked" && c.pid === undefined),
    );
    assert.equal(census.permissions, "inherit");
    assert.equal(listening(), false);
    const report = await census.retire();
    assert.ok(report.confirmed);
    assert.deepEqual([...report.clients.values()], [
      { ok: true, value: { kind: "no_resource" } },
      { ok: true, value: { kind: "no_resource" } },
    ]);
  });
  await t.step("duplicate names", () => {
    assert.throws(() => Census.prepare([echo("a"), echo("a")]), TypeError);
  });
  await t.step("malformed specs", () => {
    const bad: unknown[] = [
      { ...echo("x"), name: "" },
      { ...echo("x"), command: 7 },
      { ...echo("x"), args: "run x.ts" },
      { ...echo("x"), env: { A: 1 } },
      { ...echo("x"), stderr: "merge" },
    ];
    for (const spec of bad) {
      assert.throws(() => Census.prepare([spec as StdioServerSpec]), TypeError);
    }
    assert.throws(() => Census.prepare([{ ...echo("x"), callTimeoutMs: -1 }]), RangeError);
  });
});

Deno.test("Census.prepare() takes a minimal spec and gives its client the defaults written out", async () => {
  const census = Census.prepare([{ name: "min", command: "server", args: ["--stdio"] }], {
    permissions: "inherit",
  });
  const spec = census.clients.get("min")?.spec;
  assert.ok(spec !== undefined && !isRemote(spec) && spec.env !== undefined);
  assert.deepEqual({ ...spec, env: { ...spec.env } }, {
    name: "min",
    command: "server",
    args: ["--stdio"],
    env: {},
    inheritEnv: [],
    stderr: "tail",
  });
  assert.ok((await census.retire()).confirmed);
});

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "connectAll() starts servers in parallel; a failed one stays in the census",
  OPENS_CUSTODIAN,
  async () => {
    const census = Census.prepare([
      echo("good"),
      fixture("bad", "exit_at_start.ts"),
      { ...echo("missing"), command: "/nonexistent/server" },
    ], QUICK);
    const started = await census.connectAll();
    assert.ok(started.get("good")?.ok);
    const bad = started.get("bad");
    assert.ok(bad !== undefined && !bad.ok && bad.error.kind === "handshake_failed");
    const missing = started.get("missing");
    assert.ok(missing !== undefined && !missing.ok && missing.error.kind === "transport_failed");
    assert.match(missing.error.message, /"\/nonexistent\/server" could not be spawned/);
    assert.deepEqual([...census.clients.values()].map((c) => c.state), [
      "ready",
      "failed",
      "failed",
    ]);
    const pid = census.clients.get("good")?.pid ?? -1;
    const report = await census.retire();
    assert.ok(report.confirmed, JSON.stringify([...report.clients]));
    assert.deepEqual(report.clients.get("missing"), { ok: true, value: { kind: "no_resource" } });
    assert.deepEqual(survivors(pid), []);
    assert.equal(listening(), false);
  },
);

Deno.test("1,200 concurrent calls over 8 servers each reach their own caller", async () => {
  const names = Array.from({ length: 8 }, (_, i) => `echo${i}`);
  const census = Census.prepare(names.map((name) => echo(name)), QUICK);
  const started = await census.connectAll();
  assert.ok([...started.values()].every((outcome) => outcome.ok));
  const calls = Array.from({ length: 1_200 }, (_, i) => {
    const server = names[Math.floor(Math.random() * names.length)] ?? "echo0";
    const args = {
      i,
      server,
      n: Math.random(),
      s: crypto.randomUUID(),
      deep: { list: [i, "é😀"] },
    };
    return { server, args };
  });
  const results = await Promise.all(
    calls.map(({ server, args }) => census.clients.get(server)?.callTool("echo_args", args)),
  );
  results.forEach((result, index) => {
    assert.ok(result?.ok, JSON.stringify(result));
    assert.deepEqual(result.value.structuredContent, calls[index]?.args);
  });
  assert.ok((await census.retire()).confirmed);
});

Deno.test("batches too large for the rings are posted, and every call still reaches its caller", async () => {
  // 300 calls of 2 KiB each in one turn: a request batch of about 700 KiB,
  // past the 128 KiB ring (RING_BYTES), and answers past 64 KiB
  // (ANSWER_TEXT_BYTES), which cross as bytes; small calls go in between.
  const census = Census.prepare([echo("echo")], QUICK);
  assert.ok([...(await census.connectAll()).values()].every((outcome) => outcome.ok));
  const client = census.clients.get("echo");
  assert.ok(client !== undefined);
  const texts = Array.from(
    { length: 600 },
    (_, i) => i % 2 === 0 ? `${i}:${"é".repeat(1_000)}` : `${i}`,
  );
  const results = await Promise.all(texts.map((text) => client.callTool("echo", { text })));
  results.forEach((result, index) => {
    assert.ok(result.ok, JSON.stringify(result).slice(0, 200));
    assert.deepEqual(result.value.structuredContent, { text: texts[index] });
  });
  assert.ok((await census.retire()).confirmed);
});

Deno.test("Client calls: deadlines, aborts, misuse and states", async (t) => {
  const client = new Client(echo("echo"), QUICK);
  const before = await client.callTool("echo", { text: "too early" });
  assert.ok(
    !before.ok && before.error.kind === "unavailable" && before.error.cause === "not_connected",
  );
  assert.ok((await client.connect()).ok);
  assert.equal(client.connect(), client.connect());
  await t.step("a deadline settles the call as call_timed_out", async () => {
    const call = await client.callTool("sleep", { ms: 5_000 }, { timeoutMs: 100 });
    assert.ok(!call.ok && call.error.kind === "call_timed_out" && !call.error.aborted);
    assert.equal(call.error.timeoutMs, 100);
  });
  await t.step("each call times out at its own deadline, the earlier first", async () => {
    const controller = new AbortController();
    const long = client.callTool("sleep", { ms: 5_000 }, {
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    let longSettled = false;
    void long.then(() => longSettled = true);
    const short = await client.callTool("sleep", { ms: 5_000 }, { timeoutMs: 100 });
    assert.ok(!short.ok && short.error.kind === "call_timed_out" && short.error.timeoutMs === 100);
    assert.equal(longSettled, false);
    controller.abort();
    const ended = await long;
    assert.ok(!ended.ok && ended.error.kind === "call_timed_out" && ended.error.aborted);
  });
  await t.step("an abort settles the call at once", async () => {
    const controller = new AbortController();
    const call = client.callTool("sleep", { ms: 5_000 }, { signal: controller.signal });
    controller.abort();
    const result = await call;
    assert.ok(!result.ok && result.error.kind === "call_timed_out" && result.error.aborted);
  });
  await t.step("misuse throws", () => {
    assert.throws(() => client.callTool("echo", [] as unknown as Record<string, never>), TypeError);
    assert.throws(() => client.callTool("echo", { x: NaN }), TypeError);
    assert.throws(() => client.callTool("echo", {}, { timeoutMs: 0 }), RangeError);
  });
  await t.step("results, isError and exact integers cross intact", async () => {
    const proto = JSON.parse('{"__proto__":{"polluted":true}}');
    const big = await client.callTool("echo_args", { id: 12345678901234567890n, proto });
    assert.ok(big.ok);
    const value = big.value.structuredContent as Record<string, unknown>;
    assert.equal(value.id, 12345678901234567890n);
    assert.ok(Object.hasOwn(value.proto as object, "__proto__"));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const failed = await client.callTool("fail", {});
    assert.ok(failed.ok && failed.value.isError);
  });
  await t.step("long arguments, sent as transferred bytes, cross intact", async () => {
    const long = { text: "é😀\u2028x".repeat(40_000), id: 2n ** 70n };
    const calls = await Promise.all([
      client.callTool("echo_args", { n: 1 }),
      client.callTool("echo_args", long),
      client.callTool("echo_args", { n: 3 }),
    ]);
    const values = calls.map((call) => call.ok && call.value.structuredContent);
    assert.deepEqual(values, [{ n: 1 }, long, { n: 3 }]);
    const tools = await client.listTools();
    assert.ok(tools.ok && tools.value.some((tool) => tool.name === "echo_args"));
    assert.ok((await client.ping()).ok);
  });
  const retired = await client.retire();
  assert.ok(
    retired.ok && retired.value.kind === "exited" && retired.value.escalation === "stdin_closed",
  );
  const after = await client.callTool("echo", { text: "too late" });
  assert.ok(!after.ok && after.error.kind === "unavailable" && after.error.cause === "shutdown");
  assert.deepEqual(await client.retire(), retired);
  // The former name, deprecated, answers the same.
  assert.deepEqual(await client.shutdown(), retired);
});

Deno.test("a client retired before it was started refuses a connect, as its machine would", async () => {
  const client = new Client(echo("never"), QUICK);
  assert.deepEqual(await client.retire(), { ok: true, value: { kind: "no_resource" } });
  assert.equal(client.state, "retired");
  const refused = await client.connect();
  assert.ok(!refused.ok && refused.error.kind === "transport_failed");
  assert.match(refused.error.message, /Cannot connect client "never": it is retired/);
  const call = await client.callTool("echo", { text: "x" });
  assert.ok(!call.ok && call.error.kind === "unavailable" && call.error.cause === "shutdown");
});

Deno.test("retire() during connect retires the server and fails the start", async () => {
  const client = new Client(fixture("silent", "silent.ts"), QUICK);
  const connecting = client.connect();
  const retired = await client.retire();
  const started = await connecting;
  assert.ok(!started.ok);
  assert.ok(retired.ok, JSON.stringify(retired));
  assert.equal(client.state, "retired");
});
