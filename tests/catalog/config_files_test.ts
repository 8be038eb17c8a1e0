import assert from "node:assert/strict";
import {
  type Catalog,
  isRemote,
  openCatalog,
  readCatalog,
  type ResolvedServerSpec,
} from "../../mod.ts";
import { MAX_CATALOG_BYTES, userCatalogFiles } from "../../catalog/mod.ts";

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

Deno.test("readCatalog() reads Windsurf's mcp_config.json: a serverUrl is the server's url, and named in its mistakes", async () => {
  const text = await Deno.readTextFile(new URL("windsurf_mcp_config.json", REAL));
  const read = value(readCatalog(text, { file: "mcp_config.json", env: { FIGMA_TOKEN: "fig" } }));
  assert.deepEqual(read.servers.map(summary), [
    { name: "figma", url: "https://mcp.figma.com/mcp", headers: { Authorization: "Bearer fig" } },
  ]);
  assert.deepEqual(read.disabled.map((entry) => entry.key), ["git"]);
  assert.equal(read.skipped[0]?.error?.key, "serverUrl");
  assert.equal(
    read.skipped[0]?.message,
    `mcp_config.json: mcpServers.both key "serverUrl": the entry has both "url" and Windsurf's "serverUrl"; keep one of them`,
  );
  const bad = value(readCatalog('{"mcpServers": {"w": {"serverUrl": "ftp://x/mcp"}}}', {
    file: "mcp_config.json",
    env: {},
  }));
  assert.equal(
    bad.skipped[0]?.message,
    'mcp_config.json: mcpServers.w key "serverUrl": "ftp://x/mcp" is not an http or https URL',
  );
});

Deno.test("readCatalog() expands VS Code's ${workspaceFolderBasename}, ${pathSeparator} and ${/}, which read no variable", () => {
  const text = JSON.stringify({
    servers: {
      app: { command: "x", args: ["${workspaceFolderBasename}", "a${/}b", "${pathSeparator}"] },
    },
  });
  const read = value(readCatalog(text, {
    file: "mcp.json",
    env: { workspaceFolderBasename: "from-env", pathSeparator: "from-env" },
    workspaceFolder: "/work/app",
    expand: { allow: [] },
  }));
  assert.deepEqual(read.servers.map(summary), [
    { name: "app", command: "x", args: ["app", "a/b", "/"], env: {} },
  ]);
  assert.deepEqual(read.substitutions.map((found) => found.variables), [[], [], []]);
});

Deno.test("readCatalog() says what another tool's variable does when it cannot be given", async (t) => {
  const cases: [string, string, Record<string, unknown>][] = [
    [
      "${config:python.path}",
      '"${config:python.path}" reads a VS Code setting, which only VS Code has; write the value itself, or ${env:NAME} for a variable of the harness\'s environment',
      { env: {} },
    ],
    [
      "${command:pick}",
      '"${command:pick}" runs a VS Code command, which only VS Code can; write the value itself, or ${env:NAME} for a variable of the harness\'s environment',
      { env: {} },
    ],
    [
      "${file:/run/secrets/token}",
      '"${file:/run/secrets/token}" reads a file into the value (Windsurf), which is not done here; write the value itself, or ${env:NAME} for a variable of the harness\'s environment',
      { env: {} },
    ],
    // No environment given at all: an input is still said to be one.
    [
      "--key=${input:api-key}",
      '"${input:api-key}" is the VS Code input "api-key", which VS Code prompts for; give its value (loom-mcp: --input api-key=VALUE; readCatalog and openCatalog: the inputs option)',
      {},
    ],
  ];
  for (const [arg, what, options] of cases) {
    await t.step(arg, () => {
      const read = value(readCatalog(
        JSON.stringify({ servers: { app: { command: "x", args: [arg] } } }),
        { file: "mcp.json", ...options },
      ));
      assert.equal(read.skipped[0]?.error?.kind, "unsupported_entry");
      assert.equal(read.skipped[0]?.message, `mcp.json: servers.app key "args": ${what}`);
    });
  }
});

Deno.test("readCatalog() reads the keys newer Codex releases write: required, scopes, env_vars tables", async () => {
  const text = await Deno.readTextFile(new URL("codex_newer.toml", REAL));
  const read = value(readCatalog(text, { file: "config.toml", env: {} }));
  assert.deepEqual(read.servers.map((spec) => spec.name), ["docs", "linear"]);
  const docs = read.servers[0];
  assert.ok(docs !== undefined && !isRemote(docs));
  assert.deepEqual(docs.inheritEnv, ["LOCAL_TOKEN", "OTHER_TOKEN"]);
  assert.deepEqual(read.warnings, [
    "config.toml: [mcp_servers.docs] required = true is not enforced: a server that fails to start is reported in the census, and the harness decides",
    "config.toml: [mcp_servers.linear] scopes are for Codex's own sign-in (codex mcp login) and are not read here",
  ]);
  assert.deepEqual(read.skipped.map((entry) => [entry.key, entry.error?.kind, entry.message]), [
    [
      "remote_env",
      "unsupported_entry",
      `config.toml: [mcp_servers.remote_env] key "env_vars": entry 0 reads "REMOTE_TOKEN" from Codex's remote executor environment, which only Codex has; write it as a name, read from the harness's environment`,
    ],
    [
      "elsewhere",
      "unsupported_entry",
      `config.toml: [mcp_servers.elsewhere] key "experimental_environment": the server runs in Codex's "remote" executor environment, which only Codex has; remove the key to run it here`,
    ],
  ]);
});

Deno.test("openCatalog() with user names a user file it passed over for its size", async () => {
  const home = await Deno.makeTempDir({ prefix: "loom-home-" });
  try {
    // Claude Code keeps a project's history in ~/.claude.json, which grows past a catalog's size.
    const history = "x".repeat(MAX_CATALOG_BYTES);
    await Deno.writeTextFile(
      `${home}/.claude.json`,
      JSON.stringify({ mcpServers: { memory: { command: "npx" } }, history }),
    );
    const size = (await Deno.stat(`${home}/.claude.json`)).size;
    const program = `import { openCatalog } from ${
      JSON.stringify(new URL("../../mod.ts", import.meta.url).href)
    };
      console.log(JSON.stringify(await openCatalog(undefined, { user: true })));`;
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", program],
      // The user's files move to the new home; Deno's cache stays where it is.
      env: {
        HOME: home,
        XDG_CONFIG_HOME: `${home}/.config`,
        CODEX_HOME: `${home}/.codex`,
        DENO_DIR: Deno.env.get("DENO_DIR") ??
          `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    const opened = JSON.parse(new TextDecoder().decode(run.stdout));
    assert.equal(opened.ok, false);
    assert.equal(opened.error.kind, "unreadable_file");
    assert.match(
      opened.error.message,
      new RegExp(
        `; passed over ${home}/\\.claude\\.json \\(${size} bytes, more than the ${MAX_CATALOG_BYTES} a catalog may be\\); give the catalog's path$`,
      ),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("readCatalog() does not start a server VS Code sandboxes, and says so", () => {
  const text = JSON.stringify({
    servers: {
      playwright: {
        type: "stdio",
        command: "npx",
        args: ["-y", "@playwright/mcp"],
        sandboxEnabled: true,
        sandbox: { filesystem: { allowWrite: ["${workspaceFolder}"] } },
      },
      open: { command: "npx", sandboxEnabled: false, sandbox: { network: {} } },
    },
  });
  const read = value(readCatalog(text, { file: "mcp.json", env: {}, workspaceFolder: "/w" }));
  assert.deepEqual(read.servers.map((spec) => spec.name), ["open"]);
  assert.equal(read.skipped[0]?.error?.kind, "unsupported_entry");
  assert.equal(
    read.skipped[0]?.message,
    'mcp.json: servers.playwright key "sandboxEnabled": VS Code runs this server in its own sandbox (the files and hosts in "sandbox"), which is not done here, so it is not started; run the command inside a sandbox of your own, or write "sandboxEnabled": false to run it without one',
  );
});

Deno.test("readCatalog() reads GitHub Copilot's portable .mcp.json: type local, tools with * for all", () => {
  const text = JSON.stringify({
    mcpServers: {
      everything: { type: "local", command: "npx", args: ["-y", "srv"], tools: ["*"] },
      some: { type: "local", command: "npx", tools: ["search", "fetch"] },
      remote: { type: "http", url: "https://api.githubcopilot.com/mcp/", tools: ["*"] },
      both: { command: "npx", tools: ["a"], enabledTools: ["a"] },
    },
  });
  const read = value(readCatalog(text, { file: ".mcp.json", env: {} }));
  assert.deepEqual(
    read.servers.map((spec) => [spec.name, spec.enabledTools]),
    [["everything", undefined], ["some", ["search", "fetch"]], ["remote", undefined]],
  );
  assert.equal(
    read.skipped[0]?.message,
    '.mcp.json: mcpServers.both key "tools": the same list as "enabledTools"; keep one of "enabledTools" and "tools"',
  );
});
