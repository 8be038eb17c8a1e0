import assert from "node:assert/strict";

const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const SILENT = new URL("../fixtures/silent.ts", import.meta.url).pathname;

type Run = { code: number; stdout: string; stderr: string };

async function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", "--config", CONFIG, CLI, "--trust", ...args],
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1", ...env },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function errorLine(run: Run): string {
  return /^error: .*$/m.exec(run.stdout)?.[0] ?? "";
}

Deno.test("messages a person reads name the right knob, once, and say what happened", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-messages-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      [
        "[mcp.silent]",
        `command = ${JSON.stringify(Deno.execPath())}`,
        `args = ["run", "--quiet", "--no-lock", ${JSON.stringify(SILENT)}]`,
        "connect_timeout_ms = 500",
        "",
      ].join("\n"),
    );
    const denoDir = `${dir}/deno_dir`;
    const [timeout, cat, chatter, env] = await Promise.all([
      cli(dir, ["check"]),
      cli(dir, ["--stdio", "cat", "check"]),
      cli(dir, [
        "--stdio",
        "sh -c 'printf \"\\033[32mDownloading\\033[0m\\n\" >&2; echo hello; sleep 30'",
        "--name",
        "chatty",
        "check",
      ]),
      cli(dir, [
        "--stdio",
        `sh -c 'echo "NO_COLOR=$NO_COLOR DENO_DIR=$DENO_DIR" >&2; exec cat'`,
        "--name",
        "env",
        "check",
      ], {
        DENO_DIR: denoDir,
      }),
    ]);

    await t.step("a connect timeout of a catalog server names its table's key, once, whole", () => {
      assert.equal(timeout.code, 1, timeout.stderr);
      const line = errorLine(timeout);
      assert.match(line, /did not answer initialize within 500 ms /);
      assert.match(
        line,
        /; check that its command starts an MCP server on stdio, or raise the deadline with connect_timeout_ms in \[mcp\.silent\] of loom\.toml, or pass --connect-timeout$/,
      );
      assert.equal(line.match(/\bconnect_timeout_ms\b/g)?.length, 1, line);
      assert.doesNotMatch(line, /…/);
    });

    await t.step("a program that writes its input back is not an MCP server", () => {
      assert.equal(cat.code, 1, cat.stderr);
      assert.match(
        errorLine(cat),
        // The era probe is the first request a server gets (era "auto").
        /^error: server "cat" failed to start: Server "cat" is not an MCP server: it wrote back the server\/discover request it was sent \("\{\\"jsonrpc\\":\\"2\.0\\",\\"id\\":0,\\"method\\":\\"server\/discover\\"/,
      );
    });

    await t.step(
      "a program that writes something else is not an MCP server, with its first line",
      () => {
        assert.equal(chatter.code, 1, chatter.stderr);
        assert.match(
          errorLine(chatter),
          /is not an MCP server: before answering initialize it wrote "hello", which is not JSON-RPC; check its command; its stderr follows/,
        );
        // Colour codes are stripped from the stderr shown, not escaped.
        assert.match(chatter.stdout, /^ {2}stderr: Downloading$/m);
      },
    );

    await t.step("a server gets NO_COLOR=1 and the harness's DENO_DIR", () => {
      assert.match(env.stdout, new RegExp(`^ {2}stderr: NO_COLOR=1 DENO_DIR=${denoDir}$`, "m"));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
