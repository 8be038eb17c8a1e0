import assert from "node:assert/strict";
import { serveFixture } from "../client/_http_servers.ts";
import { cli, DENO, fixture, FIXTURES } from "./_cli.ts";

Deno.test("--stdio takes --env (repeatable) and --cwd, and is named after its script", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-adhoc-" }));
  try {
    const run = await cli(Deno.cwd(), [
      "--stdio",
      `${DENO} run --quiet --no-lock --allow-env ${FIXTURES}env_server.ts`,
      "--env",
      "FIRST=1",
      "--env",
      "SECOND=a=b c",
      "--cwd",
      dir,
      "call",
      "env",
      "whereami",
      '{"names": ["FIRST", "SECOND", "GITHUB_TOKEN"]}',
      "--json",
    ], { env: { GITHUB_TOKEN: "not passed on" } });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout).result;
    assert.deepEqual(result.structuredContent, {
      cwd: dir,
      env: { FIRST: "1", SECOND: "a=b c", GITHUB_TOKEN: null },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--http takes --header (repeatable); a server is named after its host", async () => {
  const peer = await serveFixture("http_peer.ts", ["bearer"]);
  try {
    const url = `${peer.origin}/mcp`;
    const [given, missing] = await Promise.all([
      cli(Deno.cwd(), [
        "--http",
        url,
        "--header",
        "Authorization: Bearer t-1",
        "--header",
        "X-Extra: 1",
        "tools",
      ]),
      cli(Deno.cwd(), ["--http", url, "--name", "peer", "check"]),
    ]);
    assert.equal(given.code, 0, given.stderr);
    assert.match(given.stdout, /^remote \(mcp\/remote\.ts, 1 tool\)$/m);
    assert.match(given.stderr, /^ {2}remote +ready +1 /m);
    assert.equal(missing.code, 1, missing.stdout);
    assert.match(missing.stdout, /^error: server "peer" failed to start: .*401/m);
  } finally {
    await peer.close();
  }
});

Deno.test("every command takes a server by the name its file wrote as well as by its derived name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loom-alias-" });
  try {
    const [command, ...args] = fixture("echo_server.ts").split(" ");
    await Deno.writeTextFile(
      `${dir}/servers.json`,
      JSON.stringify({ mcpServers: { "GitHub-Like Everything": { command, args } } }),
    );
    const [byKey, byName, module, tools] = await Promise.all([
      cli(dir, ["servers.json", "call", "GitHub-Like Everything", "echo", "text=hi"]),
      cli(dir, ["servers.json", "call", "github-like_everything", "echo", "text=hi"]),
      cli(dir, ["servers.json", "module", "GitHub-Like Everything"]),
      cli(dir, ["servers.json", "tools", "GitHub-Like Everything", "--json"]),
    ]);
    for (const run of [byKey, byName]) {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "hi\n");
    }
    assert.equal(module.code, 0, module.stderr);
    assert.match(module.stdout, /from the tools\/list of server "github-like_everything"/);
    assert.equal(JSON.parse(tools.stdout).servers[0].name, "github-like_everything");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
