import assert from "node:assert/strict";
import { ManualClock } from "../../client/transport/clock.ts";
import { ClientMachine } from "../../client/worker/machine.ts";
import { ChannelTransport } from "../../client/transport/channel_transport.ts";
import type { ClientError } from "../../client/thread/outcomes.ts";
import { MAX_TOOL_PAGES } from "../../settings/mod.ts";
import { decodeCallResult, listAllTools, type PageRequest } from "../../client/_results.ts";
import { callParams } from "../../client/_checks.ts";
import type { Result } from "../../codec/result.ts";
import type { JsonValue } from "../../codec/json.ts";
import { type Handlers, mcpPeer } from "./worker/_peer.ts";

// The main thread's half of a request, driven over the worker's machine and
// an in-process peer: the same code the client runs, without the worker hop.
async function ready(handlers: Handlers) {
  const transport = new ChannelTransport(mcpPeer(handlers), { pid: 4242, drain: true });
  const machine = new ClientMachine(transport, {
    name: "peer",
    clock: new ManualClock(),
    era: "legacy",
  });
  const started = await machine.connect();
  assert.ok(started.ok, JSON.stringify(started));
  const page: PageRequest = (params, timeoutMs) =>
    new Promise<Result<JsonValue, ClientError>>((resolve) => {
      machine.send("tools/list", params, timeoutMs, resolve);
    });
  return { machine, peer: transport.peer, page };
}

Deno.test("listAllTools() follows cursors, and refuses loops and floods", async (t) => {
  await t.step("three pages", async () => {
    const { machine, page } = await ready({
      "tools/list": (m) => {
        const n = Number(m.params?.cursor ?? 0);
        const tools = [{ name: `t${n}`, inputSchema: {} }];
        return { result: n < 2 ? { tools, nextCursor: String(n + 1) } : { tools } };
      },
    });
    const listed = await listAllTools("peer", page, { timeoutMs: 500 });
    assert.deepEqual(listed.ok && listed.value.map((tool) => tool.name), ["t0", "t1", "t2"]);
    assert.ok((await machine.retire()).ok);
  });
  await t.step("a repeated cursor", async () => {
    const { machine, page } = await ready({
      "tools/list": () => ({ result: { tools: [], nextCursor: "again" } }),
    });
    const listed = await listAllTools("peer", page, { timeoutMs: 500 });
    assert.ok(!listed.ok && listed.error.kind === "result_malformed");
    assert.match(listed.error.message, /repeated the tools\/list cursor "again"/);
    assert.ok((await machine.retire()).ok);
  });
  await t.step("more than MAX_TOOL_PAGES pages", async () => {
    let pages = 0;
    const { machine, page } = await ready({
      "tools/list": () => ({ result: { tools: [], nextCursor: `c${++pages}` } }),
    });
    const listed = await listAllTools("peer", page, { timeoutMs: 500 });
    assert.ok(!listed.ok && listed.error.kind === "too_many_pages");
    assert.equal(pages, MAX_TOOL_PAGES);
    assert.ok((await machine.retire()).ok);
  });
  await t.step("a lying tool", async () => {
    const { machine, page } = await ready({
      "tools/list": () => ({ result: { tools: [{ name: "ok", inputSchema: {} }, { name: "" }] } }),
    });
    const listed = await listAllTools("peer", page, { timeoutMs: 500 });
    assert.ok(!listed.ok && listed.error.kind === "result_malformed");
    assert.match(listed.error.message, /page 1: .*tool 1/);
    assert.ok((await machine.retire()).ok);
  });
});

Deno.test("decodeCallResult() keeps protocol outcomes as values and refuses a lie", async (t) => {
  await t.step("a result", () => {
    const decoded = decodeCallResult("peer", { content: [{ type: "text", text: "hi" }] });
    assert.ok(decoded.ok);
    assert.deepEqual(decoded.value.content, [{ type: "text", text: "hi" }]);
  });
  await t.step("an isError result", () => {
    const decoded = decodeCallResult("peer", {
      content: [{ type: "text", text: "bad" }],
      isError: true,
    });
    assert.ok(decoded.ok && decoded.value.isError);
  });
  await t.step("a malformed result", () => {
    const decoded = decodeCallResult("peer", { content: "not an array" });
    assert.ok(!decoded.ok);
    assert.equal(decoded.error.kind, "result_malformed");
    assert.match(decoded.error.message, /Server "peer" sent a malformed result/);
  });
});

Deno.test("a call's arguments reach the wire exactly, big integers and all", async () => {
  const { machine, peer } = await ready({});
  const outcome = await new Promise<Result<JsonValue, ClientError>>((resolve) => {
    machine.send(
      "tools/call",
      callParams("echo", { big: 12345678901234567890n, s: "é" }),
      500,
      resolve,
    );
  });
  assert.ok(outcome.ok);
  assert.match(peer.written.at(-1) ?? "", /"arguments":\{"big":12345678901234567890,"s":"é"\}/);
  assert.ok((await machine.retire()).ok);
});
