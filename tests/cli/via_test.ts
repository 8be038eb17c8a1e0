// `--via <url>`: the command line through a running `loom-mcp serve --http`
// (a real process, fronting the echo and counter fixture servers), nothing
// booted by the command itself.

import assert from "node:assert/strict";
import { argv, cli, fixture } from "./_cli.ts";

const TOKEN = "via-test-token-0123456789abcdef";

type Serving = { url: string; stop(): Promise<string> };

// serve --http on a free loopback port, its URL read from its stderr.
async function serving(): Promise<Serving> {
  const [command, ...args] = argv([
    "serve",
    "--stdio",
    fixture("echo_server.ts"),
    "--name",
    "echo",
    "--stdio",
    fixture("counter_server.ts"),
    "--name",
    "counter",
    "--http",
    "127.0.0.1:0",
  ]);
  const child = new Deno.Command(command as string, {
    args,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", LOOM_MCP_TOKEN: TOKEN },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 200 && !/listening on \S+\n/.test(text); i++) {
    const read = await reader.read();
    if (read.done) break;
    text += read.value;
  }
  const url = /listening on (\S+)\n/.exec(text)?.[1] ?? "";
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, text);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      for (;;) {
        const read = await reader.read();
        if (read.done) break;
        text += read.value;
      }
      await child.status;
      return text;
    },
  };
}

async function withGateway(body: (url: string) => Promise<void>): Promise<void> {
  const running = await serving();
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
    assert.match(search.stdout, /^echo\.echo \(import \{ echo \} from "\.\/mcp\/echo\.ts"\)$/m);
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
        `${dir}/typo.ts`,
        'import { echo } from "./mcp/echo.ts";\nexport default await echo({ text: 3 });\n',
      );
      const run = await cli(dir, ["--via", url, "run", "typo.ts"], { env: ENV });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /run_program failed: The program did not run: the type check/);
      assert.match(run.stderr, /number/);
      // Named by its file, as a run here names it.
      assert.match(run.stderr, /^typo\.ts:2:\d+ - TS2322: /m);
      assert.doesNotMatch(run.stderr, /^program\.ts:/m);
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
    assert.match(run.stderr, /The serve at \S+ refused the token \(HTTP 401\)/);
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

Deno.test("two call --via commands meet the same warm server, its state kept between them", async () => {
  await withGateway(async (url) => {
    const first = await cli(Deno.cwd(), ["--via", url, "call", "counter", "bump"], { env: ENV });
    assert.equal(first.code, 0, first.stderr);
    const second = await cli(Deno.cwd(), ["--via", url, "call", "counter", "bump"], { env: ENV });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual([first.stdout.trim(), second.stdout.trim()], ["1", "2"]);
  });
});

Deno.test("serve --http refuses a foreign Origin with 403", async () => {
  await withGateway(async (url) => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        origin: "http://evil.example",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await response.body?.cancel();
    assert.equal(response.status, 403);
  });
});

Deno.test("serve --http says the token it made once, and retires every server on SIGTERM", async () => {
  const [command, ...args] = argv([
    "serve",
    "--stdio",
    fixture("counter_server.ts"),
    "--name",
    "counter",
    "--http",
    "localhost:0",
  ]);
  const child = new Deno.Command(command as string, {
    args,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 200 && !/token: \S+/.test(text); i++) {
    const read = await reader.read();
    if (read.done) break;
    text += read.value;
  }
  const token = /token: (\S+)/.exec(text)?.[1] ?? "";
  const url = /listening on (\S+)\n/.exec(text)?.[1] ?? "";
  assert.match(url, /^http:\/\/localhost:\d+\/mcp$/, text);
  const listed = await cli(Deno.cwd(), ["--via", url, "--json", "tools"], {
    env: { LOOM_MCP_TOKEN: token },
  });
  assert.equal(listed.code, 0, listed.stderr);
  child.kill("SIGTERM");
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    text += read.value;
  }
  await child.status;
  assert.equal(text.split("token: ").length, 2, "the token is said once");
  assert.match(text, /retired:\n\s+counter\s+exited/);
});

Deno.test("call --via says a refused call as a call here says it, as a usage mistake", async (t) => {
  await withGateway(async (url) => {
    await t.step("a tool the server does not list", async () => {
      const run = await cli(Deno.cwd(), ["--via", url, "call", "echo", "nope"], { env: ENV });
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr, 'error: Cannot call tool "nope": server "echo" did not list it\n');
      assert.equal(run.stdout, "");
    });
    await t.step("a server the serve does not have", async () => {
      const run = await cli(Deno.cwd(), ["--via", url, "call", "nosuch", "echo"], { env: ENV });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /^error: the serve has no server "nosuch": Cannot import /);
      assert.doesNotMatch(run.stderr, /program\.ts|invoke\(/);
    });
    await t.step(
      "key=value pairs typed by the tool's schema, as a call here types them",
      async () => {
        const run = await cli(Deno.cwd(), ["--via", url, "call", "echo", "echo", "text=42"], {
          env: ENV,
        });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.trim(), "42");
        const sum = await cli(Deno.cwd(), [
          "--via",
          url,
          "--json",
          "call",
          "echo",
          "add",
          "a=2",
          "b=3",
        ], {
          env: ENV,
        });
        assert.equal(sum.code, 0, sum.stderr);
        assert.deepEqual(JSON.parse(sum.stdout).value.structuredContent, { sum: 5 }, sum.stdout);
      },
    );
    await t.step("a key=value pair its schema refuses", async () => {
      const run = await cli(
        Deno.cwd(),
        ["--via", url, "--json", "call", "echo", "add", "a=two", "b=3"],
        { env: ENV },
      );
      assert.equal(run.code, 2, run.stderr);
      const document = JSON.parse(run.stdout);
      assert.equal(document.error.kind, "invalid_arguments");
      assert.doesNotMatch(document.error.message, /give one JSON object instead/);
      assert.doesNotMatch(run.stderr, /McpCallError|cap\.js/);
    });
  });
});

Deno.test("call --via prints an isError result on stdout and fails, as a call here does", async () => {
  await withGateway(async (url) => {
    const run = await cli(Deno.cwd(), ["--via", url, "call", "echo", "fail"], { env: ENV });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout.trim(), "fail always fails");
    assert.equal(
      run.stderr,
      'error: tool "fail" of "echo" reported a failure (isError); its output is above\n',
    );
  });
});
