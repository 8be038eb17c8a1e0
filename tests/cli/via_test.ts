// `--via <url>`: the command line through a running code-mode gateway over
// Streamable HTTP (tests/fixtures/via_gateway.ts, which offers the three
// tools of `loom-mcp serve`), nothing booted by the command itself.

import assert from "node:assert/strict";
import { cli, DENO, FIXTURES } from "./_cli.ts";

const TOKEN = "via-test-token-0123456789abcdef";

type Gateway = { url: string; stop(): Promise<void> };

async function gateway(): Promise<Gateway> {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "--quiet", "--no-lock", `${FIXTURES}via_gateway.ts`],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { LOOM_MCP_TOKEN: TOKEN },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 100 && !text.includes("\n"); i++) {
    const read = await reader.read();
    if (read.done) break;
    text += read.value;
  }
  const url = text.split("\n")[0] ?? "";
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return {
    url,
    async stop() {
      await child.stdin.close();
      await reader.cancel();
      assert.equal((await child.status).code, 0);
    },
  };
}

async function withGateway(body: (url: string) => Promise<void>): Promise<void> {
  const running = await gateway();
  try {
    await body(running.url);
  } finally {
    await running.stop();
  }
}

const ENV = { LOOM_MCP_TOKEN: TOKEN };

Deno.test("call --via runs the tool through the gateway's run_program and prints its result", async () => {
  await withGateway(async (url) => {
    const run = await cli(Deno.cwd(), ["--via", url, "call", "echo", "echo", "text=warm"], {
      env: ENV,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), "warm");
  });
});

Deno.test("call --via --json prints the tool's structured result", async () => {
  await withGateway(async (url) => {
    const run = await cli(Deno.cwd(), [
      "--via",
      url,
      "--json",
      "call",
      "echo",
      "add",
      "a=2",
      "b=40",
    ], {
      env: ENV,
    });
    assert.equal(run.code, 0, run.stderr);
    const document = JSON.parse(run.stdout);
    assert.equal(document.ok, true);
    assert.deepEqual(document.value.structuredContent, { sum: 42 });
    assert.deepEqual(document.calls.map((c: { tool: string }) => c.tool), ["add"]);
  });
});

Deno.test("search --via and describe --via answer from the gateway's discovery tools", async () => {
  await withGateway(async (url) => {
    const search = await cli(Deno.cwd(), ["--via", url, "search", "echo"], { env: ENV });
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /^echo\.echo: /m);
    const describe = await cli(Deno.cwd(), ["--via", url, "describe", "echo", "add"], { env: ENV });
    assert.equal(describe.code, 0, describe.stderr);
    assert.match(describe.stdout, /export (async )?function add/);
  });
});

Deno.test("run --via runs a program file through run_program", async () => {
  await withGateway(async (url) => {
    const dir = await Deno.makeTempDir({ prefix: "via_run_" });
    try {
      await Deno.writeTextFile(
        `${dir}/program.ts`,
        'import { echo } from "./mcp/echo.ts";\nexport default (await echo({ text: "ran" })).text;\n',
      );
      const run = await cli(dir, ["--via", url, "run", "program.ts"], { env: ENV });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), '"ran"');
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("run --via of a program the check refuses fails with its diagnostics", async () => {
  await withGateway(async (url) => {
    const dir = await Deno.makeTempDir({ prefix: "via_run_" });
    try {
      await Deno.writeTextFile(
        `${dir}/program.ts`,
        'import { echo } from "./mcp/echo.ts";\nexport default await echo({ text: 3 });\n',
      );
      const run = await cli(dir, ["--via", url, "run", "program.ts"], { env: ENV });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /run_program failed: rejected: .*number/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("tools --via lists only the gateway's three tools", async () => {
  await withGateway(async (url) => {
    const run = await cli(Deno.cwd(), ["--via", url, "--json", "tools"], { env: ENV });
    assert.equal(run.code, 0, run.stderr);
    const names = JSON.parse(run.stdout).tools.map((tool: { name: string }) => tool.name);
    assert.deepEqual(names, ["describe_tool", "run_program", "search_tools"]);
  });
});

Deno.test("--via with a wrong token fails saying the serve refused it", async () => {
  await withGateway(async (url) => {
    const run = await cli(Deno.cwd(), ["--via", url, "call", "echo", "echo", "text=x"], {
      env: { LOOM_MCP_TOKEN: `${TOKEN}-wrong` },
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Cannot reach the serve at .*401/);
  });
});

Deno.test("--via reads the token from --token-file", async () => {
  await withGateway(async (url) => {
    const file = await Deno.makeTempFile();
    try {
      await Deno.writeTextFile(file, `${TOKEN}\n`);
      const run = await cli(Deno.cwd(), [
        "--via",
        url,
        "--token-file",
        file,
        "call",
        "echo",
        "echo",
        "text=f",
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), "f");
    } finally {
      await Deno.remove(file);
    }
  });
});

Deno.test("--via without a token is a usage error naming LOOM_MCP_TOKEN", async () => {
  const run = await cli(Deno.cwd(), ["--via", "http://127.0.0.1:9/mcp", "tools"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /LOOM_MCP_TOKEN/);
});

Deno.test("--via with a command that boots its own servers is a usage error", async () => {
  const run = await cli(Deno.cwd(), ["--via", "http://127.0.0.1:9/mcp", "check"], { env: ENV });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /drop --via/);
});

Deno.test("call --via of a server name no module can have is a usage error saying so", async () => {
  const run = await cli(Deno.cwd(), ["--via", "http://127.0.0.1:9/mcp", "call", "Echo", "echo"], {
    env: ENV,
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /Cannot use "Echo" as a server name: .*mcp\/<name>\.ts/);
});
