// `loom-mcp serve` as a host meets it: the real command line, spawned by the
// official SDK client over stdio, in front of fixture servers.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { argv, catalogFolder, GOVERNED_TOML, tomlEntry } from "./_cli.ts";
import { isLive } from "../_proc.ts";
import { assertEveryKind, belowWithSandbox, liveAfterAWhile } from "./_serving.ts";
// The tests that drive serve with the SDK's stdio client, and those after them, take
// SDK_TIMERS: the client leaves a timer behind at close (tests/_lifetime.ts).
import { SDK_TIMERS } from "../_lifetime.ts";

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

Deno.test("loom-mcp serve drives code mode for an SDK host over stdio", SDK_TIMERS, async (t) => {
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
          code:
            'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});\n',
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
    await t.step(
      "asks the host before a call not marked read-only; accepted, it goes",
      async () => {
        answers.next = "accept";
        const result = await host.client.callTool(echo);
        assert.equal(result.isError, undefined, textOf(result));
        assert.equal((result.structuredContent as { value: unknown }).value, "approved");
        assert.match(answers.asked.at(-1) ?? "", /"echo" of the MCP server "gov"/);
      },
    );

    await t.step("declined by the host's user, the call is denied", async () => {
      answers.next = "decline";
      const result = await host.client.callTool(echo);
      assert.equal(result.isError, true);
      assert.match(textOf(result), /declined gov\.echo/);
    });

    await t.step(
      "passes a call's progress on, and the host's cancellation ends the call",
      async () => {
        const cancel = new AbortController();
        const heard: string[] = [];
        const call = host.client.callTool(
          {
            name: "run_program",
            arguments: {
              code: 'import { hold } from "./mcp/hold.ts";\nexport default await hold({});\n',
            },
          },
          undefined,
          {
            signal: cancel.signal,
            onprogress: (progress: { message?: string }) => {
              heard.push(String(progress.message));
              if (/holding/.test(String(progress.message))) cancel.abort();
            },
          },
        );
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
      },
    );
  } finally {
    await host.client.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.match(host.stderr(), /serving 2 of 2 servers/);
  assert.match(host.stderr(), /retired:/);
});

// The command line spawned bare, a program run through it, then the host goes as `leave` says.
async function serveUntil(leave: "stdin" | "SIGTERM"): Promise<void> {
  const dir = await catalogFolder("loom-serve-leave-", GOVERNED_TOML);
  const pins = `${dir}/pins.json`;
  const [command, ...args] = argv([
    "--catalog",
    `${dir}/loom.toml`,
    "--pins",
    pins,
    "serve",
  ]) as [string, ...string[]];
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const line = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const stderr = new Response(child.stderr).text();
  try {
    await line({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "h", version: "1" },
      },
    });
    await line({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "run_program",
        arguments: {
          code:
            'import { read_note } from "./mcp/gov.ts";\nexport default (await read_note({})).text;\n',
        },
      },
    });
    // Both answers read: the servers are up and a sandbox has run.
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    for (let reads = 0; reads < 1000 && !out.includes('"id":1,'); reads++) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.match(out, /called read-note/);
    const seen = await belowWithSandbox(child.pid);
    assertEveryKind(seen, /governed_tools\.ts/);
    if (leave === "stdin") await writer.close();
    else child.kill("SIGTERM");
    const rest = reader.read().then(async function drain(read): Promise<void> {
      if (!read.done) await reader.read().then(drain);
    });
    const status = await child.status;
    await rest;
    const said = await stderr;
    assert.equal(status.code, leave === "stdin" ? 0 : 130, said);
    const row = /gov\s+exited\s+code \d+\s+group drained.*pid (\d+)/.exec(said);
    assert.ok(row !== null, said);
    assert.equal(isLive(Number(row[1])), false);
    assert.deepEqual(await liveAfterAWhile(seen), [], said);
    const kept = JSON.parse(await Deno.readTextFile(pins));
    assert.ok("read-note" in kept.servers.gov, JSON.stringify(kept));
  } finally {
    if (leave === "SIGTERM") await writer.close().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test(
  "loom-mcp serve retires every server, checker and sandbox when the host closes stdin, and keeps the pins",
  SDK_TIMERS,
  async () => {
    await serveUntil("stdin");
  },
);

Deno.test(
  "loom-mcp serve retires every server, checker and sandbox at SIGTERM, and keeps the pins",
  SDK_TIMERS,
  async () => {
    await serveUntil("SIGTERM");
  },
);

Deno.test("serve knows an entry that is loom-mcp serve itself, by any of the CLI's names", async (t) => {
  const { isServeItself } = await import("../../cli/_serve.ts");
  const cases: [string, string[], boolean][] = [
    ["deno", ["run", "-A", "jsr:@loom/mcp/cli", "serve", "--user"], true],
    ["/usr/local/bin/loom-mcp", ["serve"], true],
    ["deno", ["run", "-A", "/src/loom/cli/main.ts", "serve"], true],
    ["deno", ["run", "-A", "jsr:@loom/mcp/cli", "tools"], false],
    ["npx", ["-y", "@modelcontextprotocol/server-memory", "serve"], false],
  ];
  for (const [command, args, itself] of cases) {
    await t.step(`${command} ${args.join(" ")}`, () => {
      assert.equal(isServeItself({ name: "x", command, args }), itself);
    });
  }
});

Deno.test(
  "the SDK v2 client in automatic mode meets loom-mcp serve in the 2026-07-28 era",
  SDK_TIMERS,
  async () => {
    const dir = await catalogFolder("loom-serve-v2-", GOVERNED_TOML);
    const [command, ...args] = argv(["--catalog", `${dir}/loom.toml`, "serve"]) as [
      string,
      ...string[],
    ];
    const client = new ClientV2({ name: "host-v2", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
    });
    await client.connect(new StdioClientTransportV2({ command, args, stderr: "pipe" }));
    try {
      assert.equal(client.getProtocolEra(), "modern");
      const listed = await client.listTools();
      assert.equal(listed.tools.length, 3);
      const result = await client.callTool({
        name: "run_program",
        arguments: {
          code:
            'import { read_note } from "./mcp/gov.ts";\nexport default (await read_note({})).text;\n',
        },
      });
      assert.equal((result.structuredContent as { value: unknown }).value, "called read-note");
    } finally {
      await client.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "the SDK v2 client answers serve's approval in the 2026-07-28 era through input_required",
  SDK_TIMERS,
  async () => {
    const dir = await catalogFolder("loom-serve-v2-ask-", GOVERNED_TOML);
    const [command, ...args] = argv(["--catalog", `${dir}/loom.toml`, "--approve", "serve"]) as [
      string,
      ...string[],
    ];
    const client = new ClientV2({ name: "host-v2", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
      capabilities: { elicitation: { form: {} } },
    });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", (request: { params: { message: string } }) => {
      asked.push(request.params.message);
      return Promise.resolve({ action: "accept", content: {} });
    });
    await client.connect(new StdioClientTransportV2({ command, args, stderr: "pipe" }));
    try {
      assert.equal(client.getProtocolEra(), "modern");
      const result = await client.callTool({
        name: "run_program",
        arguments: {
          code:
            'import { echo } from "./mcp/gov.ts";\nexport default (await echo({ text: "v2" })).text;\n',
        },
      });
      assert.equal((result.structuredContent as { value: unknown }).value, "v2");
      assert.match(asked[0] ?? "", /"echo" of the MCP server "gov"/);
    } finally {
      await client.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

function hasNpx(): boolean {
  try {
    return new Deno.Command("sh", { args: ["-c", "command -v npx"], stdout: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

// The Inspector takes --config for itself, so the command line is run without it.
async function inspector(catalog: string, args: string[]): Promise<Record<string, unknown>> {
  const cli = new URL("../../cli/main.ts", import.meta.url).pathname;
  const output = await new Deno.Command("npx", {
    args: [
      "-y",
      "@modelcontextprotocol/inspector@2.12.0",
      "--cli",
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      cli,
      "serve",
      catalog,
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.ok(output.success, `the Inspector CLI failed: ${new TextDecoder().decode(output.stderr)}`);
  return JSON.parse(stdout);
}

Deno.test({
  name: "the Inspector CLI lists serve's three tools and runs a program through it",
  ...SDK_TIMERS,
  ignore: !hasNpx(),
  fn: async () => {
    const dir = await catalogFolder("loom-serve-inspector-", GOVERNED_TOML);
    try {
      const catalog = `${dir}/loom.toml`;
      const listed = await inspector(catalog, ["--method", "tools/list"]);
      const names = (listed.tools as { name: string }[]).map((tool) => tool.name);
      assert.deepEqual(names, ["describe_tool", "run_program", "search_tools"]);
      const called = await inspector(catalog, [
        "--method",
        "tools/call",
        "--tool-name",
        "run_program",
        "--tool-arg",
        "code=export default 6 * 7;",
      ]);
      assert.equal((called.structuredContent as { value: unknown }).value, 42);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * `loom-mcp <args>` spawned as a host spawns it, its stdin open; the host's
 * initialize sent, and the first line it answers read.
 */
async function serveStarted(args: string[]) {
  const [command, ...rest] = argv(args);
  const child = new Deno.Command(command as string, {
    args: rest,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "h", version: "1" },
      },
    }) + "\n",
  ));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 100 && !text.includes("\n"); i++) {
    const read = await reader.read();
    if (read.done) break;
    text += read.value;
  }
  return { child, writer, reader, answer: JSON.parse(text.split("\n")[0] ?? "null") };
}

Deno.test(
  "loom-mcp serve answers the host's initialize while a server is still starting",
  SDK_TIMERS,
  async () => {
    const { child, writer, reader, answer } = await serveStarted([
      "serve",
      "--stdio",
      `${Deno.execPath()} run --quiet --no-lock ${
        new URL("../fixtures/silent.ts", import.meta.url).pathname
      }`,
      "--name",
      "mute",
      "--connect-timeout",
      "10m",
    ]);
    assert.equal(answer.id, 1);
    assert.equal(answer.result.serverInfo.name, "loom-mcp");
    // The silent server's start has ten minutes left: only SIGTERM ends the boot now.
    child.kill("SIGTERM");
    await writer.close().catch(() => {});
    for (;;) if ((await reader.read()).done) break;
    const stderr = await new Response(child.stderr).text();
    await child.status;
    assert.match(stderr, /mute\s+cancelled/);
    assert.match(stderr, /retired:\n\s+mute\s+exited/);
  },
);

Deno.test("a host that closes stdin while a server still starts ends serve at once, the start given up", async () => {
  const dir = await catalogFolder(
    "loom-serve-leave-",
    GOVERNED_TOML + tomlEntry("silent", "silent.ts", "connect_timeout_ms = 60000"),
  );
  try {
    const { child, writer, reader, answer } = await serveStarted([
      "--catalog",
      `${dir}/loom.toml`,
      "serve",
    ]);
    assert.equal(answer.id, 1);
    await writer.close();
    const [status, stderr] = await Promise.all([
      child.status,
      new Response(child.stderr).text(),
      reader.cancel(),
    ]);
    assert.equal(status.code, 0, stderr);
    // Well before the silent server's 60 s connect timeout: its start was given up.
    assert.match(stderr, /the host closed stdin; retiring every server/);
    assert.doesNotMatch(stderr, /serving \d+ of \d+ servers/);
    assert.match(stderr, /silent +exited/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
