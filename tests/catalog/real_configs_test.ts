import assert from "node:assert/strict";
import {
  type Catalog,
  isRemote,
  openCatalog,
  readCatalog,
  type ResolvedServerSpec,
  type ResolvedStdioSpec,
} from "../../mod.ts";
import { CATALOG_FILES } from "../../catalog/mod.ts";

/** The specs of a catalog of stdio servers only, as such. */
function stdio(specs: readonly ResolvedServerSpec[]): ResolvedStdioSpec[] {
  return specs.map((spec) => {
    assert.ok(!isRemote(spec), `${spec.name} is remote`);
    return spec;
  });
}

const REAL = new URL("./data/real/", import.meta.url);
const ENV = {
  HOME: "/home/me",
  GITHUB_TOKEN: "ghp_example",
  PROJECT_API_KEY: "k-123",
  FETCH_TOKEN: "f-456",
};

async function read(name: string, options: Parameters<typeof readCatalog>[1] = {}) {
  const text = await Deno.readTextFile(new URL(name, REAL));
  return readCatalog(text, { file: name, env: ENV, workspaceFolder: "/work/app", ...options });
}

function catalog(result: Awaited<ReturnType<typeof read>>): Catalog {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.value;
}

function skipped(value: Catalog): [string, string][] {
  return value.skipped.map((entry) => [entry.key, entry.reason]);
}

Deno.test("readCatalog() reads a Claude Desktop file: a name like GitHub gets a module segment, a disabled entry is listed as disabled", async () => {
  const value = catalog(await read("claude_desktop_config.json"));
  assert.deepEqual(value.servers.map((spec) => spec.name), ["github", "filesystem"]);
  assert.deepEqual(value.renamed, [{ key: "GitHub", name: "github" }]);
  assert.equal(stdio(value.servers)[0]?.env["GITHUB_PERSONAL_ACCESS_TOKEN"], "ghp_example");
  assert.deepEqual(skipped(value), []);
  assert.deepEqual(value.disabled, [{
    key: "puppeteer",
    table: "mcpServers.puppeteer",
    message:
      'claude_desktop_config.json: mcpServers.puppeteer is disabled ("disabled": true), so it is not started',
  }]);
});

Deno.test("readCatalog() reads a Claude Code .mcp.json: its OAuth entry is served, malformed ones are skipped alone, by name", async () => {
  const value = catalog(await read("claude_code.mcp.json", { env: { HOME: "/home/me" } }));
  assert.deepEqual(value.servers.map((spec) => spec.name), ["memory", "notion"]);
  const local = value.servers.filter((spec) => !isRemote(spec));
  assert.equal(stdio(local)[0]?.env["MEMORY_FILE_PATH"], "/home/me/.claude/memory.jsonl");
  const notion = value.servers.filter(isRemote)[0];
  assert.deepEqual(notion?.oauth, { clientId: "loom-example", callbackPort: 8080 });
  assert.deepEqual(skipped(value), [["sentry", "invalid"], ["db", "invalid"], [
    "broken",
    "invalid",
  ]]);
  const [sentry, db, broken] = value.skipped;
  assert.equal(
    sentry?.message,
    `claude_code.mcp.json: mcpServers.sentry key "headers": "\${SENTRY_TOKEN}" names the variable SENTRY_TOKEN, which is not set in the harness's environment; set it, or write the value itself`,
  );
  assert.equal(
    db?.message,
    `claude_code.mcp.json: mcpServers.db key "args": "\${DATABASE_URL}" names the variable DATABASE_URL, which is not set in the harness's environment; set it, or write the value itself`,
  );
  assert.equal(db?.error?.kind, "invalid_entry");
  assert.match(
    broken?.message ?? "",
    /key "command": expected one executable, found a shell string/,
  );
});

Deno.test("readCatalog() serves a remote entry with its headers' variables from the environment", async () => {
  const value = catalog(
    await read("claude_code.mcp.json", { env: { HOME: "/home/me", SENTRY_TOKEN: "s-1" } }),
  );
  const sentry = value.servers.filter(isRemote).find((spec) => spec.name === "sentry");
  assert.deepEqual(sentry && { ...sentry, headers: { ...sentry.headers } }, {
    name: "sentry",
    url: "https://mcp.sentry.dev/mcp",
    headers: { Authorization: "Bearer s-1" },
  });
});

Deno.test("readCatalog() in strict mode refuses the file at its first malformed entry; remote ones are still only skipped", async () => {
  const env = { HOME: "/home/me", SENTRY_TOKEN: "s-1" };
  const result = await read("claude_code.mcp.json", { env, mode: "strict" });
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.error.kind, "invalid_entry");
    assert.equal(result.error.table, "mcpServers.db");
  }
});

Deno.test("readCatalog() reads a Cursor file: ${workspaceFolder} and ${env:VAR} expand, the URL entry is served", async () => {
  const value = catalog(await read("cursor_mcp.json"));
  const [linear, ...local] = value.servers;
  assert.deepEqual(linear && isRemote(linear) && linear.url, "https://mcp.linear.app/sse");
  assert.deepEqual(stdio(local).map((spec) => [spec.name, spec.args, { ...spec.env }]), [
    ["project-tools", ["/work/app/tools/server.js"], { API_KEY: "k-123" }],
  ]);
  assert.deepEqual(skipped(value), []);
});

Deno.test("readCatalog() reads a VS Code mcp.json: servers, an input not given, ${env:VAR}", async () => {
  const value = catalog(await read("vscode_mcp.json"));
  const local = value.servers.filter((spec) => !isRemote(spec));
  assert.deepEqual(stdio(local).map((spec) => [spec.name, { ...spec.env }]), [
    ["fetch", { FETCH_CACHE: "/work/app/.cache", TOKEN: "f-456" }],
  ]);
  assert.deepEqual(value.servers.filter(isRemote).map((spec) => [spec.name, spec.url]), [
    ["remote", "https://api.githubcopilot.com/mcp/"],
  ]);
  assert.deepEqual(value.renamed, [{ key: "Fetch", name: "fetch" }]);
  assert.deepEqual(skipped(value), [["github", "invalid"]]);
  assert.equal(value.skipped[0]?.error?.kind, "unsupported_entry");
  assert.match(
    value.skipped[0]?.message ?? "",
    /^vscode_mcp\.json: servers\.github key "env": "\$\{input:github-token\}" is the VS Code input "github-token" \("GitHub Personal Access Token"\), which VS Code prompts for; give its value \(loom-mcp: --input github-token=VALUE; readCatalog and openCatalog: the inputs option\)$/,
  );
  const given = catalog(await read("vscode_mcp.json", { inputs: { "github-token": "ghp_x" } }));
  const github = stdio(given.servers.filter((spec) => !isRemote(spec))).find((spec) =>
    spec.name === "github"
  );
  assert.equal(github?.env["GITHUB_PERSONAL_ACCESS_TOKEN"], "ghp_x");
});

Deno.test("readCatalog() reads Codex's [mcp_servers.x], and warns about a mistyped [mpc.x]", async () => {
  const codex = catalog(await read("codex_config.toml"));
  assert.deepEqual(stdio(codex.servers).map((spec) => [spec.name, spec.command, { ...spec.env }]), [
    ["memory", "npx", { MEMORY_FILE_PATH: "/tmp/memory.jsonl" }],
  ]);
  assert.deepEqual(codex.warnings, []);
  const typo = catalog(await read("typo.toml"));
  assert.deepEqual(typo.warnings, [
    "typo.toml: [mpc.memory] is not read: server tables are [mcp.<name>]; write [mcp.memory]",
  ]);
});

Deno.test("readCatalog() refuses two entries that derive the same server name, naming both", () => {
  const result = readCatalog(
    '{"mcpServers": {"github": {"command": "a"}, "GitHub": {"command": "b"}}}',
    {
      file: ".mcp.json",
    },
  );
  assert.ok(result.ok);
  assert.deepEqual(result.value.servers.map((spec) => spec.command), ["a"]);
  assert.equal(
    result.value.skipped[0]?.message,
    '.mcp.json: mcpServers.GitHub: its server name "github" is also the name of "github"; rename one of them',
  );
});

Deno.test("openCatalog() finds the catalog in the usual places and says which file it read", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-find-" }));
  try {
    await t.step("none: an error naming every place looked at", async () => {
      const result = await openCatalog(undefined, { folder: dir });
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.error.kind, "unreadable_file");
        assert.match(
          result.error.message,
          new RegExp(CATALOG_FILES.join(", ").replace(/\./g, "\\.")),
        );
      }
    });
    await t.step(".vscode/mcp.json: the project folder is its parent", async () => {
      await Deno.mkdir(`${dir}/.vscode`);
      await Deno.writeTextFile(
        `${dir}/.vscode/mcp.json`,
        '{"servers": {"app": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/s.js"]}}}',
      );
      const result = await openCatalog(undefined, { folder: dir });
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.equal(result.value.file, `${dir}/.vscode/mcp.json`);
      assert.deepEqual(stdio(result.value.servers).map((spec) => [spec.args, spec.cwd]), [
        [[`${dir}/s.js`], dir],
      ]);
    });
    await t.step(
      "loom.toml comes first; a server without cwd runs in the catalog's folder",
      async () => {
        await Deno.writeTextFile(`${dir}/.mcp.json`, '{"mcpServers": {}}');
        await Deno.writeTextFile(
          `${dir}/loom.toml`,
          '[mcp.a]\ncommand = "x"\n[mcp.b]\ncommand = "x"\ncwd = "sub"\n',
        );
        const result = await openCatalog(undefined, { folder: dir });
        assert.ok(result.ok, result.ok ? "" : result.error.message);
        assert.equal(result.value.file, `${dir}/loom.toml`);
        assert.deepEqual(stdio(result.value.servers).map((spec) => spec.cwd), [dir, `${dir}/sub`]);
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
