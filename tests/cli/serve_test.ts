// `loom-mcp serve` as a host meets it: the real command line, spawned by the
// official SDK client over stdio, in front of fixture servers.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { argv, catalogFolder, GOVERNED_TOML, tomlEntry } from "./_cli.ts";

type Block = { type: string; text?: string };
type Answer = "accept" | "decline";

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Block[])[0]?.text ?? "";
}

// A host declaring form elicitation, whose user answers `answers.next` to every approval.
async function connect(args: string[], answers: { next: Answer; asked: string[] }) {
  const [command, ...rest] = argv(args) as [string, ...string[]];
  const transport = new StdioClientTransport({ command, args: rest, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "host", version: "1.0.0" }, {
    capabilities: { elicitation: {} },
  });
  client.setRequestHandler(ElicitRequestSchema, (request: { params: { message: unknown } }) => {
    answers.asked.push(String(request.params.message));
    return Promise.resolve(
      answers.next === "accept" ? { action: "accept", content: {} } : { action: "decline" },
    );
  });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

const HOLD = tomlEntry("hold", "progress_then_hold.ts");

Deno.test("loom-mcp serve drives code mode for an SDK host over stdio", async (t) => {
  const dir = await catalogFolder("loom-serve-", GOVERNED_TOML + HOLD);
  const answers = { next: "accept" as Answer, asked: [] as string[] };
  const host = await connect(
    ["--catalog", `${dir}/loom.toml`, "--deny-tool", "gov.delete_all", "--approve", "serve"],
    answers,
  );
  try {
    await t.step("lists the three tools and no other", async () => {
      const listed = await host.client.listTools();
      assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name).sort(), [
        "describe_tool",
        "run_program",
        "search_tools",
      ]);
      const run = listed.tools.find((tool: { name: string }) => tool.name === "run_program");
      assert.match(run?.description ?? "", /mcp\/gov\.ts \(server "gov"/);
    });

    await t.step("runs a program and returns its value", async () => {
      const result = await host.client.callTool({
        name: "run_program",
        arguments: {
          code: 'import { read_note } from "./mcp/gov.ts";\n' +
            "export default { note: (await read_note({})).text };\n",
        },
      });
      assert.equal(result.isError, undefined, textOf(result));
      assert.deepEqual((result.structuredContent as { value: unknown }).value, {
        note: "called read-note",
      });
    });

    await t.step("gives a refused program's diagnostics as an isError result", async () => {
      const result = await host.client.callTool({
        name: "run_program",
        arguments: { code: "const n: number = 'x';\nexport default n;\n" },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /program\.ts:1:7 - TS2322/);
    });

    await t.step("keeps a denied tool out of reach", async () => {
      const result = await host.client.callTool({
        name: "run_program",
        arguments: {
          code: 'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n',
        },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /delete_all/);
    });

    const echo = {
      name: "run_program",
      arguments: {
        code: 'import { echo } from "./mcp/gov.ts";\n' +
          'export default (await echo({ text: "approved" })).text;\n',
      },
    };
    await t.step("asks the host before a call not marked read-only; accepted, it goes", async () => {
      answers.next = "accept";
      const result = await host.client.callTool(echo);
      assert.equal(result.isError, undefined, textOf(result));
      assert.equal((result.structuredContent as { value: unknown }).value, "approved");
      assert.match(answers.asked.at(-1) ?? "", /"echo" of the MCP server "gov"/);
    });

    await t.step("declined by the host's user, the call is denied", async () => {
      answers.next = "decline";
      const result = await host.client.callTool(echo);
      assert.equal(result.isError, true);
      assert.match(textOf(result), /declined gov\.echo/);
    });

    await t.step("passes a call's progress on, and the host's cancellation ends the call", async () => {
      const cancel = new AbortController();
      const heard: string[] = [];
      const call = host.client.callTool({
        name: "run_program",
        arguments: {
          code: 'import { hold } from "./mcp/hold.ts";\nexport default await hold({});\n',
        },
      }, undefined, {
        signal: cancel.signal,
        onprogress: (progress: { message?: string }) => {
          heard.push(String(progress.message));
          if (/holding/.test(String(progress.message))) cancel.abort();
        },
      });
      await assert.rejects(call);
      assert.ok(heard.some((message) => /call 1: 1 of 2: holding/.test(message)), heard.join());
      // The server has heard the cancellation of its call once the witness says so.
      let witnessed = "[]";
      for (let tries = 0; tries < 50 && witnessed === "[]"; tries++) {
        const result = await host.client.callTool({
          name: "run_program",
          arguments: {
            code: 'import { witness } from "./mcp/hold.ts";\n' +
              "export default (await witness({})).text;\n",
          },
        });
        witnessed = String((result.structuredContent as { value: unknown }).value);
      }
      assert.notEqual(witnessed, "[]");
    });
  } finally {
    await host.client.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.match(host.stderr(), /serving 2 of 2 servers/);
  assert.match(host.stderr(), /retired:/);
});
