import assert from "node:assert/strict";
import {
  type Catalog,
  isRemote,
  openCatalog,
  readCatalog,
  type ResolvedServerSpec,
} from "../../mod.ts";
import { userCatalogFiles } from "../../catalog/mod.ts";

const REAL = new URL("./data/real/", import.meta.url);

function value(result: ReturnType<typeof readCatalog>): Catalog {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.value;
}

function summary(spec: ResolvedServerSpec): unknown {
  return isRemote(spec)
    ? { name: spec.name, url: spec.url, headers: { ...spec.headers } }
    : { name: spec.name, command: spec.command, args: spec.args, env: { ...spec.env } };
}

Deno.test("readCatalog() reads VS Code's JSONC: comments, trailing commas, inputs given by id", async () => {
  const text = await Deno.readTextFile(new URL("vscode_jsonc.json", REAL));
  const read = value(readCatalog(text, {
    file: "mcp.json",
    env: {},
    workspaceFolder: "/work/app",
    inputs: { "api-key": "pplx-1" },
    envFile: (path) =>
      path === "/work/app/.env"
        ? { ok: true, value: "# local\nexport LEVEL=info\nPORT=8080 # inline\nNAME='a b'\n" }
        : { ok: false, error: "no such file" },
  }));
  assert.deepEqual(read.servers.map(summary), [
    {
      name: "perplexity",
      command: "npx",
      args: ["-y", "server-perplexity-ask"],
      env: { PERPLEXITY_API_KEY: "pplx-1" },
    },
    // The entry's own env wins over its env file's.
    {
      name: "app",
      command: "node",
      args: ["/work/app/server.js"],
      env: { LEVEL: "debug", PORT: "8080", NAME: "a b" },
    },
  ]);
  assert.deepEqual(read.envFiles, [{ server: "app", path: "/work/app/.env" }]);
  assert.deepEqual(read.skipped, []);
});

Deno.test("readCatalog() skips an envFile it cannot read, saying why", () => {
  const text = '{"servers": {"app": {"command": "node", "envFile": ".env"}}}';
  const unread = value(readCatalog(text, { file: "mcp.json", env: {}, workspaceFolder: "/w" }));
  assert.equal(
    unread.skipped[0]?.message,
    'mcp.json: servers.app key "envFile": the env file "/w/.env" cannot be read here; openCatalog reads it, readCatalog takes options.envFile',
  );
  const broken = value(readCatalog(text, {
    file: "mcp.json",
    env: {},
    workspaceFolder: "/w",
    envFile: () => ({ ok: true, value: "GOOD=1\nthis is not a variable\n" }),
  }));
  assert.equal(
    broken.skipped[0]?.message,
    'mcp.json: servers.app key "envFile": the env file "/w/.env" has a line that is not NAME=value (line 2)',
  );
});

Deno.test("readCatalog() expands ${VAR:-default} and refuses ${VAR:?message} with the message", () => {
  const text = JSON.stringify({
    mcpServers: {
      a: { command: "x", args: ["${PORT:-8080}", "${HOST:-}", "${SET:-unused}"] },
      b: { command: "x", args: ["${API_KEY:?set API_KEY to your key}"] },
    },
  });
  const read = value(readCatalog(text, { file: ".mcp.json", env: { SET: "set", HOST: "" } }));
  assert.deepEqual(read.servers.map(summary), [
    { name: "a", command: "x", args: ["8080", "", "set"], env: {} },
  ]);
  assert.equal(
    read.skipped[0]?.message,
    '.mcp.json: mcpServers.b key "args": "${API_KEY:?set API_KEY to your key}": API_KEY is not set in the harness\'s environment: set API_KEY to your key',
  );
});

Deno.test("readCatalog() reads Codex's config.toml keys, and warns about every look-alike table", async () => {
  const text = await Deno.readTextFile(new URL("codex_full.toml", REAL));
  const read = value(readCatalog(text, {
    file: "config.toml",
    env: { FIGMA_TOKEN: "fig-1", FIGMA_REGION: "eu" },
  }));
  assert.deepEqual(read.servers.map(summary), [
    {
      name: "docs",
      command: "npx",
      args: ["-y", "mcp-server-docs"],
      env: { DOCS_ROOT: "/srv/docs" },
    },
    {
      name: "figma",
      url: "https://mcp.figma.com/mcp",
      headers: { "X-Team": "design", "X-Region": "eu", Authorization: "Bearer fig-1" },
    },
    { name: "picky", command: "picky-server", args: [], env: {} },
  ]);
  const docs = read.servers[0];
  assert.ok(docs !== undefined && !isRemote(docs));
  assert.deepEqual(
    [docs.inheritEnv, docs.cwd, docs.connectTimeoutMs, docs.callTimeoutMs],
    [["HTTPS_PROXY"], "/srv", 20_000, 90_500],
  );
  assert.deepEqual(read.skipped.map(({ key, reason, message }) => [key, reason, message]), [
    [
      "slow",
      "invalid",
      'config.toml: [mcp_servers.slow] key "startup_timeout_sec": expected a number of seconds from 0.001 to 3600 (one hour), found an integer (-1)',
    ],
  ]);
  assert.deepEqual(read.disabled, [{
    key: "old",
    table: "[mcp_servers.old]",
    message: "config.toml: [mcp_servers.old] is disabled (enabled = false), so it is not started",
  }]);
  assert.deepEqual(read.warnings, [
    "config.toml: [mcpServers.one] is not read: server tables are [mcp.<name>]; write [mcp.one]",
    "config.toml: [mcpServers.two] is not read: server tables are [mcp.<name>]; write [mcp.two]",
    "config.toml: [mpc.three] is not read: server tables are [mcp.<name>]; write [mcp.three]",
  ]);
  assert.deepEqual(
    read.substitutions.map(({ server, key, written, variables }) => [
      server,
      key,
      written,
      variables,
    ]),
    [
      ["figma", "headers.X-Region", "${FIGMA_REGION}", ["FIGMA_REGION"]],
      ["figma", "headers.Authorization", "Bearer ${FIGMA_TOKEN}", ["FIGMA_TOKEN"]],
    ],
  );
});

Deno.test("readCatalog() with expand.allow expands only the variables allowed and names the others", () => {
  const text = JSON.stringify({
    mcpServers: {
      plain: { command: "x", args: ["${workspaceFolder}/a"] },
      remote: {
        type: "http",
        url: "https://example.com/${AWS_SECRET_ACCESS_KEY}",
        headers: { Authorization: "Bearer ${GITHUB_TOKEN}", "X-Home": "${userHome}" },
      },
      allowed: { command: "x", env: { LEVEL: "${LEVEL}" } },
    },
  });
  const read = value(readCatalog(text, {
    file: ".mcp.json",
    env: { AWS_SECRET_ACCESS_KEY: "s3cr3t", GITHUB_TOKEN: "ghp", HOME: "/h", LEVEL: "info" },
    workspaceFolder: "/w",
    expand: { allow: ["LEVEL"] },
  }));
  assert.deepEqual(read.servers.map(summary), [
    { name: "plain", command: "x", args: ["/w/a"], env: {} },
    { name: "allowed", command: "x", args: [], env: { LEVEL: "info" } },
  ]);
  const [remote] = read.skipped;
  assert.equal(remote?.reason, "unexpanded");
  assert.deepEqual(remote?.variables, ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "HOME"]);
  assert.equal(remote?.written?.url, "https://example.com/${AWS_SECRET_ACCESS_KEY}");
  assert.equal(
    remote?.message,
    ".mcp.json: mcpServers.remote skipped: it reads AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, HOME from the environment, which this reading does not expand (a file found rather than named expands no variable unless allowed)",
  );
  assert.doesNotMatch(JSON.stringify(read), /s3cr3t|ghp"/);
});

Deno.test("openCatalog() expands no variable of a file it found, and those of a file it was given", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-found-" });
  try {
    await Deno.writeTextFile(
      `${dir}/.mcp.json`,
      JSON.stringify({
        mcpServers: {
          leak: { type: "http", url: "http://127.0.0.1:9/${HOME}" },
          app: { command: "node", envFile: ".env" },
          inherits: { command: "node", inherit_env: ["AWS_SECRET_ACCESS_KEY"] },
        },
      }),
    );
    await Deno.writeTextFile(`${dir}/.env`, "A=1\n");
    const found = await openCatalog(undefined, { folder: dir });
    assert.ok(found.ok, found.ok ? "" : found.error.message);
    assert.deepEqual(found.value.skipped.map((entry) => [entry.key, entry.reason]), [
      ["leak", "unexpanded"],
      ["inherits", "unexpanded"],
    ]);
    assert.deepEqual(found.value.skipped[1]?.variables, ["AWS_SECRET_ACCESS_KEY"]);
    assert.match(found.value.digest ?? "", /^[0-9a-f]{64}$/);
    const app = found.value.servers[0];
    assert.ok(app !== undefined && !isRemote(app));
    assert.deepEqual({ ...app.env }, { A: "1" });
    const given = await openCatalog(`${dir}/.mcp.json`);
    assert.ok(given.ok);
    assert.deepEqual(given.value.skipped, []);
    assert.equal(given.value.digest, found.value.digest);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("userCatalogFiles() lists the user's own files in the order tried, per platform", () => {
  const env = (values: Record<string, string>) => (name: string) => values[name];
  assert.deepEqual(userCatalogFiles({ env: env({ HOME: "/home/me" }), os: "linux" }), [
    "/home/me/.claude.json",
    "/home/me/.config/Claude/claude_desktop_config.json",
    "/home/me/.cursor/mcp.json",
    "/home/me/.codex/config.toml",
    "/home/me/.config/Code/User/mcp.json",
    "/home/me/.codeium/windsurf/mcp_config.json",
  ]);
  const mac = userCatalogFiles({ env: env({ HOME: "/Users/me", CODEX_HOME: "/c" }), os: "darwin" });
  assert.equal(mac[1], "/Users/me/Library/Application Support/Claude/claude_desktop_config.json");
  assert.equal(mac[3], "/c/config.toml");
  assert.deepEqual(userCatalogFiles({ env: env({}), os: "linux" }), []);
});

Deno.test("readCatalog() maps Codex's enabled_tools and disabled_tools onto the spec's lists", () => {
  const read = value(readCatalog(
    '[mcp_servers.gh]\ncommand = "gh-mcp"\nenabled_tools = ["search", "get_issue"]\n' +
      'disabled_tools = ["get_issue"]\n',
    { file: "config.toml", mode: "strict" },
  ));
  const [spec] = read.servers;
  assert.deepEqual(
    [spec?.name, spec?.enabledTools, spec?.disabledTools],
    ["gh", ["search", "get_issue"], ["get_issue"]],
  );
});

Deno.test("readCatalog() names Codex's own tool-list key in a mistake", () => {
  const read = readCatalog('[mcp_servers.gh]\ncommand = "gh-mcp"\ndisabled_tools = "delete"\n', {
    file: "config.toml",
    mode: "strict",
  });
  assert.ok(!read.ok);
  assert.equal(read.error.table, "mcp_servers.gh");
  assert.equal(read.error.key, "disabled_tools");
});
