import assert from "node:assert/strict";
import { checkSpec, isTimeoutMs, TIMEOUT_RULE } from "../../settings/check.ts";
import { MAX_ROOTS, MAX_TIMEOUT_MS } from "../../settings/limits.ts";
import { withDefaults } from "../../settings/server_spec.ts";
import { Census } from "../../client/census.ts";
import { readCatalog } from "../../catalog/read.ts";
import { describe } from "../../catalog/_text.ts";
import type { ServerSpec } from "../../settings/mod.ts";
import { boot } from "../../harness/harness.ts";
import { runProgram } from "../../runner/host/runner.ts";

/**
 * One rule: a bad spec as a harness writes it, the same server as a catalog
 * writes it, and where each refuses it. `same` marks a rule the catalog says
 * in the spec's own words; elsewhere the catalog's reader refuses the value
 * first, in words of its own that say what to write in the file.
 */
type Rule = {
  name: string;
  spec: Record<string, unknown>;
  toml: string;
  key: string;
  catalogKey: string | undefined;
  error: typeof TypeError | typeof RangeError;
  same: boolean;
};

const STDIO = { name: "x", command: "x" };
const REMOTE = { name: "x", url: "https://a.example/mcp" };

function stdio(field: Record<string, unknown>, line: string) {
  return { spec: { ...STDIO, ...field }, toml: `[mcp.x]\ncommand = "x"\n${line}\n` };
}

function remote(field: Record<string, unknown>, line: string) {
  return {
    spec: { ...REMOTE, ...field },
    toml: `[mcp.x]\nurl = "https://a.example/mcp"\n${line}\n`,
  };
}

const RULES: Rule[] = [
  {
    name: "a name that is not a module segment",
    spec: { ...STDIO, name: "GitHub" },
    toml: '[mcp.GitHub]\ncommand = "x"\n',
    key: "name",
    catalogKey: undefined,
    error: TypeError,
    same: false,
  },
  {
    name: "a device name",
    spec: { ...STDIO, name: "con" },
    toml: '[mcp.con]\ncommand = "x"\n',
    key: "name",
    catalogKey: undefined,
    error: TypeError,
    same: false,
  },
  {
    name: "an empty command",
    spec: { ...STDIO, command: "" },
    toml: '[mcp.x]\ncommand = ""\n',
    key: "command",
    catalogKey: "command",
    error: TypeError,
    same: false,
  },
  {
    name: "a command holding NUL",
    ...stdio({ command: "a\0b" }, ""),
    toml: '[mcp.x]\ncommand = "a\\u0000b"\n',
    key: "command",
    catalogKey: "command",
    error: TypeError,
    same: true,
  },
  {
    name: "args that are not an array",
    ...stdio({ args: "--stdio" }, 'args = "--stdio"'),
    key: "args",
    catalogKey: "args",
    error: TypeError,
    same: false,
  },
  {
    name: "an argument holding NUL",
    ...stdio({ args: ["a\0"] }, 'args = ["a\\u0000"]'),
    key: "args",
    catalogKey: "args",
    error: TypeError,
    same: true,
  },
  {
    name: "an env value holding NUL",
    ...stdio({ env: { A: "x\0" } }, 'env = { A = "x\\u0000" }'),
    key: "env",
    catalogKey: "env",
    error: TypeError,
    same: true,
  },
  {
    name: "an env name holding '='",
    ...stdio({ env: { "A=B": "1" } }, 'env = { "A=B" = "1" }'),
    key: "env",
    catalogKey: "env",
    error: TypeError,
    same: false,
  },
  {
    name: "an inherited name holding '='",
    ...stdio({ inheritEnv: ["A=B"] }, 'inherit_env = ["A=B"]'),
    key: "inheritEnv",
    catalogKey: "inherit_env",
    error: TypeError,
    same: false,
  },
  {
    name: "an empty cwd",
    ...stdio({ cwd: "" }, 'cwd = ""'),
    key: "cwd",
    catalogKey: "cwd",
    error: TypeError,
    same: true,
  },
  {
    name: "a cwd holding NUL",
    ...stdio({ cwd: "/a\0" }, 'cwd = "/a\\u0000"'),
    key: "cwd",
    catalogKey: "cwd",
    error: TypeError,
    same: true,
  },
  {
    name: "an unknown stderr mode",
    ...stdio({ stderr: "merge" }, 'stderr = "merge"'),
    key: "stderr",
    catalogKey: "stderr",
    error: TypeError,
    same: true,
  },
  {
    name: "a url that is not one",
    ...remote({ url: "mcp server" }, ""),
    toml: '[mcp.x]\nurl = "mcp server"\n',
    key: "url",
    catalogKey: "url",
    error: TypeError,
    same: true,
  },
  {
    name: "a url that is not http or https",
    ...remote({ url: "ftp://a.example/mcp" }, ""),
    toml: '[mcp.x]\nurl = "ftp://a.example/mcp"\n',
    key: "url",
    catalogKey: "url",
    error: TypeError,
    same: true,
  },
  {
    name: "a header HTTP cannot carry",
    ...remote({ headers: { "Bad Name": "x" } }, 'headers = { "Bad Name" = "x" }'),
    key: "headers",
    catalogKey: "headers",
    error: TypeError,
    same: true,
  },
  {
    name: "a sign-in grant that is not one",
    ...remote({ oauth: { grant: "implicit" } }, '[mcp.x.oauth]\ngrant = "implicit"'),
    key: "oauth",
    catalogKey: "oauth.grant",
    error: TypeError,
    same: false,
  },
  {
    name: "a sign-in setting with a typo",
    ...remote({ oauth: { clientID: "c" } }, '[mcp.x.oauth]\nclientID = "c"'),
    key: "oauth",
    catalogKey: "oauth.clientID",
    error: TypeError,
    same: false,
  },
  {
    name: "a callback port no socket has",
    ...remote({ oauth: { callbackPort: 70_000 } }, "[mcp.x.oauth]\ncallback_port = 70000"),
    key: "oauth",
    catalogKey: "oauth.callback_port",
    error: RangeError,
    same: false,
  },
  {
    name: "an unknown era",
    ...stdio({ era: "future" }, 'era = "future"'),
    key: "era",
    catalogKey: "era",
    error: TypeError,
    same: true,
  },
  {
    name: "a version this client does not speak",
    ...stdio({ versions: ["2099-01-01"] }, 'versions = ["2099-01-01"]'),
    key: "versions",
    catalogKey: "versions",
    error: RangeError,
    same: true,
  },
  {
    name: "no version at all",
    ...stdio({ versions: [] }, "versions = []"),
    key: "versions",
    catalogKey: "versions",
    error: RangeError,
    same: true,
  },
  {
    name: "a pinned era with none of its versions",
    ...stdio(
      { era: "modern", versions: ["2025-11-25"] },
      'era = "modern"\nversions = ["2025-11-25"]',
    ),
    key: "versions",
    catalogKey: "versions",
    error: RangeError,
    same: true,
  },
  {
    name: "a zero timeout",
    ...stdio({ connectTimeoutMs: 0 }, "connect_timeout_ms = 0"),
    key: "connectTimeoutMs",
    catalogKey: "connect_timeout_ms",
    error: RangeError,
    same: false,
  },
  {
    name: "a timeout no timer can keep",
    ...stdio({ callTimeoutMs: MAX_TIMEOUT_MS + 1 }, `call_timeout_ms = ${MAX_TIMEOUT_MS + 1}`),
    key: "callTimeoutMs",
    catalogKey: "call_timeout_ms",
    error: RangeError,
    same: false,
  },
  {
    name: "enabledTools that is not an array",
    ...stdio({ enabledTools: "echo" }, 'enabled_tools = "echo"'),
    key: "enabledTools",
    catalogKey: "enabled_tools",
    error: TypeError,
    same: false,
  },
  {
    name: "disabledTools holding a number",
    ...remote({ disabledTools: ["a", 3] }, 'disabled_tools = ["a", 3]'),
    key: "disabledTools",
    catalogKey: "disabled_tools",
    error: TypeError,
    same: false,
  },
  {
    name: "disabledTools holding an empty name",
    ...stdio({ disabledTools: [""] }, 'disabled_tools = [""]'),
    key: "disabledTools",
    catalogKey: "disabled_tools",
    error: TypeError,
    same: false,
  },
  {
    name: "an unknown resultCheck",
    ...stdio({ resultCheck: "ignore" }, 'result_check = "ignore"'),
    key: "resultCheck",
    catalogKey: "result_check",
    error: TypeError,
    same: true,
  },
  {
    name: "a logLevel that is no level",
    ...stdio({ logLevel: "loud" }, 'log_level = "loud"'),
    key: "logLevel",
    catalogKey: "log_level",
    error: TypeError,
    same: true,
  },
];

Deno.test("each rule of a spec refuses the spec in the census and in the catalog, at the same key", async (t) => {
  for (const rule of RULES) {
    await t.step(rule.name, () => {
      const checked = checkSpec(rule.spec);
      assert.ok(!checked.ok, `checkSpec accepted ${rule.name}`);
      assert.equal(checked.error.key, rule.key);
      const server = rule.key === "name" ? "server 0" : 'server "x"';
      assert.throws(
        () => Census.prepare([rule.spec as ServerSpec], { permissions: "inherit" }),
        (error: Error) =>
          error instanceof rule.error &&
          error.message ===
            `Cannot prepare ${server}: key "${rule.key}": ${checked.error.message}`,
      );
      const read = readCatalog(rule.toml, { file: "loom.toml", mode: "strict" });
      assert.ok(!read.ok, `the catalog accepted ${rule.name}`);
      assert.equal(read.error.table, rule.key === "name" ? `mcp.${rule.spec["name"]}` : "mcp.x");
      assert.equal(read.error.key, rule.catalogKey);
      if (rule.same) {
        // The catalog's message is the spec's problem, said in the file's words.
        const inToml = checkSpec(rule.spec, { describe: (value) => describe(value, "toml") });
        assert.ok(!inToml.ok);
        assert.equal(
          read.error.message,
          `loom.toml: [mcp.x] key "${rule.catalogKey}": ${inToml.error.message}`,
        );
      }
    });
  }
});

Deno.test("checkSpec() writes out the documented defaults of a minimal spec", () => {
  const stdio = checkSpec({ name: "memory", command: "deno", args: ["run", "server.ts"] });
  assert.ok(stdio.ok);
  assert.deepEqual({ ...stdio.value, env: { ...(stdio.value as { env: object }).env } }, {
    name: "memory",
    command: "deno",
    args: ["run", "server.ts"],
    env: {},
    inheritEnv: [],
    stderr: "tail",
  });
  const bare = checkSpec({ name: "memory", command: "deno" });
  assert.ok(bare.ok && "args" in bare.value);
  assert.deepEqual(bare.value.args, []);
  const remote = checkSpec({ name: "linear", url: "https://mcp.linear.app/mcp" });
  assert.ok(remote.ok && "headers" in remote.value);
  assert.deepEqual(Object.entries(remote.value.headers), []);
});

Deno.test("withDefaults() keeps what a spec says and gives records without a prototype", () => {
  const written = withDefaults({
    name: "a",
    command: "x",
    args: ["1"],
    env: { A: "1" },
    inheritEnv: ["HOME"],
    stderr: "forward",
    cwd: "/srv",
  });
  assert.deepEqual(written, {
    name: "a",
    command: "x",
    args: ["1"],
    env: { A: "1" },
    inheritEnv: ["HOME"],
    stderr: "forward",
    cwd: "/srv",
  });
  const bare = withDefaults({ name: "a", command: "x" });
  assert.ok("env" in bare);
  assert.equal(Object.getPrototypeOf(bare.env), null);
});

Deno.test("checkSpec() refuses what is not a spec object, naming no key", async (t) => {
  for (const value of [null, 7, "x", ["x"]]) {
    await t.step(JSON.stringify(value), () => {
      const checked = checkSpec(value);
      assert.ok(!checked.ok);
      assert.equal(checked.error.key, undefined);
      assert.equal(checked.error.kind, "wrong_type");
      assert.throws(() => Census.prepare([value as unknown as ServerSpec]), TypeError);
    });
  }
});

Deno.test("isTimeoutMs() is the timeout rule: above zero, at most what a timer can wait", async (t) => {
  const table: [unknown, boolean][] = [
    [1, true],
    [0.5, true],
    [MAX_TIMEOUT_MS, true],
    [MAX_TIMEOUT_MS + 1, false],
    [0, false],
    [-1, false],
    [NaN, false],
    [Infinity, false],
    ["5000", false],
    [5000n, false],
    [undefined, false],
  ];
  for (const [value, valid] of table) {
    await t.step(String(value), () => assert.equal(isTimeoutMs(value), valid));
  }
  assert.equal(TIMEOUT_RULE, "a positive number of milliseconds, at most 2147483647");
});

Deno.test("every deadline a caller gives follows the one timeout rule", async (t) => {
  const spec = { name: "x", command: "/nonexistent/never" };
  const callers: [string, (timeoutMs: number) => Promise<unknown>][] = [
    [
      "a spec's connectTimeoutMs",
      (ms) => Promise.resolve().then(() => Census.prepare([{ ...spec, connectTimeoutMs: ms }])),
    ],
    [
      "a census's retirementTimeoutMs",
      (ms) => Promise.resolve().then(() => Census.prepare([spec], { retirementTimeoutMs: ms })),
    ],
    ["a call's timeoutMs", async (ms) => {
      const census = Census.prepare([spec]);
      try {
        return census.clients.get("x")?.callTool("t", {}, { timeoutMs: ms });
      } finally {
        await census.retire();
      }
    }],
    ["a boot's listTimeoutMs", (ms) => boot([], { listTimeoutMs: ms })],
    [
      "a run's timeoutMs",
      (ms) =>
        runProgram("export default 1;", {
          modules: new Map(),
          call: () => {
            throw new Error("no call");
          },
          timeoutMs: ms,
        }),
    ],
    [
      "a run's checkTimeoutMs",
      (ms) =>
        runProgram("export default 1;", {
          modules: new Map(),
          call: () => {
            throw new Error("no call");
          },
          checkTimeoutMs: ms,
        }),
    ],
  ];
  for (const [name, use] of callers) {
    await t.step(name, async () => {
      for (const ms of [0, -1, NaN, MAX_TIMEOUT_MS + 1]) {
        await assert.rejects(
          use(ms),
          (error: Error) => error instanceof RangeError && error.message.includes(TIMEOUT_RULE),
          `${name} took ${ms}`,
        );
      }
    });
  }
});

Deno.test("checkSpec() refuses a restart policy a supervisor cannot run", async (t) => {
  const base = { name: "x", command: "x" };
  assert.ok(checkSpec({ ...base, restart: {} }).ok);
  assert.ok(checkSpec({ ...base, restart: { max: 3, backoffMs: 500 } }).ok);
  const bad: [unknown, "wrong_type" | "out_of_range"][] = [
    [3, "wrong_type"],
    [{ tries: 1 }, "wrong_type"],
    [{ max: 0 }, "out_of_range"],
    [{ max: 1.5 }, "out_of_range"],
    [{ backoffMs: 0 }, "out_of_range"],
  ];
  for (const [restart, kind] of bad) {
    await t.step(JSON.stringify(restart), () => {
      const checked = checkSpec({ ...base, restart });
      assert.ok(!checked.ok && checked.error.key === "restart", JSON.stringify(checked));
      assert.equal(checked.error.kind, kind);
    });
  }
  assert.throws(() => Census.prepare([{ ...base, restart: { max: 0 } }]), RangeError);
});

Deno.test("checkSpec() refuses roots that are not file: URIs with optional names", async (t) => {
  const base = { name: "x", command: "x" };
  assert.ok(checkSpec({ ...base, roots: [{ uri: "file:///w", name: "w" }] }).ok);
  const bad: [unknown, "wrong_type" | "out_of_range"][] = [
    [{ uri: "file:///w" }, "wrong_type"],
    [[{ uri: "https://h/w" }], "wrong_type"],
    [[{ uri: "/w" }], "wrong_type"],
    [[{ uri: "file:///w", name: 3 }], "wrong_type"],
    [[{ uri: "file:///w", path: "/w" }], "wrong_type"],
    [Array.from({ length: MAX_ROOTS + 1 }, () => ({ uri: "file:///w" })), "out_of_range"],
  ];
  for (const [roots, kind] of bad) {
    await t.step(JSON.stringify(roots).slice(0, 60), () => {
      const checked = checkSpec({ ...base, roots });
      assert.ok(!checked.ok && checked.error.key === "roots", JSON.stringify(checked));
      assert.equal(checked.error.kind, kind);
    });
  }
});
