import assert from "node:assert/strict";
import { cli, DENO, FIXTURES } from "./_cli.ts";

const ENV_SERVER = ["run", "--quiet", "--no-lock", "--allow-env", `${FIXTURES}env_server.ts`];
const ECHO = ["run", "--quiet", "--no-lock", `${FIXTURES}echo_server.ts`];

Deno.test("VS Code's mcp.json as VS Code writes it: comments, trailing commas, --input, envFile, ${VAR:-default}", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-vscode-" }));
  try {
    await Deno.mkdir(`${dir}/.vscode`);
    await Deno.writeTextFile(`${dir}/.env`, "# local settings\nFROM_FILE=yes\nLEVEL=overridden\n");
    await Deno.writeTextFile(
      `${dir}/.vscode/mcp.json`,
      `// written by VS Code
{
  "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true, },],
  "servers": {
    "Env": {
      "type": "stdio",
      "command": ${JSON.stringify(DENO)},
      "args": ${JSON.stringify(ENV_SERVER)}, /* the fixture */
      "envFile": "\${workspaceFolder}/.env",
      "env": { "TOKEN": "\${input:token}", "LEVEL": "\${LOOM_LEVEL:-info}", },
    },
    "strict": { "command": "x", "args": ["\${LOOM_NEEDED:?set LOOM_NEEDED to your key}"] },
  },
}
`,
    );
    const run = await cli(dir, [
      "--trust",
      "--input",
      "token=t-42",
      "call",
      "Env",
      "whereami",
      '{"names": ["TOKEN", "LEVEL", "FROM_FILE"]}',
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).result.structuredContent, {
      cwd: dir,
      env: { TOKEN: "t-42", LEVEL: "info", FROM_FILE: "yes" },
    });
    const without = await cli(dir, ["--trust", "check"]);
    assert.match(
      without.stderr,
      /^skipped: \.vscode\/mcp\.json: servers\.strict key "args": "\$\{LOOM_NEEDED:\?set LOOM_NEEDED to your key\}": LOOM_NEEDED is not set in the harness's environment: set LOOM_NEEDED to your key$/m,
    );
    assert.match(
      without.stderr,
      /servers\.Env key "env": "\$\{input:token\}" is the VS Code input "token" \("API token"\), which VS Code prompts for; give its value \(loom-mcp: --input token=VALUE; /,
    );
    assert.match(
      without.stderr,
      /^error: nothing to check: every entry of \.vscode\/mcp\.json was skipped \(2, each said above with what to change\)$/m,
    );
    assert.equal(without.code, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Codex's config.toml is a catalog, every look-alike table is warned about, and skipped entries exit 3", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-codex-" });
  try {
    await Deno.writeTextFile(
      `${dir}/config.toml`,
      [
        'model = "gpt-5"',
        "[mcp_servers.echo]",
        `command = ${JSON.stringify(DENO)}`,
        `args = ${JSON.stringify(ECHO)}`,
        "startup_timeout_sec = 30",
        "[mcp_servers.bad]",
        'command = "bad"',
        "startup_timeout_sec = -1",
        "[mcpServers.one]",
        'command = "a"',
        "[mcpServers.two]",
        'command = "b"',
        "",
      ].join("\n"),
    );
    const [check, allowed] = await Promise.all([
      cli(dir, ["check", "config.toml"]),
      cli(dir, ["check", "config.toml", "--allow-skipped"]),
    ]);
    assert.equal(check.code, 3, check.stderr);
    assert.match(check.stdout, /^Catalog config\.toml: 1 server$/m);
    assert.match(check.stdout, /^ {2}echo +ready +6 /m);
    assert.match(
      check.stderr,
      /^skipped: config\.toml: \[mcp_servers\.bad\] key "startup_timeout_sec": expected a number of seconds /m,
    );
    for (const name of ["one", "two"]) {
      assert.match(
        check.stderr,
        new RegExp(
          `^warning: config\\.toml: \\[mcpServers\\.${name}\\] is not read: server tables are \\[mcp\\.<name>\\]; write \\[mcp\\.${name}\\]$`,
          "m",
        ),
      );
    }
    assert.match(
      check.stderr,
      /^note: 1 entry of config\.toml was skipped \(said above\); exiting 3, or pass --allow-skipped to exit 0$/m,
    );
    assert.equal(allowed.code, 0, allowed.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--user reads the user's own file, named, and says where it looked when there is none", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-home-" }));
  try {
    const env = { HOME: home, XDG_CONFIG_HOME: `${home}/.config`, CODEX_HOME: `${home}/.codex` };
    const none = await cli(home, ["--user", "check"], { env });
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /^error: no user-level catalog lists servers; looked at .*\.claude\.json, /,
    );
    // Claude Code's file without servers is passed over; Cursor's is read.
    await Deno.writeTextFile(`${home}/.claude.json`, JSON.stringify({ numStartups: 3 }));
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.writeTextFile(
      `${home}/.cursor/mcp.json`,
      JSON.stringify({ mcpServers: { echo: { command: DENO, args: ECHO } } }),
    );
    const run = await cli(home, ["--user", "check"], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^Catalog ${home}/\\.cursor/mcp\\.json: 1 server$`, "m"));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("check lists a disabled entry as disabled and exits 0, in Codex's config.toml, .mcp.json and VS Code's mcp.json", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-disabled-" }));
  try {
    const echo = { command: DENO, args: ECHO };
    await Deno.mkdir(`${dir}/.vscode`);
    const files: [file: string, text: string, line: RegExp][] = [
      [
        "config.toml",
        [
          "[mcp_servers.echo]",
          `command = ${JSON.stringify(DENO)}`,
          `args = ${JSON.stringify(ECHO)}`,
          "[mcp_servers.off]",
          'command = "off"',
          "enabled = false",
          "",
        ].join("\n"),
        /^note: config\.toml: \[mcp_servers\.off\] is disabled \(enabled = false\), so it is not started$/m,
      ],
      [
        ".mcp.json",
        JSON.stringify({ mcpServers: { echo, off: { command: "off", disabled: true } } }),
        /^note: \.mcp\.json: mcpServers\.off is disabled \("disabled": true\), so it is not started$/m,
      ],
      [
        ".vscode/mcp.json",
        JSON.stringify({ servers: { echo, off: { command: "off", disabled: true } } }),
        /^note: \.vscode\/mcp\.json: servers\.off is disabled \("disabled": true\), so it is not started$/m,
      ],
    ];
    for (const [file, text] of files) await Deno.writeTextFile(`${dir}/${file}`, text);
    const runs = await Promise.all(files.map(([file]) => cli(dir, ["check", file])));
    for (const [index, [file, , line]] of files.entries()) {
      const run = runs[index];
      assert.ok(run !== undefined);
      assert.equal(run.code, 0, `${file}: ${run.stderr}`);
      assert.ok(
        run.stdout.includes(`Catalog ${file}: 1 server, 1 disabled\n`),
        `${file}: ${run.stdout}`,
      );
      assert.match(run.stderr, line);
      assert.doesNotMatch(run.stderr, /skipped/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("check of a catalog whose every entry is disabled says so and exits 0", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-disabled-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/.mcp.json`,
      JSON.stringify({ mcpServers: { off: { command: "off", disabled: true } } }),
    );
    const run = await cli(dir, ["check", ".mcp.json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^nothing to check: every entry of \.mcp\.json is disabled \(1\)$/m);
    assert.doesNotMatch(run.stderr, /error/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a skipped entry renamed from its JSON key is named by either name, and why it was skipped is said", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-skipped-name-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/servers.json`,
      JSON.stringify({
        mcpServers: {
          Echo: { command: DENO, args: ECHO, env: { KEY: "${LOOM_UNSET_FOR_THIS_TEST}" } },
          off: { command: DENO, args: ECHO, disabled: true },
        },
      }),
    );
    for (const name of ["Echo", "echo"]) {
      await t.step(name, async () => {
        const run = await cli(dir, ["--catalog", "servers.json", "call", name, "echo", "text=x"]);
        assert.equal(run.code, 2, run.stderr);
        assert.match(
          run.stderr,
          new RegExp(`^error: server "${name}" was skipped: .*LOOM_UNSET_FOR_THIS_TEST`, "m"),
        );
      });
    }
    await t.step("a name of none, where every entry was left out", async () => {
      const run = await cli(dir, ["--catalog", "servers.json", "call", "other", "echo"]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /each of its 2 entries was skipped or is disabled/);
      assert.doesNotMatch(run.stderr, /it lists none/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
