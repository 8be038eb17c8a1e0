import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { Census } from "../../client/census.ts";
import { STDERR_TAIL_BYTES } from "../../settings/mod.ts";
import { awaitGone, fixture, isLive, survivors } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";
// The text tests/fixtures/split_utf8.ts sends one byte per write.
const TEXT = "héllo — 世界 😀";

const QUICK = { retirementTimeoutMs: 3_000 };

async function ready(client: Client): Promise<void> {
  const started = await client.connect();
  assert.ok(started.ok, JSON.stringify(started));
  assert.equal(client.state, "ready");
}

/**
 * The pids of the two grandchildren `tests/fixtures/grandchildren.ts` spawned, from its tool's
 * answer (on the wire, not the stderr tail), each checked live, so a later check of their end
 * has something to check.
 */
async function grandchildrenOf(client: Client): Promise<number[]> {
  const call = await client.callTool("go", {});
  assert.ok(call.ok && call.value.content[0]?.type === "text", JSON.stringify(call));
  const pids = JSON.parse(call.value.content[0].text) as number[];
  assert.equal(pids.length, 2, `the fixture reported ${JSON.stringify(pids)}`);
  assert.deepEqual(pids.filter((pid) => !isLive(pid)), [], "every grandchild is live before");
  return pids;
}

async function retired(client: Client, code?: number): Promise<void> {
  const pid = client.pid;
  const outcome = await client.retire();
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(outcome.value.kind, "exited");
  if (outcome.value.kind === "exited") {
    if (code !== undefined) assert.equal(outcome.value.code, code);
    assert.equal(outcome.value.drained, true);
  }
  assert.equal(client.state, "retired");
  assert.ok(pid !== undefined);
  assert.deepEqual(survivors(pid), [], "no process of the server or its descendants remains");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a server that crashes mid-call: the call is unavailable with its stderr",
  OPENS_CUSTODIAN,
  async () => {
    const client = new Client(fixture("crash", "crash_mid_call.ts"), QUICK);
    await ready(client);
    const call = await client.callTool("go", {}, { timeoutMs: 30_000 });
    assert.ok(!call.ok && call.error.kind === "unavailable", JSON.stringify(call));
    assert.equal(call.error.cause, "exited");
    assert.match(call.error.message, /exited with code 3/);
    assert.match(call.error.stderrTail, /crashing in the middle of a call/);
    assert.equal(client.state, "dead");
    const later = await client.callTool("go", {}, { timeoutMs: 30_000 });
    assert.ok(!later.ok && later.error.kind === "unavailable" && later.error.cause === "exited");
    await retired(client, 3);
  },
);

Deno.test("a server that exits before initialize fails the handshake with its stderr", async () => {
  const client = new Client(fixture("early", "exit_at_start.ts"), QUICK);
  const started = await client.connect();
  assert.ok(!started.ok && started.error.kind === "handshake_failed", JSON.stringify(started));
  assert.match(started.error.message, /exited with code 2 before answering initialize/);
  assert.match(started.error.stderrTail, /GITHUB_TOKEN is not set/);
  assert.equal(started.error.cleanup?.kind, "exited");
  assert.equal(client.state, "failed");
  await retired(client, 2);
});

Deno.test("a server that never answers fails the handshake at its deadline", async () => {
  const client = new Client(fixture("silent", "silent.ts", { connectTimeoutMs: 300 }), QUICK);
  const started = await client.connect();
  assert.ok(!started.ok && started.error.kind === "handshake_failed", JSON.stringify(started));
  assert.match(started.error.message, /did not answer initialize within 300 ms/);
  const cleanup = started.error.cleanup;
  assert.ok(cleanup?.kind === "exited" && cleanup.escalation === "stdin_closed");
  await retired(client, 0);
});

Deno.test("a server that breaks the wire kills its client, each with its reason", async (t) => {
  const cases = [
    { file: "garbage_stdout.ts", cause: "malformed", text: /Server starting\.\.\./ },
    { file: "long_line.ts", cause: "framing", text: /MAX_LINE_BYTES/ },
    { file: "invalid_utf8.ts", cause: "framing", text: /not valid UTF-8/ },
    // Shaped like a response, so handed to the main thread undecoded: refused there alike.
    { file: "answer_not_utf8.ts", cause: "framing", text: /not valid UTF-8/ },
    {
      file: "answer_two_ids.ts",
      cause: "malformed",
      text: /not the response \d+ it was routed as/,
    },
  ];
  for (const c of cases) {
    await t.step(c.file, async () => {
      const client = new Client(fixture("broken", c.file), QUICK);
      await ready(client);
      const call = await client.callTool("go", {});
      assert.ok(!call.ok && call.error.kind === "unavailable", JSON.stringify(call).slice(0, 300));
      assert.equal(call.error.cause, c.cause);
      assert.match(call.error.message, c.text);
      await retired(client);
    });
  }
});

Deno.test("a hostile line among good ones in one read kills the client at that line", async () => {
  const client = new Client(fixture("hostile_batch", "hostile_batch.ts"), QUICK);
  await ready(client);
  const [first, second, third] = await Promise.all(
    [1, 2, 3].map(() => client.callTool("go", {})),
  );
  assert.ok(first?.ok, JSON.stringify(first));
  assert.deepEqual(first.value.content, [{ type: "text", text: "first" }]);
  for (const call of [second, third]) {
    assert.ok(call !== undefined && !call.ok && call.error.kind === "unavailable");
    assert.equal(call.error.cause, "malformed");
    assert.match(call.error.message, /"jsonrpc" is "1\.0"/);
  }
  assert.equal(client.state, "dead");
  const later = await client.callTool("go", {});
  assert.ok(!later.ok && later.error.kind === "unavailable" && later.error.cause === "malformed");
  // The worker was told, and retired the server on its own.
  assert.deepEqual(await awaitGone([client.pid ?? -1]), []);
  await retired(client);
});

Deno.test("responses with the id written last reach their own callers", async () => {
  const client = new Client(fixture("id_last", "answer_id_last.ts"), QUICK);
  await ready(client);
  const calls = await Promise.all([0, 1, 2, 3].map(() => client.callTool("go", {})));
  const texts = calls.map((call) => {
    assert.ok(call.ok, JSON.stringify(call));
    const block = call.value.content[0];
    return block?.type === "text" ? block.text : "";
  });
  // Calls sent in order got consecutive ids: each answer reached the call it names.
  const ids = texts.map((text) => Number(/^call (\d+)$/.exec(text)?.[1]));
  assert.deepEqual(ids, ids.map((_, index) => (ids[0] ?? NaN) + index));
  await retired(client);
});

Deno.test("a call given up is cancelled at the server, with whether it timed out or was aborted", async () => {
  const client = new Client(fixture("witness", "cancel_witness.ts"), QUICK);
  await ready(client);
  const timedOut = await client.callTool("hang", {}, { timeoutMs: 50 });
  assert.ok(!timedOut.ok && timedOut.error.kind === "call_timed_out" && !timedOut.error.aborted);
  const controller = new AbortController();
  const aborted = client.callTool("hang", {}, { signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  const abortedOutcome = await aborted;
  assert.ok(!abortedOutcome.ok && abortedOutcome.error.kind === "call_timed_out");
  assert.ok(abortedOutcome.error.aborted);
  const witness = await client.callTool("witness", {});
  assert.ok(witness.ok, JSON.stringify(witness));
  const block = witness.value.content[0];
  const seen = JSON.parse(block?.type === "text" ? block.text : "[]") as { reason: string }[];
  assert.deepEqual(seen.map((params) => params.reason), [
    "The request timed out",
    "The caller cancelled the request",
  ]);
  await retired(client);
});

Deno.test("a long answer cut in many reads arrives whole, in either shape, and is refused when not UTF-8", async () => {
  const text = "é日😀".repeat(3 * 1024 * 1024 / 9);
  const client = new Client(fixture("long", "long_answer.ts"), QUICK);
  await ready(client);
  for (const shape of ["first", "last", "first"]) {
    const call = await client.callTool("long", { shape });
    assert.ok(call.ok, JSON.stringify(call).slice(0, 300));
    const block = call.value.content[0];
    assert.ok(block?.type === "text" && block.text === text, `the ${shape} shape arrives whole`);
  }
  const broken = await client.callTool("long", { shape: "broken" });
  assert.ok(!broken.ok && broken.error.kind === "unavailable");
  assert.equal(broken.error.cause, "framing");
  assert.match(broken.error.message, /not valid UTF-8/);
  await retired(client);
});

Deno.test("multi-byte characters cut across writes arrive whole", async () => {
  const client = new Client(fixture("split", "split_utf8.ts"), QUICK);
  await ready(client);
  const call = await client.callTool("go", {});
  assert.ok(call.ok, JSON.stringify(call));
  assert.deepEqual(call.value.content, [{ type: "text", text: TEXT }]);
  await retired(client, 0);
});

Deno.test("handshakes this client refuses", async (t) => {
  await t.step("an unsupported version", async () => {
    const client = new Client(fixture("old", "unsupported_version.ts"), QUICK);
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "version_unsupported");
    assert.equal(started.error.received, "1999-01-01");
    assert.equal(started.error.requested, "2025-11-25");
    await retired(client);
  });
  await t.step("no tools capability", async () => {
    const client = new Client(fixture("prompts", "no_tools.ts"), QUICK);
    const started = await client.connect();
    assert.ok(!started.ok && started.error.kind === "tools_not_declared");
    assert.equal(started.error.serverInfo.serverInfo.name, "fixture");
    await retired(client);
  });
});

Deno.test("listings: pages are followed and a repeated cursor refused", async () => {
  const census = Census.prepare([
    fixture("pages", "paginated.ts"),
    fixture("loop", "repeat_cursor.ts"),
  ], QUICK);
  const started = await census.connectAll();
  assert.ok([...started.values()].every((outcome) => outcome.ok));
  const pages = await census.clients.get("pages")?.listTools();
  assert.deepEqual(pages?.ok && pages.value.map((tool) => tool.name), [
    "tool_0",
    "tool_1",
    "tool_2",
  ]);
  const loop = await census.clients.get("loop")?.listTools();
  assert.ok(loop !== undefined && !loop.ok && loop.error.kind === "result_malformed");
  assert.match(loop.error.message, /repeated the tools\/list cursor "same"/);
  const report = await census.retire();
  assert.ok(report.confirmed);
});

Deno.test("a server's requests get -32601, its notifications are dropped, the channel stays open", async () => {
  const client = new Client(fixture("talkative", "talkative_peer.ts"), QUICK);
  await ready(client);
  await client.ping();
  const call = await client.callTool("go", {});
  assert.ok(call.ok && call.value.content[0]?.type === "text", JSON.stringify(call));
  const answers = JSON.parse(call.value.content[0].text) as {
    id: unknown;
    error?: { code: number };
  }[];
  assert.deepEqual(answers.map((a) => [a.id, a.error?.code]), [[0, -32601], ["r-1", -32601]]);
  assert.equal(client.state, "ready");
  await retired(client, 0);
});

Deno.test("a server's ping is answered with an empty result in every version of the handshake era", async (t) => {
  for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const) {
    await t.step(version, async () => {
      const spec = fixture("pings", "pings_client.ts", { era: "legacy", versions: [version] });
      const client = new Client(spec, QUICK);
      await ready(client);
      assert.equal(client.serverInfo?.protocolVersion, version);
      await client.ping();
      const call = await client.callTool("go", {});
      assert.ok(call.ok && call.value.content[0]?.type === "text", JSON.stringify(call));
      const answers = JSON.parse(call.value.content[0].text) as unknown[];
      assert.deepEqual(answers, [
        { jsonrpc: "2.0", id: "p-1", result: {} },
        { jsonrpc: "2.0", id: 0, result: {} },
      ]);
      assert.equal(client.state, "ready");
      await retired(client, 0);
    });
  }
});

Deno.test("a server that ignores stdin EOF and SIGTERM is killed by SIGKILL", async () => {
  const client = new Client(fixture("stubborn", "stubborn.ts"), QUICK);
  await ready(client);
  const pid = client.pid ?? -1;
  const outcome = await client.retire({ timeoutMs: 2_000 });
  assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
  assert.equal(outcome.value.signal, "SIGKILL");
  assert.equal(outcome.value.escalation, "sigkill");
  assert.match(client.stderrTail(), /ignoring SIGTERM/);
  assert.deepEqual(survivors(pid), []);
});

Deno.test("grandchildren that ignore SIGTERM do not survive the retirement", async () => {
  const client = new Client(
    fixture("family", "grandchildren.ts", { flags: ["--allow-run=sh"] }),
    QUICK,
  );
  await ready(client);
  const pid = client.pid ?? -1;
  const grandchildren = await grandchildrenOf(client);
  const outcome = await client.retire();
  assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
  assert.equal(outcome.value.drained, true);
  assert.deepEqual(survivors(pid), []);
  assert.deepEqual(grandchildren.filter(isLive), []);
});

Deno.test("three families retired at once: every group drains, no descendant survives", async () => {
  const census = Census.prepare(
    ["f1", "f2", "f3"].map((name) =>
      fixture(name, "grandchildren.ts", { flags: ["--allow-run=sh"], ...QUICK })
    ),
  );
  const started = await census.connectAll();
  for (const [name, outcome] of started) {
    assert.ok(outcome.ok, `${name}: ${JSON.stringify(outcome)}`);
  }
  const clients = [...census.clients.values()];
  const pids = clients.map((client) => client.pid ?? -1);
  const grandchildren: number[] = [];
  for (const client of clients) grandchildren.push(...await grandchildrenOf(client));
  const report = await census.retire();
  assert.ok(report.confirmed, JSON.stringify([...report.clients]));
  for (const [name, outcome] of report.clients) {
    assert.ok(outcome.ok && outcome.value.kind === "exited", `${name}: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.value.drained, true, name);
  }
  for (const pid of pids) assert.deepEqual(survivors(pid), []);
  assert.deepEqual(grandchildren.filter(isLive), []);
});

Deno.test("a server flooding stderr is drained and keeps answering; the tail is bounded", async () => {
  const client = new Client(fixture("flood", "stderr_flood.ts"), QUICK);
  await ready(client);
  const call = await client.callTool("go", {});
  assert.ok(call.ok, JSON.stringify(call).slice(0, 300));
  await retired(client, 0);
  const tail = new TextEncoder().encode(client.stderrTail());
  assert.ok(tail.length <= STDERR_TAIL_BYTES && tail.length > STDERR_TAIL_BYTES - 1024);
  assert.match(client.stderrTail(), /flood in call done\n$/);
});
