import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/mod.ts";
import { GATEWAY_TOOLS, hostHandlers } from "../../gateway/mod.ts";
import { GatewaySession } from "../../gateway/session.ts";
import { fixture } from "../client/_fixtures.ts";
import { type Message, ScriptedHost, textOf } from "./_host.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";
import { MAX_REPORT_DEPTH } from "../../limits.ts";

const GOVERNED = fixture("gov", "governed_tools.ts", { flags: ["--allow-env=DESCRIPTION"] });
const QUICK = { retirementTimeoutMs: 5_000 };

async function withHarness(body: (harness: Harness) => Promise<void>): Promise<void> {
  const harness = await boot([GOVERNED], QUICK);
  try {
    await body(harness);
  } finally {
    await harness.retire();
  }
}

const ECHO = 'import { echo } from "./mcp/gov.ts";\n' +
  'const said = await echo({ text: "hi" });\nconsole.log("said", said.text);\n' +
  "export default { said: said.text };\n";

Deno.test(
  "tools/list gives exactly the three tools, run_program's description carrying the surface",
  OPENS_CUSTODIAN,
  async () => {
    await withHarness(async (harness) => {
      const host = new ScriptedHost(harness);
      await host.initialize();
      const listed = await host.call("tools/list");
      const tools = listed.result.tools as { name: string; description: string }[];
      assert.deepEqual(tools.map((tool) => tool.name), [...GATEWAY_TOOLS]);
      const run = tools.find((tool) => tool.name === "run_program");
      assert.ok(run?.description.includes(harness.surface));
      assert.equal((await host.leave()).kind, "end_of_input");
    });
  },
);

Deno.test("run_program returns the value as text and structuredContent, with its logs and calls", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness);
    await host.initialize();
    const answer = await host.call("tools/call", {
      name: "run_program",
      arguments: { code: ECHO },
    });
    const result = answer.result;
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.deepEqual(result.structuredContent.value, { said: "hi" });
    assert.deepEqual(result.structuredContent.logs, ["said hi"]);
    assert.equal(result.structuredContent.calls[0].tool, "echo");
    assert.equal(result.structuredContent.calls[0].ok, true);
    assert.match(textOf(result), /"said": "hi"[\s\S]*Console output:\nsaid hi[\s\S]*gov\.echo ok/);
    await host.leave();
  });
});

Deno.test("a program's value nested past MAX_REPORT_DEPTH is answered, the depth cut with a marker", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness);
    await host.initialize();
    const answer = await host.call("tools/call", {
      name: "run_program",
      arguments: {
        code: "let o: unknown = 1;\nfor (let i = 0; i < 300; i++) o = [o];\nexport default o;\n",
      },
    });
    let value = answer.result.structuredContent.value;
    for (let level = 0; level < MAX_REPORT_DEPTH; level++) value = value[0];
    assert.deepEqual(value, {
      $unrepresentable: "nested deeper than 200 levels (MAX_REPORT_DEPTH)",
    });
    // The session goes on.
    assert.deepEqual((await host.call("ping")).result, {});
    await host.leave();
  });
});

Deno.test("a request whose params are no object is refused by its own id", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness);
    await host.initialize();
    host.send({ id: 41, method: "tools/list", params: null });
    const refused = await host.next((message) => message.id === 41);
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.message, /"params" of "tools\/list" is null, not an object/);
    await host.leave();
  });
});

Deno.test("a program the check refuses is an isError result carrying the harness's diagnostics", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness);
    await host.initialize();
    const code = 'import { echo } from "./mcp/gov.ts";\nexport default await echo({ text: 3 });\n';
    const direct = await harness.run(code);
    assert.equal(direct.outcome.kind, "rejected");
    const answer = await host.call("tools/call", { name: "run_program", arguments: { code } });
    assert.equal(answer.result.isError, true);
    const diagnostics = direct.outcome.kind === "rejected" ? direct.outcome.diagnostics : [];
    const { formatDiagnostics } = await import("../../harness/mod.ts");
    assert.ok(textOf(answer.result).includes(formatDiagnostics(diagnostics)));
    assert.equal(answer.result.structuredContent.diagnostics.length, diagnostics.length);
    await host.leave();
  });
});

Deno.test("search_tools names server, tool, function and signature; describe_tool gives the block", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness);
    await host.initialize();
    const found = await host.call("tools/call", {
      name: "search_tools",
      arguments: { query: "delete everything", limit: 2 },
    });
    const first = found.result.structuredContent.matches[0];
    assert.deepEqual([first.server, first.tool, first.name], ["gov", "delete_all", "delete_all"]);
    assert.match(
      textOf(found.result),
      /gov\.delete_all \(import \{ delete_all \} from "\.\/mcp\/gov\.ts"\)/,
    );
    const described = await host.call("tools/call", {
      name: "describe_tool",
      arguments: { server: "gov", tool: "delete_all" },
    });
    const block = harness.describe("gov", "delete_all");
    assert.ok(block.ok);
    assert.equal(textOf(described.result), block.value);
    // As data too: the wire name and the schema the server listed, which a command line types by.
    const report = harness.reports.get("gov");
    assert.ok(report?.state === "ready");
    assert.deepEqual(described.result.structuredContent, {
      server: "gov",
      tool: "delete_all",
      inputSchema: report.tools.find((tool) => tool.name === "delete_all")?.inputSchema,
    });
    const unknown = await host.call("tools/call", {
      name: "describe_tool",
      arguments: { server: "gov", tool: "nope" },
    });
    assert.equal(unknown.result.isError, true);
    await host.leave();
  });
});

Deno.test("a host's first search_tools or describe_tool starts code mode; tools/list does not", async (t) => {
  for (
    const [tool, args] of [
      ["search_tools", { query: "echo" }],
      ["describe_tool", { server: "gov", tool: "echo" }],
    ] as const
  ) {
    await t.step(tool, async () => {
      await withHarness(async (harness) => {
        const host = new ScriptedHost(harness);
        await host.initialize();
        await host.call("tools/list");
        assert.equal(harness.runnerStats().checker.state, "idle");
        assert.equal(harness.runnerStats().warm, false);
        const answer = await host.call("tools/call", { name: tool, arguments: args });
        assert.equal(answer.result.isError, undefined, JSON.stringify(answer.result));
        assert.notEqual(harness.runnerStats().checker.state, "idle");
        assert.equal(harness.runnerStats().warm, true);
        const run = await host.call("tools/call", {
          name: "run_program",
          arguments: { code: ECHO },
        });
        assert.deepEqual(run.result.structuredContent.value, { said: "hi" });
        assert.equal(harness.runnerStats().warmRuns, 1);
        await host.leave();
      });
    });
  }
});

Deno.test("--approve asks the host by form elicitation, naming server, tool and arguments; accepted, the call goes", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness, { approve: true });
    await host.initialize({ elicitation: { form: {} } });
    const code = 'import { delete_all, read_note } from "./mcp/gov.ts";\n' +
      "await read_note({});\nexport default (await delete_all({})).text;\n";
    const id = host.request("tools/call", { name: "run_program", arguments: { code } });
    const asked = await host.next((message) => message.method === "elicitation/create");
    assert.match(
      asked.params.message,
      /"delete_all" of the MCP server "gov" with the arguments "\{\}"/,
    );
    assert.equal(
      host.messages().filter((message) => message.method === "elicitation/create").length,
      1,
      "the read-only tool is not asked about",
    );
    host.send({ id: asked.id, result: { action: "accept", content: {} } });
    const answer = await host.next((message) => message.id === id && "result" in message);
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer.result));
    assert.equal(answer.result.structuredContent.value, "called delete_all");
    await host.leave();
  });
});

Deno.test("--approve declined by the host denies the call, and the program's failure says so", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness, { approve: true });
    await host.initialize({ elicitation: {} });
    const code =
      'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n';
    const id = host.request("tools/call", { name: "run_program", arguments: { code } });
    const asked = await host.next((message) => message.method === "elicitation/create");
    host.send({ id: asked.id, result: { action: "decline" } });
    const answer = await host.next((message) => message.id === id && "result" in message);
    assert.equal(answer.result.isError, true);
    assert.match(textOf(answer.result), /declined gov\.delete_all/);
    await host.leave();
  });
});

Deno.test("--approve with a host that cannot elicit denies the call, saying why", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness, { approve: true });
    await host.initialize({});
    const code =
      'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n';
    const answer = await host.call("tools/call", { name: "run_program", arguments: { code } });
    assert.equal(answer.result.isError, true);
    assert.match(textOf(answer.result), /declared no form elicitation capability/);
    assert.equal(host.messages().some((message) => message.method === "elicitation/create"), false);
    await host.leave();
  });
});

Deno.test("the host's progressToken gets progress while the program runs", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness);
    await host.initialize();
    const answer = await host.call("tools/call", {
      name: "run_program",
      arguments: { code: ECHO },
      _meta: { progressToken: "p1" },
    });
    assert.equal(answer.result.isError, undefined);
    const progress = host.messages().filter((message) =>
      message.method === "notifications/progress" && message.params.progressToken === "p1"
    );
    assert.ok(progress.length >= 1);
    assert.equal(progress[0]?.params.progress, 1);
    await host.leave();
  });
});

Deno.test("the host's cancellation ends the program and its call, and the request gets no answer", async () => {
  const harness = await boot([fixture("slow", "slow_tool.ts")], QUICK);
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  try {
    session.handle({ kind: "request", id: 0, method: "initialize", params: { capabilities: {} } });
    const code =
      'import { wait } from "./mcp/slow.ts";\nexport default await wait({ ms: 60000 });\n';
    session.handle({
      kind: "request",
      id: 1,
      method: "tools/call",
      params: { name: "run_program", arguments: { code } },
    });
    const slow = harness.census.clients.get("slow");
    // The call has reached the server once it says so on its stderr.
    for (let tries = 0; tries < 400 && !slow?.stderrTail().includes("waiting"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(session.running, 1);
    session.handle({
      kind: "notification",
      method: "notifications/cancelled",
      params: { requestId: 1 },
    });
    for (let tries = 0; tries < 400 && session.running > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(session.running, 0, "the program still runs after its cancellation");
    assert.equal(sent.some((message) => message.id === 1), false);
  } finally {
    await session.close();
    await harness.retire();
  }
});

Deno.test("a 2026-07-28 host is served statelessly and asked for approval through input_required", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness, { approve: true });
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    const listed = await host.call("tools/list", { _meta: meta });
    assert.equal(listed.result.resultType, "complete");
    assert.equal(listed.result.tools.length, 3);
    const code =
      'import { delete_all } from "./mcp/gov.ts";\nexport default (await delete_all({})).text;\n';
    const first = await host.call("tools/call", {
      name: "run_program",
      arguments: { code },
      _meta: meta,
    });
    assert.equal(first.result.resultType, "input_required");
    const [key, request] = Object.entries(first.result.inputRequests)[0] as [string, Message];
    assert.equal(request.method, "elicitation/create");
    const second = await host.call("tools/call", {
      name: "run_program",
      arguments: { code },
      inputResponses: { [key]: { action: "accept", content: {} } },
      requestState: first.result.requestState,
      _meta: meta,
    });
    assert.equal(second.result.resultType, "complete");
    assert.equal(second.result.structuredContent.value, "called delete_all");
    await host.leave();
  });
});

const ELICIT = 'import { elicit } from "./mcp/ask.ts";\n' +
  'const answer = await elicit({ params: { message: "Your name?", requestedSchema: ' +
  '{ type: "object", properties: { name: { type: "string" } } } } });\n' +
  "export default JSON.parse(answer.text);\n";

Deno.test("a downstream server's elicitation during a program goes up to the host and back", async () => {
  const harness = await boot([fixture("ask", "asking_server.ts")], { ...QUICK, ...hostHandlers() });
  try {
    const host = new ScriptedHost(harness);
    await host.initialize({ elicitation: { form: {} } });
    const id = host.request("tools/call", { name: "run_program", arguments: { code: ELICIT } });
    const asked = await host.next((message) => message.method === "elicitation/create");
    assert.match(asked.params.message, /^The MCP server "ask" asks: "Your name\?"$/);
    assert.deepEqual(asked.params.requestedSchema.properties, { name: { type: "string" } });
    host.send({ id: asked.id, result: { action: "accept", content: { name: "Ada" } } });
    const answer = await host.next((message) => message.id === id && "result" in message);
    assert.deepEqual(answer.result.structuredContent.value.result, {
      action: "accept",
      content: { name: "Ada" },
    });
    await host.leave();
  } finally {
    await harness.retire();
  }
});

Deno.test("a downstream server's elicitation is declined when the host cannot elicit", async () => {
  const harness = await boot([fixture("ask", "asking_server.ts")], { ...QUICK, ...hostHandlers() });
  try {
    const host = new ScriptedHost(harness);
    await host.initialize({});
    const answer = await host.call("tools/call", {
      name: "run_program",
      arguments: { code: ELICIT },
    });
    assert.equal(answer.result.structuredContent.value.result.action, "decline");
    assert.equal(host.messages().some((message) => message.method === "elicitation/create"), false);
    await host.leave();
  } finally {
    await harness.retire();
  }
});

Deno.test("two hosts' programs at once each get the questions of their own calls", async () => {
  const harness = await boot(
    [fixture("ask", "asking_server.ts"), fixture("other", "asking_server.ts")],
    { ...QUICK, ...hostHandlers() },
  );
  try {
    const first = new ScriptedHost(harness);
    const second = new ScriptedHost(harness);
    await first.initialize({ elicitation: { form: {} } });
    await second.initialize({ elicitation: { form: {} } });
    const elicitOf = (server: string) => ELICIT.replace("./mcp/ask.ts", `./mcp/${server}.ts`);
    const firstId = first.request("tools/call", {
      name: "run_program",
      arguments: { code: elicitOf("ask") },
    });
    const secondId = second.request("tools/call", {
      name: "run_program",
      arguments: { code: elicitOf("other") },
    });
    const askedFirst = await first.next((message) => message.method === "elicitation/create");
    const askedSecond = await second.next((message) => message.method === "elicitation/create");
    assert.match(askedFirst.params.message, /^The MCP server "ask" asks/);
    assert.match(askedSecond.params.message, /^The MCP server "other" asks/);
    first.send({ id: askedFirst.id, result: { action: "accept", content: { name: "Ada" } } });
    second.send({ id: askedSecond.id, result: { action: "accept", content: { name: "Bob" } } });
    const answerFirst = await first.next((m) => m.id === firstId && "result" in m);
    const answerSecond = await second.next((m) => m.id === secondId && "result" in m);
    assert.deepEqual(answerFirst.result.structuredContent.value.result.content, { name: "Ada" });
    assert.deepEqual(answerSecond.result.structuredContent.value.result.content, { name: "Bob" });
    for (const host of [first, second]) {
      const asked = host.messages().filter((message) => message.method === "elicitation/create");
      assert.equal(asked.length, 1, "each host is asked once, for its own program");
    }
    await first.leave();
    await second.leave();
  } finally {
    await harness.retire();
  }
});

Deno.test("an approval the run gave up on at its deadline is cancelled toward the host", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness, { approve: true, deadlineMs: 1_500 });
    await host.initialize({ elicitation: { form: {} } });
    const code =
      'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n';
    const id = host.request("tools/call", { name: "run_program", arguments: { code } });
    const asked = await host.next((message) => message.method === "elicitation/create");
    const answer = await host.next((message) => message.id === id && "result" in message);
    assert.equal(answer.result.isError, true);
    const cancelled = await host.next((message) =>
      message.method === "notifications/cancelled" && message.params.requestId === asked.id
    );
    assert.match(cancelled.params.reason, /the run ended before the host answered/);
    await host.leave();
  });
});

Deno.test("a forwarded question of a program the host cancelled is cancelled toward the host", async () => {
  const harness = await boot([fixture("ask", "asking_server.ts")], { ...QUICK, ...hostHandlers() });
  try {
    const host = new ScriptedHost(harness);
    await host.initialize({ elicitation: { form: {} } });
    const id = host.request("tools/call", { name: "run_program", arguments: { code: ELICIT } });
    const asked = await host.next((message) => message.method === "elicitation/create");
    host.send({ method: "notifications/cancelled", params: { requestId: id } });
    await host.next((message) =>
      message.method === "notifications/cancelled" && message.params.requestId === asked.id
    );
    await host.leave();
    assert.equal(host.messages().some((message) => message.id === id), false);
  } finally {
    await harness.retire();
  }
});

Deno.test("initialize is answered while a server still starts, and tools/list once the boot settled", async () => {
  let settled = false;
  const giveUp = new AbortController();
  // The silent server never answers its initialize: its start ends only when the boot gives up.
  const booting = boot([fixture("mute", "silent.ts")], { ...QUICK, signal: giveUp.signal })
    .finally(() => settled = true);
  const host = new ScriptedHost(booting);
  const opened = await host.initialize({});
  assert.equal(opened.result.serverInfo.name, "loom-mcp");
  assert.deepEqual(await host.call("ping"), { jsonrpc: "2.0", id: 2, result: {} });
  const listing = host.request("tools/list");
  assert.equal(settled, false);
  assert.equal(host.messages().some((message) => message.id === listing), false);
  giveUp.abort();
  const listed = await host.next((message) => message.id === listing);
  assert.equal(settled, true);
  assert.deepEqual(listed.result.tools.map((tool: Message) => tool.name), GATEWAY_TOOLS);
  await host.leave();
  await (await booting).retire();
});

Deno.test("a program past its deadline is an isError result that says so", async () => {
  const harness = await boot([fixture("slow", "slow_tool.ts")], QUICK);
  try {
    const host = new ScriptedHost(harness, { deadlineMs: 1_500 });
    await host.initialize();
    const code =
      'import { wait } from "./mcp/slow.ts";\nexport default await wait({ ms: 60000 });\n';
    const answer = await host.call("tools/call", { name: "run_program", arguments: { code } });
    assert.equal(answer.result.isError, true);
    assert.match(textOf(answer.result), /ran past its deadline of 1500 ms and was stopped/);
    await host.leave();
  } finally {
    await harness.retire();
  }
});

Deno.test("maxOutputBytes bounds what a program's result carries", async () => {
  await withHarness(async (harness) => {
    const host = new ScriptedHost(harness, { maxOutputBytes: 1_024 });
    await host.initialize();
    const answer = await host.call("tools/call", {
      name: "run_program",
      arguments: { code: 'export default "x".repeat(100_000);\n' },
    });
    assert.equal(answer.result.isError, undefined);
    assert.ok(textOf(answer.result).length < 2_048, `${textOf(answer.result).length} characters`);
    assert.match(textOf(answer.result), /more bytes/);
    await host.leave();
  });
});

Deno.test("a downstream server's sampling request during a program is answered by the host's model", async () => {
  const harness = await boot([fixture("ask", "asking_server.ts")], { ...QUICK, ...hostHandlers() });
  try {
    const host = new ScriptedHost(harness);
    await host.initialize({ sampling: {} });
    const code = 'import { sample } from "./mcp/ask.ts";\n' +
      "const answer = await sample({ params: { maxTokens: 10, messages: " +
      '[{ role: "user", content: { type: "text", text: "Capital of France?" } }] } });\n' +
      "export default JSON.parse(answer.text);\n";
    const id = host.request("tools/call", { name: "run_program", arguments: { code } });
    const asked = await host.next((message) => message.method === "sampling/createMessage");
    assert.equal(asked.params.messages[0].content.text, "Capital of France?");
    assert.equal("server" in asked.params, false);
    host.send({
      id: asked.id,
      result: { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" },
    });
    const answer = await host.next((message) => message.id === id && "result" in message);
    assert.equal(answer.result.structuredContent.value.result.content.text, "Paris");
    await host.leave();
  } finally {
    await harness.retire();
  }
});

Deno.test("a run parked for a 2026-07-28 host that never comes back ends, and its retry is told so", async () => {
  await withHarness(async (harness) => {
    const sent: Message[] = [];
    const session = new GatewaySession(harness, {
      send: (message) => sent.push(message),
      approve: true,
      parkedRunTimeoutMs: 300,
    });
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
    };
    const code =
      'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n';
    try {
      session.handle({
        kind: "request",
        id: 1,
        method: "tools/call",
        params: { name: "run_program", arguments: { code }, _meta: meta },
      });
      for (let tries = 0; tries < 400 && sent.length === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const state = sent[0]?.result?.requestState;
      assert.equal(sent[0]?.result?.resultType, "input_required");
      for (let tries = 0; tries < 400 && session.running > 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(session.running, 0, "the parked run still runs");
      session.handle({
        kind: "request",
        id: 2,
        method: "tools/call",
        params: {
          name: "run_program",
          arguments: { code },
          requestState: state,
          inputResponses: {},
          _meta: meta,
        },
      });
      const retry = sent.find((message) => message.id === 2);
      assert.equal(retry?.result?.isError, true);
      assert.match(retry?.result?.content[0].text, /names no run waiting for answers/);
    } finally {
      await session.close();
    }
  });
});

Deno.test("a question the downstream server withdraws is cancelled toward the host", async () => {
  const harness = await boot([fixture("ask", "asking_server.ts")], { ...QUICK, ...hostHandlers() });
  try {
    const host = new ScriptedHost(harness);
    await host.initialize({ elicitation: { form: {} } });
    // The server withdraws its question once the host has had time to be asked it.
    const code = 'import { elicit_withdrawable, withdraw } from "./mcp/ask.ts";\n' +
      'const asked = elicit_withdrawable({ params: { message: "Your name?", requestedSchema: ' +
      '{ type: "object", properties: { name: { type: "string" } } } } });\n' +
      "await new Promise((resolve) => setTimeout(resolve, 500));\n" +
      "await withdraw({});\n" +
      "export default JSON.parse((await asked).text);\n";
    const id = host.request("tools/call", { name: "run_program", arguments: { code } });
    const asked = await host.next((message) => message.method === "elicitation/create");
    const cancelled = await host.next((message) =>
      message.method === "notifications/cancelled" && message.params.requestId === asked.id
    );
    assert.match(cancelled.params.reason, /withdrew its question/);
    const answer = await host.next((message) => message.id === id && "result" in message);
    assert.deepEqual(answer.result.structuredContent.value, { responded: false });
    await host.leave();
  } finally {
    await harness.retire();
  }
});

Deno.test("a question withdrawn while a 2026-07-28 host holds no request is never put to it", async () => {
  const harness = await boot(
    [fixture("ask", "asking_server.ts"), fixture("other", "asking_server.ts")],
    { ...QUICK, ...hostHandlers() },
  );
  try {
    const host = new ScriptedHost(harness);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    const schema = '{ type: "object", properties: { name: { type: "string" } } }';
    // The second question (another server's) is asked once the host has the
    // first, and is withdrawn before the host comes back with the first one's answer.
    const code = 'import { elicit } from "./mcp/ask.ts";\n' +
      'import { elicit_withdrawable, withdraw } from "./mcp/other.ts";\n' +
      `const first = elicit({ params: { message: "Your name?", requestedSchema: ${schema} } });\n` +
      "await new Promise((resolve) => setTimeout(resolve, 200));\n" +
      `const second = elicit_withdrawable({ params: { message: "Your age?", requestedSchema: ${schema} } });\n` +
      "await new Promise((resolve) => setTimeout(resolve, 500));\n" +
      "await withdraw({});\n" +
      "export default { first: JSON.parse((await first).text), second: JSON.parse((await second).text) };\n";
    const opened = await host.call("tools/call", {
      name: "run_program",
      arguments: { code },
      _meta: meta,
    });
    assert.equal(opened.result.resultType, "input_required");
    const asked = Object.entries(opened.result.inputRequests) as [string, Message][];
    assert.equal(asked.length, 1);
    const [key, request] = asked[0]!;
    assert.match(request.params.message, /"Your name\?"$/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const answered = await host.call("tools/call", {
      name: "run_program",
      arguments: { code },
      inputResponses: { [key]: { action: "accept", content: { name: "Ada" } } },
      requestState: opened.result.requestState,
      _meta: meta,
    });
    assert.equal(
      answered.result.resultType,
      "complete",
      `the withdrawn question was put to the host: ${JSON.stringify(answered.result)}`,
    );
    assert.deepEqual(answered.result.structuredContent.value, {
      first: { result: { action: "accept", content: { name: "Ada" } } },
      second: { responded: false },
    });
    await host.leave();
  } finally {
    await harness.retire();
  }
});
