import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type CatalogError,
  isRemote,
  isServerName,
  openCatalog,
  readCatalog,
  type ServerSpec,
  type StdioServerSpec,
} from "../../mod.ts";
import { openStrict, readJsonStrict, readTomlStrict } from "./_strict.ts";
import { MAX_CATALOG_BYTES, MAX_CATALOG_SERVERS } from "../../limits.ts";

const DATA = new URL("./data/", import.meta.url);
const DATA_FOLDER = new URL(".", DATA).pathname.replace(/\/$/, "");
const MEMORY_ARGS = ["run", "-A", "npm:@modelcontextprotocol/server-memory@2026.8.31"];
const KNOWN_KEYS = "command, args, env, inherit_env, cwd, connect_timeout_ms, call_timeout_ms, " +
  "stderr, era, versions, enabled_tools, disabled_tools, result_check, restart, log_level, roots";
const JSON_TOOL_KEYS = "enabledTools, allowedTools, tools, disabledTools, blockedTools";

type Refusal = [name: string, text: string, kind: CatalogError["kind"], message: string];

function refusal(
  result: { ok: true; value: ServerSpec[] } | { ok: false; error: CatalogError },
): CatalogError {
  if (result.ok) {
    throw new assert.AssertionError({ message: `expected a refusal, got ${result.value.length}` });
  }
  return result.error;
}

function spec(name: string, fields: Partial<StdioServerSpec> & { command: string }): ServerSpec {
  const base: StdioServerSpec = {
    name,
    args: [],
    env: {},
    inheritEnv: [],
    stderr: "tail",
    ...fields,
  };
  return base;
}

// Specs carry prototype-free env records; compare them as plain data.
function plain(specs: ServerSpec[]): ServerSpec[] {
  return specs.map((item) => isRemote(item) ? item : { ...item, env: { ...item.env } });
}

/** A TOML catalog holding one `[mcp.github]` table with these extra lines. */
function github(lines: string): string {
  return `[mcp.github]\ncommand = "github-mcp-server"\n${lines}\n`;
}

/** A JSON catalog holding one `mcpServers.github` entry. */
function githubJson(entry: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: { github: entry } });
}

Deno.test("openCatalog() reads the good catalog files into server specs", async (t) => {
  const good: [string, ServerSpec[]][] = [
    ["harness.toml", [
      spec("memory", {
        command: "deno",
        args: MEMORY_ARGS,
        env: { MEMORY_FILE_PATH: "/tmp/memory.json" },
        inheritEnv: ["HTTPS_PROXY", "NO_PROXY"],
        connectTimeoutMs: 120000,
        stderr: "forward",
        cwd: DATA_FOLDER,
      }),
      spec("example", {
        command: "/usr/bin/deno",
        cwd: new URL("examples", DATA).pathname,
        callTimeoutMs: 5000,
        env: { LOG_LEVEL: "debug" },
      }),
    ]],
    ["mcp.json", [
      spec("memory", {
        command: "deno",
        args: MEMORY_ARGS,
        env: { MEMORY_FILE_PATH: "/tmp/memory.json" },
        cwd: DATA_FOLDER,
      }),
      spec("filesystem", {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
        cwd: DATA_FOLDER,
      }),
    ]],
    ["vscode_mcp.json", [spec("memory", { command: "deno", args: MEMORY_ARGS, cwd: "/tmp" })]],
    ["no_servers.toml", []],
  ];
  for (const [file, expected] of good) {
    await t.step(file, async () => {
      const result = await openStrict(new URL(file, DATA));
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.deepEqual(plain(result.value), expected);
    });
  }
});

Deno.test("openCatalog() refuses the bad catalog files with a message naming the file", async (t) => {
  const dir = new URL(".", DATA).pathname;
  const bad: [string, CatalogError["kind"], string][] = [
    [
      "duplicate.toml",
      "duplicate_name",
      `${dir}duplicate.toml: [mcp.github] is defined twice (again at line 7); keep one table per server`,
    ],
    [
      "missing.toml",
      "unreadable_file",
      `${dir}missing.toml: cannot read the catalog (No such file or directory (os error 2): stat '${dir}missing.toml'); check the path and its permissions`,
    ],
  ];
  for (const [file, kind, message] of bad) {
    await t.step(file, async () => {
      const error = refusal(await openStrict(new URL(file, DATA)));
      assert.equal(error.kind, kind);
      assert.equal(error.message, message);
      assert.equal(error.file, `${dir}${file}`);
    });
  }
});

Deno.test("openCatalog() in strict mode skips a remote entry it cannot serve, saying why", async () => {
  const dir = new URL(".", DATA).pathname;
  const opened = await openCatalog(new URL("remote.json", DATA), { mode: "strict" });
  assert.ok(opened.ok, opened.ok ? "" : opened.error.message);
  assert.deepEqual(opened.value.servers, []);
  assert.deepEqual(opened.value.skipped.map(({ key, reason, message }) => [key, reason, message]), [
    [
      "linear",
      "remote",
      `${dir}remote.json: mcpServers.linear skipped: a remote server ("https://mcp.linear.app/sse") over the older HTTP+SSE transport, which is not supported; if it also serves Streamable HTTP (most do, often at /mcp), write that URL and "type": "http"`,
    ],
  ]);
});

Deno.test("openCatalog() refuses what is not a small UTF-8 regular file", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "catalog_test_" });
  try {
    await t.step("a directory", async () => {
      const error = refusal(await openStrict(dir));
      assert.equal(error.kind, "unreadable_file");
      assert.equal(
        error.message,
        `${dir}: cannot read the catalog: it is a directory; give the path of the catalog file`,
      );
    });
    await t.step("a file past MAX_CATALOG_BYTES", async () => {
      const path = `${dir}/large.toml`;
      await Deno.writeFile(path, new Uint8Array(MAX_CATALOG_BYTES + 1).fill(0x23));
      const error = refusal(await openStrict(path));
      assert.equal(error.kind, "invalid_catalog");
      assert.equal(
        error.message,
        `${path}: the catalog is 1048577 bytes, more than the 1048576 allowed; is this the right file?`,
      );
    });
    await t.step("a file that is not UTF-8", async () => {
      const path = `${dir}/latin1.toml`;
      // "# é" in Latin-1 on the second line, after a line holding a two-byte character.
      await Deno.writeFile(path, new Uint8Array([0xc3, 0xa9, 0x0a, 0x23, 0x20, 0xe9, 0x0a]));
      const error = refusal(await openStrict(path));
      assert.equal(error.kind, "invalid_catalog");
      assert.deepEqual([error.line, error.column], [2, 3]);
      assert.equal(
        error.message,
        `${path}: the catalog is not UTF-8 text: byte 5 (line 2, column 3) starts no UTF-8 character; save it as UTF-8, or check it is the right file`,
      );
    });
    await t.step("a file in UTF-16, as Windows PowerShell writes one", async () => {
      const path = `${dir}/utf16.json`;
      const text = '{"mcpServers": {}}';
      const bytes = new Uint8Array(2 + 2 * text.length);
      bytes.set([0xff, 0xfe]);
      for (let i = 0; i < text.length; i++) bytes[2 + 2 * i] = text.charCodeAt(i);
      await Deno.writeFile(path, bytes);
      const error = refusal(await openStrict(path));
      assert.equal(error.kind, "invalid_catalog");
      assert.equal(
        error.message,
        `${path}: the catalog is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8`,
      );
    });
    await t.step("a .JSON file is read as JSON, whatever the case of its extension", async () => {
      const path = `${dir}/Servers.JSON`;
      await Deno.writeTextFile(path, '\uFEFF{"mcpServers": {"a": {"command": "x"}}}');
      const result = await openStrict(path);
      assert.ok(result.ok);
      // With no cwd of its own, a server runs in the catalog's folder.
      assert.deepEqual(plain(result.value), [spec("a", { command: "x", cwd: dir })]);
    });
    await t.step("a URL other than file: is caller misuse", async () => {
      await assert.rejects(() => openStrict(new URL("https://example.com/c.toml")), TypeError);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readCatalog() refuses each mistake with the file, table, key and the fix", async (t) => {
  const cases: Refusal[] = [
    [
      "invalid TOML, with its line",
      'name = "x"\nargs = [\n',
      "invalid_toml",
      "catalog.toml: invalid TOML at line 3, column 1: invalid value",
    ],
    [
      "TOML nested past MAX_JSON_DEPTH",
      `a = ${"[".repeat(300)}${"]".repeat(300)}`,
      "invalid_toml",
      "catalog.toml: invalid TOML at line 1, column 261: nested deeper than 256 levels",
    ],
    [
      "a duplicate table",
      '[mcp.github]\ncommand = "a"\n\n[mcp.github]\ncommand = "b"\n',
      "duplicate_name",
      "catalog.toml: [mcp.github] is defined twice (again at line 4); keep one table per server",
    ],
    [
      "a duplicate quoted table",
      '[mcp.github]\ncommand = "a"\n[mcp."github"]\n',
      "duplicate_name",
      "catalog.toml: [mcp.github] is defined twice (again at line 3); keep one table per server",
    ],
    [
      "mcp as a string before a server table",
      'mcp = "x"\n[mcp.github]\ncommand = "a"\n',
      "invalid_toml",
      "catalog.toml: invalid TOML at line 2, column 2: [mcp.github] cannot be a table: an " +
      "earlier line already set mcp or mcp.github (as a value, a dotted key or an inline table); " +
      "write each server as an [mcp.<name>] table of its own, and nothing else under mcp",
    ],
    [
      "a server as a dotted key before its table",
      'mcp.github.command = "a"\n[mcp.github]\n',
      "invalid_toml",
      "catalog.toml: invalid TOML at line 2, column 2: [mcp.github] cannot be a table: an " +
      "earlier line already set mcp or mcp.github (as a value, a dotted key or an inline table); " +
      "write each server as an [mcp.<name>] table of its own, and nothing else under mcp",
    ],
    [
      "mcp as a string",
      'mcp = "github"',
      "invalid_catalog",
      'catalog.toml: key "mcp": expected a table of [mcp.<name>] tables, found a string ("github")',
    ],
    [
      "mcp as an array of tables",
      '[[mcp]]\ncommand = "x"',
      "invalid_catalog",
      'catalog.toml: key "mcp": expected a table of [mcp.<name>] tables, found an array',
    ],
    [
      "a server that is not a table",
      "[mcp]\ngithub = 1",
      "invalid_entry",
      "catalog.toml: [mcp.github]: expected a table describing the server, found an integer (1)",
    ],
    [
      "an uppercase name",
      '[mcp.GitHub]\ncommand = "x"',
      "invalid_name",
      'catalog.toml: [mcp.GitHub]: invalid server name "GitHub": use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name, such as "github"',
    ],
    [
      "a name with a space",
      '[mcp."my server"]\ncommand = "x"',
      "invalid_name",
      'catalog.toml: [mcp."my server"]: invalid server name "my server": use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name, such as "my_server"',
    ],
    [
      "a name starting with a digit",
      '[mcp.1password]\ncommand = "x"',
      "invalid_name",
      'catalog.toml: [mcp.1password]: invalid server name "1password": use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name, such as "server_1password"',
    ],
    [
      "a name with nothing to keep",
      '[mcp."---"]\ncommand = "x"',
      "invalid_name",
      'catalog.toml: [mcp.---]: invalid server name "---": use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name',
    ],
    [
      "a name of 65 characters",
      `[mcp.${"a".repeat(65)}]\ncommand = "x"`,
      "invalid_name",
      `catalog.toml: [mcp.${"a".repeat(65)}]: invalid server name "${
        "a".repeat(65)
      }": use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name, such as "${
        "a".repeat(64)
      }"`,
    ],
    [
      "an unknown key",
      github("timeout = 5"),
      "invalid_entry",
      `catalog.toml: [mcp.github] key "timeout": unknown key; the known keys are ${KNOWN_KEYS}, disabled`,
    ],
    [
      "a camelCase key",
      github("inheritEnv = []"),
      "invalid_entry",
      `catalog.toml: [mcp.github] key "inheritEnv": unknown key (did you mean "inherit_env"?); the known keys are ${KNOWN_KEYS}, disabled`,
    ],
    [
      "a missing command",
      '[mcp.github]\nargs = ["--stdio"]',
      "invalid_entry",
      'catalog.toml: [mcp.github] key "command": missing; add the executable to run, such as command = "npx"',
    ],
    [
      "a command that is a number",
      "[mcp.github]\ncommand = 5",
      "invalid_entry",
      'catalog.toml: [mcp.github] key "command": expected a string naming the executable, found an integer (5)',
    ],
    [
      "a command that is an argv array",
      '[mcp.github]\ncommand = ["npx", "-y", "foo"]',
      "invalid_entry",
      'catalog.toml: [mcp.github] key "command": expected a string naming the executable, found an array; write command = "npx" and args = ["-y", "foo"]',
    ],
    [
      "an empty command",
      '[mcp.github]\ncommand = "  "',
      "invalid_entry",
      'catalog.toml: [mcp.github] key "command": expected the executable to run, found a string ("  ")',
    ],
    [
      "a shell string command, joined with the existing args",
      '[mcp.github]\ncommand = "npx -y foo"\nargs = ["--stdio"]',
      "invalid_entry",
      'catalog.toml: [mcp.github] key "command": expected one executable, found a shell string ("npx -y foo"); no shell runs it, so write command = "npx" and args = ["-y", "foo", "--stdio"]',
    ],
    [
      "a shell string command with quoting",
      "[mcp.github]\ncommand = \"npx -y 'foo bar'\"",
      "invalid_entry",
      `catalog.toml: [mcp.github] key "command": expected one executable, found a shell string ("npx -y 'foo bar'"); no shell runs it, so put the executable in command and each argument in its own element of args`,
    ],
    [
      "a command holding NUL",
      '[mcp.github]\ncommand = "a\\u0000b"',
      "invalid_entry",
      'catalog.toml: [mcp.github] key "command": found a NUL character in "a\\u0000b", which no process argument or variable can hold',
    ],
    [
      "args as a string",
      github('args = "--stdio"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "args": expected an array of strings, found a string ("--stdio"); write args = ["--stdio"]',
    ],
    [
      "args as a string of words",
      github('args = "-y foo"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "args": expected an array of strings, found a string ("-y foo"); write args = ["-y", "foo"]',
    ],
    [
      "args holding a number",
      github('args = ["--port", 8080]'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "args": expected an array of strings, found an integer (8080) at index 1; quote it: "8080"',
    ],
    [
      "args holding an array",
      github('args = [["a"]]'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "args": expected an array of strings, found an array at index 0',
    ],
    [
      "env as a string",
      github('env = "A=1"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "env": expected a table of strings by variable name, found a string ("A=1")',
    ],
    [
      "env holding a number",
      github("env = { PORT = 8080 }"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "env": expected a string for "PORT", found an integer (8080); write PORT = "8080"',
    ],
    [
      "env holding a subtable",
      github("[mcp.github.env.NESTED]\nA = 1"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "env": expected a string for "NESTED", found a table',
    ],
    [
      "env with an unportable name",
      github('env = { "MY-VAR" = "1" }'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "env": invalid variable name "MY-VAR": use letters, digits and underscores, not starting with a digit',
    ],
    [
      "inherit_env as a string",
      github('inherit_env = "HTTPS_PROXY"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "inherit_env": expected an array of variable names, found a string ("HTTPS_PROXY"); write inherit_env = ["HTTPS_PROXY"]',
    ],
    [
      "inherit_env with an assignment",
      github('inherit_env = ["A=B"]'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "inherit_env": invalid variable name "A=B": use letters, digits and underscores, not starting with a digit',
    ],
    [
      "inherit_env holding a boolean",
      github("inherit_env = [true]"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "inherit_env": expected an array of variable names, found a boolean (true) at index 0',
    ],
    [
      "an empty cwd",
      github('cwd = ""'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "cwd": expected a directory path, found an empty string',
    ],
    [
      "a zero timeout",
      github("connect_timeout_ms = 0"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "connect_timeout_ms": expected a whole number of milliseconds from 1 to 3600000 (one hour), found an integer (0)',
    ],
    [
      "a timeout past one hour",
      github("connect_timeout_ms = 3600001"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "connect_timeout_ms": expected a whole number of milliseconds from 1 to 3600000 (one hour), found an integer (3600001)',
    ],
    [
      "a fractional timeout",
      github("call_timeout_ms = 1.5"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "call_timeout_ms": expected a whole number of milliseconds from 1 to 3600000 (one hour), found a float (1.5)',
    ],
    [
      "a quoted timeout",
      github('call_timeout_ms = "5000"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "call_timeout_ms": expected a whole number of milliseconds from 1 to 3600000 (one hour), found a string ("5000"); write call_timeout_ms = 5000',
    ],
    [
      "a timeout past 2^64",
      github("call_timeout_ms = 99999999999999999999"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "call_timeout_ms": expected a whole number of milliseconds from 1 to 3600000 (one hour), found an integer (99999999999999999999)',
    ],
    [
      "a timeout that is a date",
      github("call_timeout_ms = 1979-05-27"),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "call_timeout_ms": expected a whole number of milliseconds from 1 to 3600000 (one hour), found a date-time',
    ],
    [
      "an unknown stderr mode",
      github('stderr = "inherit"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "stderr": expected "tail" or "forward", found a string ("inherit")',
    ],
    [
      "an unknown era",
      github('era = "future"'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "era": expected "auto", "modern" or "legacy", found a string ("future")',
    ],
    [
      "a version this client does not speak",
      github('versions = ["2026-07-28", "2099-01-01"]'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "versions": expected a non-empty list of protocol versions among 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, found a string ("2099-01-01")',
    ],
    [
      "a pinned era with none of its versions",
      github('era = "modern"\nversions = ["2025-11-25"]'),
      "invalid_entry",
      'catalog.toml: [mcp.github] key "versions": era "modern" is pinned but none of these versions is of that era; offer one or set era to "auto"',
    ],
    [
      "more servers than MAX_CATALOG_SERVERS",
      Array.from({ length: MAX_CATALOG_SERVERS + 1 }, (_, i) => `[mcp.s${i}]\ncommand = "x"`)
        .join("\n"),
      "invalid_catalog",
      "catalog.toml: [mcp] lists 65 servers, more than the 64 one catalog may run; split it",
    ],
  ];
  for (const [name, text, kind, message] of cases) {
    await t.step(name, () => {
      const error = refusal(readTomlStrict(text, { file: "catalog.toml" }));
      assert.equal(error.message, message);
      assert.equal(error.kind, kind);
      assert.equal(error.file, "catalog.toml");
    });
  }
});

Deno.test("readCatalog() reads the era and the versions offered of a server", () => {
  const parsed = readTomlStrict(
    '[mcp.a]\ncommand = "x"\nera = "legacy"\nversions = ["2025-06-18"]\n' +
      '[mcp.b]\ncommand = "y"\n',
  );
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.equal(parsed.value[0]?.era, "legacy");
  assert.deepEqual(parsed.value[0]?.versions, ["2025-06-18"]);
  assert.equal(parsed.value[1]?.era, undefined);
  assert.equal(parsed.value[1]?.versions, undefined);
});

Deno.test("readCatalog() reads a restart policy in both syntaxes, none by default", () => {
  const toml = readTomlStrict(
    '[mcp.a]\ncommand = "x"\nrestart = { max = 3, backoff_ms = 500 }\n' +
      '[mcp.b]\ncommand = "y"\nrestart = {}\n[mcp.c]\ncommand = "z"\n',
  );
  assert.ok(toml.ok, JSON.stringify(toml));
  assert.deepEqual(toml.value.map((spec) => spec.restart), [
    { max: 3, backoffMs: 500 },
    {},
    undefined,
  ]);
  const json = readJsonStrict(
    '{"mcpServers": {"a": {"command": "x", "restart": {"max": 2, "backoff_ms": 100}}}}',
  );
  assert.ok(json.ok && json.value[0]?.restart?.max === 2, JSON.stringify(json));
});

Deno.test("readCatalog() refuses a restart policy it cannot run, naming the field", async (t) => {
  const cases: [string, RegExp][] = [
    ["restart = 3", /key "restart": expected a table such as restart = \{ max = 3/],
    ["restart = { tries = 3 }", /unknown field "tries"; the fields are max and backoff_ms/],
    ["restart = { max = 0 }", /max to be a whole number of attempts from 1 to 100/],
    ["restart = { backoff_ms = -1 }", /backoff_ms: expected a whole number of milliseconds/],
  ];
  for (const [line, message] of cases) {
    await t.step(line, () => {
      const parsed = readTomlStrict(`[mcp.a]\ncommand = "x"\n${line}\n`);
      assert.ok(!parsed.ok && parsed.error.key === "restart", JSON.stringify(parsed));
      assert.match(parsed.error.message, message);
    });
  }
});

Deno.test("readCatalog() reports the table and key of a mistake as fields", () => {
  const error = refusal(readTomlStrict(github('args = "--stdio"')));
  assert.deepEqual(error, {
    kind: "invalid_entry",
    file: "catalog",
    table: "mcp.github",
    key: "args",
    message:
      'catalog: [mcp.github] key "args": expected an array of strings, found a string ("--stdio"); write args = ["--stdio"]',
  });
  const syntax = refusal(readTomlStrict("[mcp.github\n", { file: "c.toml" }));
  assert.equal(syntax.line, 1);
  assert.equal(syntax.column, 12);
});

Deno.test("readCatalog() reads what a harness may legitimately write", async (t) => {
  const accepted: [string, string, ServerSpec[]][] = [
    ["an empty document", "", []],
    ["an empty mcp table", "[mcp]", []],
    ["a byte order mark", '\uFEFF[mcp.a]\ncommand = "x"', [spec("a", { command: "x" })]],
    ["an inline table", 'mcp.a = { command = "x", args = [] }', [spec("a", { command: "x" })]],
    [
      "dotted keys, in file order",
      '[mcp]\nzeta.command = "z"\nalpha.command = "a"',
      [spec("zeta", { command: "z" }), spec("alpha", { command: "a" })],
    ],
    ["a name of 64 characters", `[mcp.${"a".repeat(64)}]\ncommand = "x"`, [
      spec("a".repeat(64), { command: "x" }),
    ]],
    ["a timeout of exactly one hour", github("call_timeout_ms = 3600000"), [
      spec("github", { command: "github-mcp-server", callTimeoutMs: 3600000 }),
    ]],
    ["a command path with no space", '[mcp.a]\ncommand = "./bin/server"', [
      spec("a", { command: "./bin/server" }),
    ]],
  ];
  for (const [name, text, expected] of accepted) {
    await t.step(name, () => {
      const result = readTomlStrict(text);
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.deepEqual(plain(result.value), expected);
    });
  }
});

Deno.test("readCatalog() keeps an env variable named __proto__ as an own property", () => {
  const result = readTomlStrict(github('[mcp.github.env]\n__proto__ = "1"\nconstructor = "2"'));
  assert.ok(result.ok);
  const first = result.value[0];
  const env = first === undefined || isRemote(first) ? {} : first.env;
  assert.deepEqual(Object.entries(env), [["__proto__", "1"], ["constructor", "2"]]);
  assert.equal(Object.getPrototypeOf(env), null);
});

Deno.test("readCatalog() of JSON refuses each mistake with the file, entry, key and the fix", async (t) => {
  const cases: Refusal[] = [
    [
      "a comment that never ends, with its line and column",
      '{\n  /* servers\n  "mcpServers": {}\n}',
      "invalid_json",
      ".mcp.json: invalid JSON at line 2, column 3: a /* comment is never closed; close it with */",
    ],
    [
      "a syntax error after a comment, at its place in the file",
      '{\n  // servers\n  "mcpServers": {"a": {"command": "x" "args": []}}\n}',
      "invalid_json",
      ".mcp.json: invalid JSON at line 3, column 39: expected ',' or '}' after property value",
    ],
    [
      "a number past a double",
      githubJson({ command: "x" }).replace('"x"', '"x", "n": 1e400'),
      "invalid_json",
      ".mcp.json: invalid JSON at line 1, column 46: a number is too large for a double",
    ],
    [
      "an array document",
      "[]",
      "invalid_catalog",
      '.mcp.json: expected a JSON object with an "mcpServers" member, found an empty array',
    ],
    [
      "no servers member",
      '{"mcpservers": {}}',
      "invalid_catalog",
      `.mcp.json: expected an "mcpServers" member (or VS Code's "servers"), found none; write {"mcpServers": {}} for no servers`,
    ],
    [
      "both forms at once",
      '{"mcpServers": {}, "servers": {}}',
      "invalid_catalog",
      '.mcp.json: found both "mcpServers" and "servers"; keep one of them (servers from both would be ambiguous)',
    ],
    [
      "mcpServers as an array",
      '{"mcpServers": [{"command": "x"}]}',
      "invalid_catalog",
      '.mcp.json: key "mcpServers": expected an object of servers by name, found an array',
    ],
    [
      "a duplicate server",
      '{"mcpServers": {\n"a": {"command": "x"},\n"a": {"command": "y"}\n}}',
      "duplicate_name",
      ".mcp.json: mcpServers.a is defined twice (again at line 3); keep one entry per server",
    ],
    [
      "a duplicate VS Code server",
      '{"servers": {"a": {"command": "x"}, "b": [{"a": 1}], "a": {"command": "y"}}}',
      "duplicate_name",
      ".mcp.json: servers.a is defined twice (again at line 1); keep one entry per server",
    ],
    [
      "a duplicate env variable",
      '{"mcpServers": {"a": {"command": "x", "env": {"P": "1", "P": "2"}}}}',
      "invalid_json",
      '.mcp.json: key "P" appears twice in mcpServers.a.env (again at line 1, column 57); keep one',
    ],
    [
      "a remote entry with a command too",
      githubJson({ url: "https://api.githubcopilot.com/mcp/", command: "x" }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "command": a server is either started from a "command" or reached at a "url", not both',
    ],
    [
      "a remote entry by type, with a command",
      githubJson({ type: "streamable-http", command: "x" }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "command": a server is either started from a "command" or reached at a "url", not both',
    ],
    [
      "an unknown type",
      githubJson({ type: "pipe", command: "x" }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "type": expected "stdio", found a string ("pipe")',
    ],
    [
      "a VS Code envFile",
      githubJson({ command: "x", envFile: "${workspaceFolder}/.env" }),
      "unsupported_entry",
      '.mcp.json: mcpServers.github key "envFile": an env file is read only where variables expand: read the file with openCatalog, or give readCatalog options.env and options.envFile',
    ],
    [
      "an unknown key",
      githubJson({ command: "x", timeout: 5 }),
      "invalid_entry",
      `.mcp.json: mcpServers.github key "timeout": unknown key; the known keys are ${KNOWN_KEYS}, type, ${JSON_TOOL_KEYS}, disabled, envFile, dev, sandboxEnabled, sandbox`,
    ],
    [
      "a null entry",
      '{"mcpServers": {"github": null}}',
      "invalid_entry",
      ".mcp.json: mcpServers.github: expected an object describing the server, found null",
    ],
    [
      "a missing command",
      githubJson({ args: [] }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "command": missing; add the executable to run, such as "command": "npx"',
    ],
    [
      "a shell string command",
      githubJson({ command: "npx -y @modelcontextprotocol/server-github" }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "command": expected one executable, found a shell string ("npx -y @modelcontextprotocol/server-github"); no shell runs it, so write "command": "npx" and "args": ["-y", "@modelcontextprotocol/server-github"]',
    ],
    [
      "args as a string",
      githubJson({ command: "x", args: "--stdio" }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "args": expected an array of strings, found a string ("--stdio"); write "args": ["--stdio"]',
    ],
    [
      "env holding a number",
      githubJson({ command: "x", env: { PORT: 8080 } }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "env": expected a string for "PORT", found an integer (8080); write "PORT": "8080"',
    ],
    [
      "env as null",
      githubJson({ command: "x", env: null }),
      "invalid_entry",
      '.mcp.json: mcpServers.github key "env": expected an object of strings by variable name, found null',
    ],
    [
      "a substituted variable of another name",
      githubJson({ command: "x", env: { GITHUB_TOKEN: "${GH_TOKEN}" } }),
      "unsupported_entry",
      `.mcp.json: mcpServers.github key "env": variable substitution is not supported, found "\${GH_TOKEN}" for "GITHUB_TOKEN"; write the value itself, or set GITHUB_TOKEN in the harness's environment and write "inherit_env": ["GITHUB_TOKEN"]`,
    ],
    [
      "a substituted variable of the same name",
      githubJson({ command: "x", env: { TOKEN: "${env:TOKEN}" } }),
      "unsupported_entry",
      '.mcp.json: mcpServers.github key "env": variable substitution is not supported, found "${env:TOKEN}" for "TOKEN"; remove it from "env" and write "inherit_env": ["TOKEN"]',
    ],
    [
      "a substituted argument",
      githubJson({ command: "x", args: ["${workspaceFolder}"] }),
      "unsupported_entry",
      '.mcp.json: mcpServers.github key "args": variable substitution is not supported, found "${workspaceFolder}"; write the value itself',
    ],
  ];
  for (const [name, text, kind, message] of cases) {
    await t.step(name, () => {
      const error = refusal(readJsonStrict(text, { file: ".mcp.json" }));
      assert.equal(error.message, message);
      assert.equal(error.kind, kind);
    });
  }
});

Deno.test("readCatalog() of JSON accepts the catalog's own keys and an explicit stdio type", () => {
  const result = readJsonStrict(
    githubJson({
      type: "stdio",
      command: "x",
      inherit_env: ["HOME"],
      stderr: "forward",
      call_timeout_ms: 10,
      connect_timeout_ms: 20,
    }),
  );
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  assert.deepEqual(plain(result.value), [
    spec("github", {
      command: "x",
      inheritEnv: ["HOME"],
      stderr: "forward",
      callTimeoutMs: 10,
      connectTimeoutMs: 20,
    }),
  ]);
  const empty = readJsonStrict('{"mcpServers": {}, "globalShortcut": "Ctrl+M"}');
  assert.deepEqual(empty, { ok: true, value: [] });
});

Deno.test("isServerName() follows SERVER_NAME_PATTERN", async (t) => {
  const names: [string, boolean][] = [
    ["github", true],
    ["a", true],
    ["server_2", true],
    ["a".repeat(64), true],
    ["a".repeat(65), false],
    ["", false],
    ["GitHub", false],
    ["my-server", true],
    ["my.server", false],
    ["con", false],
    ["_private", false],
    ["2fa", false],
    ["café", false],
    ["__proto__", false],
    ["a\n", false],
  ];
  for (const [name, valid] of names) {
    await t.step(JSON.stringify(name), () => assert.equal(isServerName(name), valid));
  }
});

Deno.test("readCatalog() never throws on any text, in either syntax", () => {
  const tomlish = fc.array(
    fc.constantFrom(
      "[mcp.a]\n",
      "[mcp]\n",
      'command = "x"\n',
      "args = [",
      "]\n",
      '"',
      "env = { A = 1 }\n",
      "mcp.b.command = 1\n",
      "\n",
      "[[mcp]]\n",
      "= ",
    ),
    { maxLength: 12 },
  ).map((parts) => parts.join(""));
  const jsonish = fc.array(
    fc.constantFrom(
      '{"mcpServers": {',
      '"a": {',
      '"command": "x"',
      '"args": [1, "b"]',
      '"url": "u"',
      ", ",
      "}",
      "]",
      '"servers": ',
      '"\\u0000"',
    ),
    { maxLength: 12 },
  ).map((parts) => parts.join(""));
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 80 }), tomlish, jsonish), (text) => {
      for (const result of [readTomlStrict(text), readJsonStrict(text)]) {
        if (!result.ok) {
          assert.equal(typeof result.error.message, "string");
          assert.ok(result.error.message.startsWith("catalog"), result.error.message);
        }
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("openCatalog() resolves a relative cwd against the catalog's folder", async () => {
  const folder = await Deno.makeTempDir();
  try {
    const file = `${folder}/loom.toml`;
    await Deno.writeTextFile(
      file,
      '[mcp.a]\ncommand = "x"\ncwd = "servers/a"\n[mcp.b]\ncommand = "x"\ncwd = "/srv/b"\n',
    );
    const result = await openStrict(file);
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.map((spec) => isRemote(spec) ? undefined : spec.cwd),
      [`${folder}/servers/a`, "/srv/b"],
    );
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("readCatalog() takes an absolute command with spaces as one executable when the file is there", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/Jo Smith`);
    const executable = `${dir}/Jo Smith/server`;
    await Deno.writeTextFile(executable, "#!/bin/sh\n");
    const toml = readTomlStrict(`[mcp.a]\ncommand = ${JSON.stringify(executable)}\n`);
    assert.ok(toml.ok, JSON.stringify(toml));
    assert.equal(toml.value[0]?.command, executable);
    const json = readJsonStrict(JSON.stringify({ mcpServers: { a: { command: executable } } }));
    assert.ok(json.ok, JSON.stringify(json));
    // No file there: a shell string, and the message says what would make it one path.
    const missing = `${dir}/Jo Smith/other`;
    const refused = readTomlStrict(`[mcp.a]\ncommand = ${JSON.stringify(missing)}\n`);
    assert.ok(!refused.ok && refused.error.kind === "invalid_entry", JSON.stringify(refused));
    assert.match(
      refused.error.message,
      /found a shell string .*; if it is one executable whose path holds spaces, no file is at that path$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readCatalog() refuses a text past MAX_CATALOG_BYTES unread, counting UTF-8 bytes", () => {
  const cases: [string, string, number][] = [
    ["ASCII", `# ${"x".repeat(MAX_CATALOG_BYTES)}\n`, MAX_CATALOG_BYTES + 3],
    // Fewer UTF-16 units than the bound, more bytes: each "é" is two.
    ["two-byte characters", `# ${"é".repeat(MAX_CATALOG_BYTES / 2)}\n`, MAX_CATALOG_BYTES + 3],
  ];
  for (const [name, text, bytes] of cases) {
    for (const file of ["loom.toml", "mcp.json"]) {
      const read = readCatalog(text, { file });
      assert.ok(!read.ok, `${name} ${file}`);
      assert.equal(read.error.kind, "invalid_catalog");
      assert.equal(
        read.error.message,
        `${file}: the catalog is ${bytes} bytes, more than the ${MAX_CATALOG_BYTES} allowed; ` +
          "is this the right file?",
      );
    }
  }
  // At the bound it is read.
  const at = `# ${"x".repeat(MAX_CATALOG_BYTES - 3)}\n`;
  assert.ok(readCatalog(at, { file: "loom.toml" }).ok);
});
