import assert from "node:assert/strict";
import { isLive } from "../_proc.ts";

const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const ECHO = new URL("../fixtures/echo_server.ts", import.meta.url).pathname;
const ECHO_COMMAND = `${Deno.execPath()} run --quiet --no-lock ${ECHO}`;

type Run = { code: number; stdout: string; stderr: string };

function command(cwd: string, args: string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", "--config", CONFIG, CLI, "--trust", ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  });
}

async function cli(cwd: string, ...args: string[]): Promise<Run> {
  const output = await command(cwd, args).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

const echoEntry = {
  command: Deno.execPath(),
  args: ["run", "--quiet", "--no-lock", ECHO],
};

Deno.test("the command line speaks JSON, lists tools, takes --stdio and key=value, reads real config files", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-cli-" }));
  try {
    const vscode = `${dir}/vscode`;
    const codex = `${dir}/codex`;
    const claude = `${dir}/claude`;
    for (const folder of [vscode, `${vscode}/.vscode`, codex, claude]) await Deno.mkdir(folder);
    await Deno.writeTextFile(
      `${vscode}/.vscode/mcp.json`,
      JSON.stringify({ servers: { Echo: { type: "stdio", ...echoEntry } } }),
    );
    await Deno.writeTextFile(
      `${codex}/loom.toml`,
      `[mcpServers.echo]\ncommand = ${JSON.stringify(Deno.execPath())}\n`,
    );
    await Deno.writeTextFile(
      `${claude}/.mcp.json`,
      JSON.stringify({
        mcpServers: {
          echo: echoEntry,
          notion: { type: "sse", url: "https://mcp.notion.com/sse" },
          old: { ...echoEntry, disabled: true },
        },
      }),
    );
    const [checkJson, toolsText, toolsJson, stdio, pairs, empty, found, skipped] = await Promise
      .all([
        cli(claude, "check", "--json", "--allow-skipped"),
        cli(claude, "tools", "--allow-skipped"),
        cli(claude, "tools", "echo", "--json"),
        cli(dir, "--stdio", ECHO_COMMAND, "--name", "e", "call", "e", "add", "a=2", "b=40"),
        cli(claude, "call", "echo", "echo", "text=hello world", "--json"),
        cli(codex, "check"),
        cli(vscode, "check"),
        cli(claude, "check"),
      ]);

    await t.step("check --json prints one document with the same data as the text", () => {
      assert.equal(checkJson.code, 0, checkJson.stderr);
      const document = JSON.parse(checkJson.stdout);
      assert.equal(document.catalog, ".mcp.json");
      assert.equal(document.ok, true);
      assert.deepEqual(
        document.servers.map((
          s: { name: string; state: string; tools: number },
        ) => [s.name, s.state, s.tools]),
        [["echo", "ready", 6]],
      );
      assert.deepEqual(
        document.skipped.map((s: { key: string; reason: string }) => [s.key, s.reason]),
        [["notion", "remote"]],
      );
      assert.deepEqual(
        document.disabled.map((s: { key: string; table: string }) => [s.key, s.table]),
        [["old", "mcpServers.old"]],
      );
      assert.equal(document.retirement[0].kind, "exited");
      assert.equal(isLive(document.retirement[0].pid), false);
    });

    await t.step(
      "tools lists wire names, generated names, and each signature with its types",
      () => {
        assert.equal(toolsText.code, 0, toolsText.stderr);
        // Which file was read, and what it left out, on stderr beside the progress.
        assert.match(toolsText.stderr, /^Catalog \.mcp\.json: 1 server, 1 disabled\n/);
        assert.match(toolsText.stderr, /^skipped: \.mcp\.json: mcpServers\.notion skipped: /m);
        assert.match(toolsText.stdout, /^echo \(mcp\/echo\.ts, 6 tools\)$/m);
        assert.match(toolsText.stdout, /^ {2}echo_args {2}\(echo_args\)$/m);
        // The module's declaration, indented: its doc comment, argument and result types.
        assert.match(
          toolsText.stdout,
          /^ {4}\/\*\* Returns its text\. \*\/\n {4}export function echo\(args: \{\n {6}"text": string;\n {4}\}\): Promise<ToolResult<\{\n {6}"text": string;\n {4}\}>>;$/m,
        );
        assert.doesNotMatch(toolsText.stdout, /input: |return invoke|\/\/ import/);
        assert.equal(toolsJson.code, 0, toolsJson.stderr);
        const document = JSON.parse(toolsJson.stdout);
        const add = document.servers[0].tools.find((tool: { name: string }) => tool.name === "add");
        assert.equal(add.function, "add");
        assert.equal(add.inputSchema.type, "object");
      },
    );

    await t.step("--stdio runs a server without a catalog; call takes key=value pairs", () => {
      assert.equal(stdio.code, 0, stdio.stderr);
      assert.equal(stdio.stdout, "42\n");
      assert.match(stdio.stderr, /^ {2}e +ready +6 /m);
      assert.equal(pairs.code, 0, pairs.stderr);
      assert.deepEqual(JSON.parse(pairs.stdout).result.content, [{
        type: "text",
        text: "hello world",
      }]);
    });

    await t.step("check of a catalog with no server exits 2 and says what to write", () => {
      assert.equal(empty.code, 2, empty.stdout);
      assert.match(
        empty.stderr,
        /^warning: loom\.toml: \[mcpServers\.echo\] is not read: server tables are \[mcp\.<name>\]; write \[mcp\.echo\]$/m,
      );
      assert.match(empty.stderr, /^error: nothing to check: loom\.toml yields no server; /m);
    });

    await t.step("check finds .vscode/mcp.json, says so, and shows the derived name", () => {
      assert.equal(found.code, 0, found.stderr);
      assert.match(found.stdout, /^Catalog \.vscode\/mcp\.json: 1 server$/m);
      assert.match(
        found.stderr,
        /^note: server "Echo" is named echo here \(its module is mcp\/echo\.ts\); either name works$/m,
      );
      assert.match(found.stdout, /^ {2}echo +ready +6 /m);
    });

    await t.step(
      "check reports skipped entries by name with the reason, checks the rest, and exits 3",
      () => {
        assert.equal(skipped.code, 3, skipped.stderr);
        assert.match(
          skipped.stderr,
          /^skipped: \.mcp\.json: mcpServers\.notion skipped: a remote server \("https:\/\/mcp\.notion\.com\/sse"\) over the older HTTP\+SSE transport, which is not supported/m,
        );
        assert.match(
          skipped.stderr,
          /^note: \.mcp\.json: mcpServers\.old is disabled \("disabled": true\), so it is not started$/m,
        );
        assert.match(skipped.stdout, /1 of 1 server ready/);
        assert.match(
          skipped.stderr,
          /^note: 1 entry of \.mcp\.json was skipped \(said above\); exiting 3, or pass --allow-skipped to exit 0$/m,
        );
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Ctrl-C during a call says what it was doing, retires the server and exits 130", async () => {
  const child = command(Deno.cwd(), [
    "--stdio",
    ECHO_COMMAND,
    "--name",
    "echo",
    "call",
    "echo",
    "sleep",
    "ms=600000",
  ]).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  while (!stderr.includes("calling sleep of echo…\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  child.kill("SIGINT");
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  const status = await child.status;
  await child.stdout.cancel();
  assert.equal(status.code, 130, stderr);
  assert.match(
    stderr,
    /^interrupted while calling sleep of echo; retiring every server \(Ctrl-C again to stop at once\)$/m,
  );
  const row =
    /^retired:\n {2}echo +exited +(?:code \d+|signal SIG\w+) +group drained +after \w+ +pid (\d+)$/m
      .exec(
        stderr,
      );
  assert.ok(row !== null, stderr);
  assert.equal(isLive(Number(row[1])), false);
  assert.doesNotMatch(stderr, /^error:/m);
});

Deno.test("Ctrl-C while servers start says so; a second Ctrl-C stops at once with 130", async () => {
  const silent = new URL("../fixtures/silent.ts", import.meta.url).pathname;
  const child = command(Deno.cwd(), [
    "--stdio",
    `${Deno.execPath()} run --quiet --no-lock ${silent}`,
    "--name",
    "silent",
    "check",
  ]).spawn();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  while (!stdout.includes("server info\n")) {
    const { done, value } = await out.read();
    if (done) break;
    stdout += value;
  }
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  child.kill("SIGINT");
  let stderr = "";
  while (!stderr.includes("(Ctrl-C again to stop at once)\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  child.kill("SIGINT");
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  const status = await child.status;
  await out.cancel();
  assert.equal(status.code, 130, stderr);
  assert.match(
    stderr,
    /^interrupted while starting 1 server; cancelling the starts and retiring every server/m,
  );
  assert.match(
    stderr,
    /^error: interrupted again: stopping now; every server is killed on the way out$/m,
  );
});

Deno.test("with --json a failing command still prints one document, saying why", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-cli-json-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/.mcp.json`,
      JSON.stringify({ mcpServers: { echo: echoEntry } }),
    );
    const [noTool, noServer, badArgs, offSchema] = await Promise.all([
      cli(dir, "call", "echo", "nope", "--json"),
      cli(dir, "module", "nope", "--json"),
      cli(dir, "call", "echo", "echo", "[1]", "--json"),
      // Arguments its schema refuses are the same mistake as arguments that are not an object.
      cli(dir, "call", "echo", "echo", "--json"),
    ]);
    const cases: [Run, string][] = [
      [noTool, "unknown_tool"],
      [noServer, "unknown_server"],
      [badArgs, "invalid_arguments"],
      [offSchema, "invalid_arguments"],
    ];
    for (const [run, kind] of cases) {
      assert.equal(run.code, 2, run.stderr);
      const document = JSON.parse(run.stdout);
      assert.equal(document.ok, false);
      assert.equal(document.error.kind, kind);
      assert.equal(
        `error: ${document.error.message}\n`,
        run.stderr.slice(run.stderr.lastIndexOf("error: ")),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
