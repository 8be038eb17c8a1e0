import assert from "node:assert/strict";
import { COMMANDS, parseArgs, USAGE } from "../../cli/_args.ts";
import { callArguments } from "../../cli/_call.ts";
import { splitWords } from "../../cli/_source.ts";

const COMMON = {
  servers: [],
  user: false,
  trust: false,
  allowSkipped: false,
  inputs: {},
  json: false,
  quiet: false,
  strict: false,
  allowTools: [],
  denyTools: [],
};

Deno.test("parseArgs() reads options anywhere and pairs each --name, --env, --cwd and --header with its server", async (t) => {
  const cases: [string[], unknown][] = [
    [["check", "--json"], { command: "check", ...COMMON, json: true }],
    [["--", "--strict", "tools", "memory"], {
      command: "tools",
      names: ["memory"],
      ...COMMON,
      strict: true,
    }],
    [["harness.toml", "surface"], {
      command: "surface",
      names: [],
      catalog: "harness.toml",
      ...COMMON,
    }],
    [["surface", "everything"], { command: "surface", names: ["everything"], ...COMMON }],
    [["surface", "--catalog", "loom.toml", "everything", "memory"], {
      command: "surface",
      names: ["everything", "memory"],
      catalog: "loom.toml",
      ...COMMON,
    }],
    [["check", "claude_desktop_config.json"], {
      command: "check",
      catalog: "claude_desktop_config.json",
      ...COMMON,
    }],
    [["call", "memory", "read_graph", "{}", "loom.toml"], {
      command: "call",
      server: "memory",
      tool: "read_graph",
      args: ["{}"],
      catalog: "loom.toml",
      ...COMMON,
    }],
    [["tools", "config.toml", "memory", "-q"], {
      command: "tools",
      names: ["memory"],
      catalog: "config.toml",
      ...COMMON,
      quiet: true,
    }],
    [[
      "--stdio",
      "npx a",
      "--name",
      "a",
      "--env",
      "K=v=w",
      "--cwd",
      "srv",
      "--http",
      "https://x.example/mcp",
      "--header",
      "Authorization: Bearer t",
      "call",
      "a",
      "t",
      "x=1",
      "y=z",
      "--timeout",
      "90s",
      "--connect-timeout",
      "1500ms",
    ], {
      command: "call",
      server: "a",
      tool: "t",
      args: ["x=1", "y=z"],
      ...COMMON,
      servers: [
        { kind: "stdio", command: "npx a", name: "a", env: [["K", "v=w"]], cwd: "srv" },
        { kind: "http", url: "https://x.example/mcp", headers: [["Authorization", "Bearer t"]] },
      ],
      callTimeoutMs: 90_000,
      connectTimeoutMs: 1_500,
    }],
    [["run", "p.ts", "--deadline", "2m", "--input", "key=v", "--trust"], {
      command: "run",
      program: "p.ts",
      deadlineMs: 120_000,
      approve: false,
      ...COMMON,
      inputs: { key: "v" },
      trust: true,
    }],
    [[
      "run",
      "p.ts",
      "--approve",
      "--allow-tool",
      "memory.read_graph",
      "--deny-tool",
      "fs.write.file",
      "--allow-tool=memory.search_nodes",
    ], {
      command: "run",
      program: "p.ts",
      approve: true,
      ...COMMON,
      allowTools: [
        { server: "memory", tool: "read_graph" },
        { server: "memory", tool: "search_nodes" },
      ],
      // Split at the first dot: a tool's name may hold one.
      denyTools: [{ server: "fs", tool: "write.file" }],
    }],
    [["serve", "--approve", "--pins", "pins.json", "--deadline", "90s", "--max-output", "4096"], {
      command: "serve",
      approve: true,
      pins: "pins.json",
      deadlineMs: 90_000,
      maxOutputBytes: 4096,
      ...COMMON,
    }],
    [["https://mcp.example.com/mcp", "tools"], {
      command: "tools",
      names: [],
      ...COMMON,
      servers: [{ kind: "http", url: "https://mcp.example.com/mcp", headers: [] }],
    }],
    [["call", "--help"], { command: "help", topic: "call" }],
    [["help", "run"], { command: "help", topic: "run" }],
    [["--version"], { command: "version", json: false }],
    [["--version", "--json"], { command: "version", json: true }],
    [["--json", "-V"], { command: "version", json: true }],
  ];
  for (const [argv, expected] of cases) {
    await t.step(argv.join(" "), () => {
      const parsed = parseArgs(argv);
      assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
      assert.deepEqual(JSON.parse(JSON.stringify(parsed.value)), expected);
    });
  }
});

Deno.test("parseArgs() refuses mistakes with one line saying what to type", async (t) => {
  const cases: [string[], string][] = [
    [
      ["--name", "x", "check"],
      '--name names the --stdio or --http server given before it, as in --stdio "..." --name memory',
    ],
    [["--json=1", "check"], "--json takes no value"],
    [["--stdio"], '--stdio needs a command, as in --stdio "npx -y some-mcp-server"'],
    [
      ["--catalog", "a.toml", "--stdio", "x", "check"],
      "give either a catalog or --stdio/--http servers, not both",
    ],
    [["check", "a", "b"], 'check takes no arguments, got "b"'],
    [
      ["tool", "memory"],
      'unknown command "tool"; did you mean tools? (run with --help to see the commands)',
    ],
    [
      ["call", "memory"],
      "call needs a server and a tool, as in: call memory search_nodes query=readme",
    ],
    [
      ["--env", "A=1", "check"],
      '--env sets a variable of the --stdio server given before it, as in --stdio "..." --env KEY=value',
    ],
    [
      ["--http", "mcp.example.com", "check"],
      '--http "mcp.example.com" is not an http or https URL; write it whole, as in --http https://mcp.example.com/mcp',
    ],
    [
      ["--timeout", "soon", "check"],
      '--timeout "soon" is not a duration; write seconds (90, 90s, 1.5s), milliseconds (1500ms) or minutes (2m), at most an hour',
    ],
    [
      ["check", "--deadline", "5"],
      "--deadline is the deadline of a program; give it with run or serve",
    ],
    [
      ["call", "a", "t", "--approve"],
      "--approve asks before each call of a program; give it with run or serve " +
      "(a call you type is already yours)",
    ],
    [["run", "p.ts", "--pins", "pins.json"], "--pins is serve's; give it with serve"],
    [
      ["serve", "--json"],
      "--json is not for serve: its stdout is the protocol's, and it prints nothing else there",
    ],
    [["serve", "--max-output", "lots"], '--max-output "lots" is not a positive number of bytes'],
    [["serve", "--pins", "a.json", "--pins", "b.json"], "--pins is given twice; keep one"],
    [
      ["tools", "--allow-tool", "read_graph"],
      '--allow-tool "read_graph" is not server.tool; write server.tool, as in --allow-tool ' +
      "memory.read_graph",
    ],
    [
      ["tools", "--deny-tool", ".x"],
      '--deny-tool ".x" is not server.tool; write server.tool, as in --deny-tool memory.delete_entities',
    ],
    [
      ["tools", "--deny-tool"],
      "--deny-tool needs server.tool, as in --deny-tool memory.delete_entities",
    ],
  ];
  for (const [argv, expected] of cases) {
    await t.step(argv.join(" "), () => {
      const parsed = parseArgs(argv);
      assert.deepEqual(parsed, { ok: false, error: expected });
    });
  }
});

Deno.test("the help lists every command of the table", () => {
  for (const name of ["check", "tools", "surface", "module", "call"]) {
    assert.match(USAGE, new RegExp(`^  ${name}\\b`, "m"));
  }
});

Deno.test("callArguments() takes one JSON object or key=value pairs, values JSON when they parse", () => {
  assert.deepEqual(callArguments([]), { ok: true, value: {} });
  assert.deepEqual(
    { ...(callArguments(['{"a": [1]}']) as { value: object }).value },
    { a: [1] },
  );
  const pairs = callArguments(["n=42", "flag=true", "text=hello world", "list=[1,2]", "raw={oops"]);
  assert.ok(pairs.ok);
  assert.deepEqual({ ...pairs.value }, {
    n: 42,
    flag: true,
    text: "hello world",
    list: [1, 2],
    raw: "{oops",
  });
  assert.deepEqual(callArguments(["a=1", "oops"]), {
    ok: false,
    error: 'the argument "oops" is not key=value; write each as key=value',
  });
  assert.deepEqual(callArguments(["a=1", "a=2"]), {
    ok: false,
    error: 'the key "a" is given twice; keep one',
  });
});

Deno.test("splitWords() splits a --stdio command as a shell would plain words, and refuses shell syntax", () => {
  assert.deepEqual(splitWords(`npx -y "@scope/pkg" 'a b' c\\ d`), {
    ok: true,
    value: ["npx", "-y", "@scope/pkg", "a b", "c d"],
  });
  const piped = splitWords("server | tee log");
  assert.equal(piped.ok, false);
  const open = splitWords('npx "unclosed');
  assert.equal(open.ok, false);
});

Deno.test("serve --http without a scheme is where serve listens, and a URL is still a server", () => {
  const parsed = parseArgs([
    "serve",
    "--http",
    "localhost:8931",
    "--http",
    "https://mcp.example.com/mcp",
  ]);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.equal(parsed.value.command, "serve");
  if (parsed.value.command !== "serve") return;
  assert.deepEqual(parsed.value.listen, { hostname: "localhost", port: 8931 });
  assert.deepEqual(parsed.value.servers, [
    { kind: "http", url: "https://mcp.example.com/mcp", headers: [] },
  ]);
  const bare = parseArgs(["serve", "--stdio", "x", "--http", "8931"]);
  assert.ok(bare.ok && bare.value.command === "serve");
  assert.deepEqual(bare.value.listen, { hostname: "127.0.0.1", port: 8931 });
  const v6 = parseArgs(["serve", "--stdio", "x", "--http", "[::1]:0"]);
  assert.ok(v6.ok && v6.value.command === "serve");
  assert.deepEqual(v6.value.listen, { hostname: "::1", port: 0 });
});

Deno.test("an --http address without a scheme is refused outside serve, and a bad one inside it", () => {
  const outside = parseArgs(["tools", "--http", "127.0.0.1:8931"]);
  assert.ok(!outside.ok);
  assert.match(outside.error, /is not an http or https URL; .*serve's, where it listens/);
  const bad = parseArgs(["serve", "--http", "127.0.0.1:99999"]);
  assert.ok(!bad.ok);
  assert.match(bad.error, /"127\.0\.0\.1:99999" is neither a URL nor an address to listen on/);
  const twice = parseArgs(["serve", "--http", ":1", "--http", ":2"]);
  assert.ok(!twice.ok);
  assert.match(twice.error, /given twice/);
});

Deno.test("every example of each command's own help parses, and none is given twice", async (t) => {
  for (const [name, row] of Object.entries(COMMANDS)) {
    await t.step(name, () => {
      const examples = [row.example, ...row.examples];
      assert.equal(new Set(examples).size, examples.length, examples.join("\n"));
      for (const example of examples) {
        // A shell's redirection (run - < program.ts) is the shell's, not the command's.
        const words = splitWords(example.replace(/ < \S+$/, ""));
        assert.ok(words.ok, example);
        const parsed = parseArgs(words.value);
        assert.ok(parsed.ok, `${example}: ${parsed.ok ? "" : parsed.error}`);
      }
    });
  }
});
