// `loom-mcp serve --http` as a host meets it: the real command line on a free
// loopback port, in front of the governed fixture, driven over Streamable
// HTTP by the official SDK clients (v1; v2 in either era) and the Inspector
// CLI. One serve process per group of behaviours.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "@modelcontextprotocol/client";
import { catalogFolder, GOVERNED_TOML } from "./_cli.ts";
import {
  assertEveryKind,
  belowWithSandbox,
  liveAfterAWhile,
  serveHttp,
  withServing,
} from "./_serving.ts";

const TOKEN = "serve-http-test-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };

type Block = { type: string; text?: string };

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Block[])[0]?.text ?? "";
}

const READ_NOTE = 'import { read_note } from "./mcp/gov.ts";\n' +
  "export default (await read_note({})).text;\n";
const REFUSED = "const n: number = 'x';\nexport default n;\n";
const DELETE_ALL =
  'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n';
const ECHO =
  'import { echo } from "./mcp/gov.ts";\nexport default (await echo({ text: "approved" })).text;\n';

async function governed<T>(body: (catalog: string) => Promise<T>): Promise<T> {
  const dir = await catalogFolder("loom-serve-http-", GOVERNED_TOML);
  try {
    return await body(`${dir}/loom.toml`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the SDK v1 client drives loom-mcp serve --http through every code-mode behaviour", async (t) => {
  await governed(async (catalog) => {
    const args = ["--catalog", catalog, "--deny-tool", "gov.delete_all", "--approve"];
    const stderr = await withServing(args, TOKEN, async (serving) => {
      const answers = { next: "accept", asked: [] as string[] };
      const client = new Client({ name: "host-http", version: "1.0.0" }, {
        capabilities: { elicitation: {} },
      });
      client.setRequestHandler(ElicitRequestSchema, (request: { params: { message: unknown } }) => {
        answers.asked.push(String(request.params.message));
        return Promise.resolve(
          answers.next === "accept" ? { action: "accept", content: {} } : { action: "decline" },
        );
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(serving.url), { requestInit: { headers: AUTH } }),
      );
      try {
        await t.step("lists the three tools and no other", async () => {
          const listed = await client.listTools();
          assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name).sort(), [
            "describe_tool",
            "run_program",
            "search_tools",
          ]);
        });
        await t.step("runs a program and returns its value", async () => {
          const result = await client.callTool({
            name: "run_program",
            arguments: { code: READ_NOTE },
          });
          assert.equal(result.isError, undefined, textOf(result));
          assert.equal((result.structuredContent as { value: unknown }).value, "called read-note");
        });
        await t.step("gives a refused program's diagnostics as an isError result", async () => {
          const result = await client.callTool({
            name: "run_program",
            arguments: { code: REFUSED },
          });
          assert.equal(result.isError, true);
          assert.match(textOf(result), /program\.ts:1:7 - TS2322/);
        });
        await t.step("keeps a denied tool out of reach", async () => {
          const result = await client.callTool({
            name: "run_program",
            arguments: { code: DELETE_ALL },
          });
          assert.equal(result.isError, true);
          assert.match(textOf(result), /delete_all/);
        });
        await t.step("asks the host before a call; accepted, it goes", async () => {
          answers.next = "accept";
          const result = await client.callTool({ name: "run_program", arguments: { code: ECHO } });
          assert.equal(result.isError, undefined, textOf(result));
          assert.equal((result.structuredContent as { value: unknown }).value, "approved");
          assert.match(answers.asked.at(-1) ?? "", /"echo" of the MCP server "gov"/);
        });
        await t.step("declined by the host's user, the call is denied", async () => {
          answers.next = "decline";
          const result = await client.callTool({ name: "run_program", arguments: { code: ECHO } });
          assert.equal(result.isError, true);
          assert.match(textOf(result), /declined gov\.echo/);
        });
      } finally {
        await client.close();
      }
      await t.step("refuses a request without the token with 401", async () => {
        const response = await fetch(serving.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        });
        await response.body?.cancel();
        assert.equal(response.status, 401);
      });
      await t.step("refuses a foreign Origin with 403", async () => {
        const response = await fetch(serving.url, {
          method: "POST",
          headers: {
            ...AUTH,
            origin: "http://evil.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        });
        await response.body?.cancel();
        assert.equal(response.status, 403);
      });
    });
    assert.match(stderr, /retired:/);
  });
});

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`the SDK v2 client in the ${era} era runs a program through loom-mcp serve --http, approval answered`, async () => {
    await governed(async (catalog) => {
      await withServing(["--catalog", catalog, "--approve"], TOKEN, async (serving) => {
        const client = new ClientV2({ name: "host-v2-http", version: "1.0.0" }, {
          ...(era === "modern" ? { versionNegotiation: { mode: "auto" as const } } : {}),
          capabilities: { elicitation: { form: {} } },
        });
        const asked: string[] = [];
        client.setRequestHandler(
          "elicitation/create",
          (request: { params: { message: string } }) => {
            asked.push(request.params.message);
            return Promise.resolve({ action: "accept", content: {} });
          },
        );
        await client.connect(
          new StreamableHTTPClientTransportV2(new URL(serving.url), {
            requestInit: { headers: AUTH },
          }),
        );
        try {
          assert.equal(client.getProtocolEra(), era);
          const listed = await client.listTools();
          assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), [
            "describe_tool",
            "run_program",
            "search_tools",
          ]);
          const refused = await client.callTool({
            name: "run_program",
            arguments: { code: REFUSED },
          });
          assert.equal(refused.isError, true);
          assert.match(textOf(refused), /program\.ts:1:7 - TS2322/);
          const result = await client.callTool({ name: "run_program", arguments: { code: ECHO } });
          assert.equal(
            (result.structuredContent as { value: unknown }).value,
            "approved",
            textOf(result),
          );
          assert.match(asked[0] ?? "", /"echo" of the MCP server "gov"/);
        } finally {
          await client.close();
        }
      });
    });
  });
}

function hasNpx(): boolean {
  try {
    return new Deno.Command("sh", { args: ["-c", "command -v npx"], stdout: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

async function inspector(url: string, args: string[]): Promise<Record<string, unknown>> {
  const output = await new Deno.Command("npx", {
    args: [
      "-y",
      "@modelcontextprotocol/inspector@2.12.0",
      "--cli",
      url,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${TOKEN}`,
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  // The Inspector exits non-zero on an isError result, the result still on stdout.
  assert.ok(output.success || /tool_is_error/.test(stderr), `the Inspector CLI failed: ${stderr}`);
  assert.ok(stdout.trim() !== "", `the Inspector CLI printed no result: ${stderr}`);
  return JSON.parse(stdout);
}

Deno.test({
  name: "the Inspector CLI drives loom-mcp serve --http: tools, a run, a refusal, a denial",
  ignore: !hasNpx(),
  fn: async (t) => {
    await governed(async (catalog) => {
      const args = ["--catalog", catalog, "--deny-tool", "gov.delete_all", "--approve"];
      await withServing(args, TOKEN, async (serving) => {
        const run = (code: string) =>
          inspector(serving.url, [
            "--method",
            "tools/call",
            "--tool-name",
            "run_program",
            "--tool-arg",
            `code=${code}`,
          ]);
        await t.step("lists the three tools and no other", async () => {
          const listed = await inspector(serving.url, ["--method", "tools/list"]);
          const names = (listed.tools as { name: string }[]).map((tool) => tool.name).sort();
          assert.deepEqual(names, ["describe_tool", "run_program", "search_tools"]);
        });
        await t.step("runs a program and returns its value", async () => {
          const called = await run(READ_NOTE);
          assert.equal((called.structuredContent as { value: unknown }).value, "called read-note");
        });
        await t.step("gives a refused program's diagnostics", async () => {
          const called = await run(REFUSED);
          assert.equal(called.isError, true);
          assert.match(textOf(called), /program\.ts:1:7 - TS2322/);
        });
        await t.step("keeps a denied tool out of reach", async () => {
          const called = await run(DELETE_ALL);
          assert.equal(called.isError, true);
          assert.match(textOf(called), /delete_all/);
        });
        await t.step(
          "denies a call it must approve, the Inspector being unable to elicit",
          async () => {
            const called = await run(ECHO);
            assert.equal(called.isError, true);
            assert.match(textOf(called), /gov\.echo/);
          },
        );
      });
    });
  },
});

// A program run through serve --http, then the host goes by `signal`: every process below it gone.
async function leaveBy(signal: "SIGTERM" | "SIGINT"): Promise<void> {
  await governed(async (catalog) => {
    const serving = await serveHttp(["--catalog", catalog], TOKEN);
    let seen: ReturnType<typeof serving.descendants> = [];
    let stopped;
    try {
      const client = new Client({ name: "host-leaving", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(serving.url), { requestInit: { headers: AUTH } }),
      );
      try {
        const result = await client.callTool({
          name: "run_program",
          arguments: { code: READ_NOTE },
        });
        assert.equal((result.structuredContent as { value: unknown }).value, "called read-note");
        seen = await belowWithSandbox(serving.pid);
      } finally {
        await client.close();
      }
    } finally {
      stopped = await serving.stop(signal);
    }
    assertEveryKind(seen, /governed_tools\.ts/);
    assert.deepEqual(await liveAfterAWhile(seen), [], stopped.stderr);
    assert.match(stopped.stderr, /retired:\n\s+gov\s+exited/);
  });
}

Deno.test("loom-mcp serve --http leaves no server, checker or sandbox behind at SIGTERM", async () => {
  await leaveBy("SIGTERM");
});

Deno.test("loom-mcp serve --http leaves no server, checker or sandbox behind at SIGINT", async () => {
  await leaveBy("SIGINT");
});
