// Servers built on `serve`, driven by real MCP clients over real stdio: the
// official SDK client (v1), the SDK v2 client in automatic mode, and the
// Inspector CLI.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";

const EXAMPLE = new URL("../../examples/echo_server.ts", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/echo_server.ts", import.meta.url).pathname;
const DENO = Deno.execPath();
// Under `deno run npm:` the Inspector fails to resolve one of its optional
// dependencies, so it runs under Node through npx.
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

// The SDK clients' close() races the child's end against a 2 s timer it never
// clears (StdioClientTransport, v1 and v2 alike), so a test that closes one
// leaves its timers armed, and they fire in the test after it. They are the
// SDK's, not this library's: the sanitizers, which both count a timer, are
// off for those tests only.
const SDK_TIMERS = { sanitizeOps: false, sanitizeResources: false } as const;

type Block = { type: string; text?: string; _meta?: Record<string, unknown> };

async function collect(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  if (stream === null) return "";
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text;
}

Deno.test(
  "the official SDK client lists and calls tools of a server built on serve",
  SDK_TIMERS,
  async (t) => {
    const transport = new StdioClientTransport({
      command: DENO,
      args: ["run", "--no-prompt", "--allow-ffi", "--allow-run", EXAMPLE],
      stderr: "pipe",
    });
    const stderrChunks: string[] = [];
    transport.stderr?.on(
      "data",
      (chunk: Uint8Array) => stderrChunks.push(new TextDecoder().decode(chunk)),
    );
    const client = new Client({ name: "sdk-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      await t.step("lists the tools, sorted", async () => {
        const listed = await client.listTools();
        assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name), [
          "add",
          "echo",
          "fail",
          "noisy",
        ]);
      });
      await t.step("calls echo", async () => {
        const result = await client.callTool({ name: "echo", arguments: { text: "héllo" } });
        assert.deepEqual(result.content, [{ type: "text", text: "héllo" }]);
        assert.deepEqual(result.structuredContent, { text: "héllo" });
      });
      await t.step("calls add, whose output schema the client checks", async () => {
        const result = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
        assert.deepEqual(result.structuredContent, { sum: 42 });
      });
      await t.step("gets an isError result from a tool that throws", async () => {
        const result = await client.callTool({ name: "fail", arguments: {} });
        assert.equal(result.isError, true);
        assert.match((result.content as Block[])[0]?.text ?? "", /fail was asked to fail/);
      });
      await t.step("gets a run's stderr, its child's included, in the result", async () => {
        const result = await client.callTool({ name: "noisy", arguments: {} });
        const blocks = result.content as Block[];
        assert.equal(blocks[0]?.text, "done");
        assert.equal(
          blocks[1]?.text,
          "noisy: a line from the tool itself\nnoisy: a line through the tool context\n" +
            "noisy: a line from a child\n",
        );
        assert.equal(blocks[1]?._meta?.["loom/stderr"], true);
      });
    } finally {
      await client.close();
    }
    assert.doesNotMatch(stderrChunks.join(""), /noisy:/);
  },
);

Deno.test(
  "the SDK v2 client in automatic mode speaks 2026-07-28 and calls a tool",
  SDK_TIMERS,
  async () => {
    const transport = new StdioClientTransportV2({
      command: DENO,
      args: ["run", "--no-prompt", FIXTURE],
      stderr: "pipe",
    });
    const client = new ClientV2({ name: "sdk-v2-test", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
    });
    await client.connect(transport);
    try {
      assert.equal(client.getProtocolEra(), "modern");
      const result = await client.callTool({ name: "echo", arguments: { text: "v2" } });
      assert.deepEqual(result.content, [{ type: "text", text: "v2" }]);
    } finally {
      await client.close();
    }
  },
);

async function inspector(args: string[]): Promise<unknown> {
  const child = new Deno.Command("npx", {
    args: ["-y", INSPECTOR, "--cli", DENO, "run", "--no-prompt", FIXTURE, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    collect(child.stdout),
    collect(child.stderr),
  ]);
  assert.ok(status.success, `the Inspector CLI failed (${status.code}): ${stderr}`);
  return JSON.parse(stdout);
}

function hasNpx(): boolean {
  try {
    const found = new Deno.Command("sh", { args: ["-c", "command -v npx"], stdout: "null" })
      .outputSync();
    return found.success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "the Inspector CLI lists and calls tools of a server built on serve",
  ignore: !hasNpx(),
  // The SDK clients' timers of the tests above fire during this one.
  ...SDK_TIMERS,
  fn: async () => {
    const [listed, called] = await Promise.all([
      inspector(["--method", "tools/list"]),
      inspector(["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi"]),
    ]);
    const tools = (listed as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    assert.deepEqual(tools, ["add", "big", "echo", "echo_args", "fail", "sleep"]);
    assert.deepEqual((called as { content: Block[] }).content, [{ type: "text", text: "hi" }]);
  },
});
