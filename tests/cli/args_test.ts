import assert from "node:assert/strict";
import { parseArgs, USAGE } from "../../cli/_args.ts";
import { callArguments } from "../../cli/_call.ts";
import { splitWords } from "../../cli/_source.ts";

Deno.test("parseArgs() reads options anywhere and pairs each --name with its --stdio", async (t) => {
  const cases: [string[], unknown][] = [
    [["check", "--json"], { command: "check", stdio: [], json: true, strict: false }],
    [["--", "--strict", "tools", "memory"], {
      command: "tools",
      server: "memory",
      stdio: [],
      json: false,
      strict: true,
    }],
    [["harness.toml", "surface"], {
      command: "surface",
      catalog: "harness.toml",
      stdio: [],
      json: false,
      strict: false,
    }],
    [["--stdio", "npx a", "--name", "a", "--stdio", "npx b", "call", "a", "t", "x=1", "y=z"], {
      command: "call",
      server: "a",
      tool: "t",
      args: ["x=1", "y=z"],
      stdio: [{ command: "npx a", name: "a" }, { command: "npx b" }],
      json: false,
      strict: false,
    }],
  ];
  for (const [argv, expected] of cases) {
    await t.step(argv.join(" "), () => {
      const parsed = parseArgs(argv);
      assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
      assert.deepEqual(parsed.value, expected);
    });
  }
});

Deno.test("parseArgs() refuses mistakes with one line saying what to type", async (t) => {
  const cases: [string[], string][] = [
    [
      ["--name", "x", "check"],
      '--name names the --stdio server given before it, as in --stdio "..." --name memory',
    ],
    [["--json=1", "check"], "--json takes no value"],
    [["--stdio"], '--stdio needs a command, as in --stdio "npx -y some-mcp-server"'],
    [
      ["--catalog", "a.toml", "--stdio", "x", "check"],
      "give either --catalog or --stdio, not both",
    ],
    [["tools", "a", "b"], 'tools takes [<server>], got "b" too'],
    [
      ["call", "memory"],
      "call needs a server and a tool, as in: call memory search_nodes query=readme",
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
