// `loom-mcp login` and `logout` through the command line, against the
// loopback authorization server and MCP server of the client's sign-in
// tests, with a browser that consents at once ($BROWSER) and a token store in
// a folder of the test's own ($XDG_CONFIG_HOME).

import assert from "node:assert/strict";
import { oauthWorld, secretsIn } from "../client/_oauth_world.ts";
import { MAX_IGNORED_CALLBACKS } from "../../oauth/mod.ts";

const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const BROWSER = new URL("../fixtures/headless_browser.ts", import.meta.url).pathname;
const FORGING_BROWSER = new URL("../fixtures/forging_browser.ts", import.meta.url).pathname;

type Run = { code: number; stdout: string; stderr: string };

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function cli(dir: string, ...args: string[]): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      "--config",
      CONFIG,
      CLI,
      "--catalog",
      "loom.toml",
      ...args,
    ],
    cwd: dir,
    stdin: "null",
    env: { NO_COLOR: "1", XDG_CONFIG_HOME: `${dir}/config`, BROWSER: `${dir}/browser` },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function storeFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${dir}/config/loom-mcp/oauth`)) {
      files.push(`${dir}/config/loom-mcp/oauth/${entry.name}`);
    }
  } catch {
    // No folder yet.
  }
  return files;
}

Deno.test("login signs in through $BROWSER and keeps the tokens in a 0600 file; check uses them; logout forgets them", async () => {
  const w = oauthWorld();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-login-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/browser`,
      `#!/bin/sh\nexec ${
        JSON.stringify(Deno.execPath())
      } run -A --quiet --no-lock ${BROWSER} "$1"\n`,
    );
    await Deno.chmod(`${dir}/browser`, 0o755);
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      `[mcp.protected]\nurl = ${JSON.stringify(w.mcp.url)}\nera = "legacy"\n\n` +
        `[mcp.protected.oauth]\nredirect_uri = "http://127.0.0.1:${freePort()}/callback"\n`,
    );

    const before = await cli(dir, "check");
    assert.equal(before.code, 1, before.stdout + before.stderr);
    assert.match(before.stdout, /sign in: loom-mcp login protected/);

    const login = await cli(dir, "login", "protected");
    assert.equal(login.code, 0, login.stdout + login.stderr);
    assert.match(
      login.stderr,
      /To sign in to protected, open this URL in a browser:\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/,
    );
    assert.match(
      login.stdout,
      /^Signed in to protected at http:\/\/127\.0\.0\.1:\d+ \(.*\); tokens kept in .*\/config\/loom-mcp\/oauth\n$/,
    );
    assert.deepEqual(secretsIn(w.book, login.stdout + login.stderr), []);
    const [file, ...others] = await storeFiles(dir);
    assert.ok(file !== undefined && others.length === 0);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.ok(secretsIn(w.book, await Deno.readTextFile(file)).length > 0, "the tokens are kept");

    const after = await cli(dir, "check", "--json");
    assert.equal(after.code, 0, after.stdout + after.stderr);
    assert.equal(JSON.parse(after.stdout).ok, true);
    assert.equal(w.as.seen.authorizations.length, 1, "check signed in with the kept token");
    assert.deepEqual(secretsIn(w.book, after.stdout + after.stderr), []);

    const logout = await cli(dir, "logout", "protected");
    assert.equal(logout.code, 0, logout.stdout + logout.stderr);
    assert.match(logout.stdout, /^Signed out of protected: its tokens are gone from /);
    const kept = await Promise.all((await storeFiles(dir)).map((path) => Deno.readTextFile(path)));
    assert.deepEqual(
      secretsIn(w.book, kept.join("\n")).filter((s) => !s.startsWith("client-")),
      [],
    );
    const again = await cli(dir, "check");
    assert.equal(again.code, 1, "signed out: the server needs a sign-in again");
  } finally {
    await w.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("login of a server that runs here is a usage mistake", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-login-" }));
  try {
    await Deno.writeTextFile(`${dir}/loom.toml`, `[mcp.local]\ncommand = "deno"\n`);
    const run = await cli(dir, "login", "local");
    assert.equal(run.code, 2);
    assert.match(run.stderr, /server "local" runs here from a command, and signs in to nothing/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A catalog of one protected server in `dir`, and a $BROWSER that runs `fixture` with `args`. */
async function forgingSetup(
  dir: string,
  mcpUrl: string,
  args: string[],
): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/browser`,
    `#!/bin/sh\nexec ${JSON.stringify(Deno.execPath())} run -A --quiet --no-lock ` +
      `${FORGING_BROWSER} "$1" ${args.map((arg) => JSON.stringify(arg)).join(" ")}\n`,
  );
  await Deno.chmod(`${dir}/browser`, 0o755);
  await Deno.writeTextFile(
    `${dir}/loom.toml`,
    `[mcp.protected]\nurl = ${JSON.stringify(mcpUrl)}\nera = "legacy"\n\n` +
      `[mcp.protected.oauth]\nredirect_uri = "http://127.0.0.1:${freePort()}/callback"\n`,
  );
}

Deno.test("login answers and ignores callbacks without the sign-in's state, and signs in with the real one after them", async () => {
  const w = oauthWorld();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-login-" }));
  try {
    await forgingSetup(dir, w.mcp.url, [`${dir}/forged.jsonl`, "4"]);
    const login = await cli(dir, "login", "protected");
    assert.equal(login.code, 0, login.stdout + login.stderr);
    assert.match(login.stdout, /^Signed in to protected at /);
    const answers = (await Deno.readTextFile(`${dir}/forged.jsonl`)).trim().split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(answers.length, 4);
    for (const answer of answers) {
      assert.equal(answer.status, 400);
      assert.match(answer.body, /This request was ignored: it is not the answer to the sign-in/);
    }
    assert.equal(w.as.seen.authorizations.length, 1);
    assert.equal((await storeFiles(dir)).length, 1, "the real callback's tokens are kept");
  } finally {
    await w.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("login fails, saying why, once more callbacks without its state arrive than it tolerates", async () => {
  const w = oauthWorld();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-login-" }));
  try {
    const forgeries = String(MAX_IGNORED_CALLBACKS + 1);
    await forgingSetup(dir, w.mcp.url, [`${dir}/forged.jsonl`, forgeries, "forge-only"]);
    const login = await cli(dir, "login", "protected");
    assert.equal(login.code, 1, login.stdout + login.stderr);
    assert.match(
      login.stderr,
      new RegExp(
        `${forgeries} requests reached 127\\.0\\.0\\.1:\\d+/callback that were not ` +
          `the answer to this sign-in`,
      ),
    );
    assert.deepEqual(w.as.seen.tokens, [], "no forged code was exchanged");
  } finally {
    await w.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("login of a token whose expires_in no date can hold signs in, saying until when it is held", async () => {
  const w = oauthWorld({ expiresIn: 1e13, clients: { svc: { secret: "svc-secret-value" } } });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-login-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      `[mcp.far]\nurl = ${JSON.stringify(w.mcp.url)}\nera = "legacy"\n\n` +
        `[mcp.far.oauth]\ngrant = "client_credentials"\nclient_id = "svc"\n` +
        `client_secret = "svc-secret-value"\n`,
    );
    const year = new Date().getUTCFullYear();
    const login = await cli(dir, "login", "far");
    assert.equal(login.code, 0, login.stdout + login.stderr);
    const until = /, until (\d{4})-\d\d-\d\dT[\d:.]+Z\)/.exec(login.stdout);
    assert.ok(until !== null, login.stdout);
    assert.ok(Number(until[1]) <= year + 2, `held until ${until[1]}`);
    const json = await cli(dir, "login", "far", "--json");
    assert.equal(json.code, 0, json.stdout + json.stderr);
    const expiresAt = Date.parse(JSON.parse(json.stdout).expiresAt);
    assert.ok(Number.isFinite(expiresAt) && new Date(expiresAt).getUTCFullYear() <= year + 2);
    assert.deepEqual(
      secretsIn(w.book, login.stdout + login.stderr + json.stdout + json.stderr),
      [],
    );
  } finally {
    await w.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("login of a remote server that answers without a sign-in says there is nothing to log in to", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-login-open-" }));
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      new URL("../fixtures/sdk_v2_http.ts", import.meta.url).pathname,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let said = "";
    for (let i = 0; i < 100 && !/listening \d+\n/.test(said); i++) {
      const read = await reader.read();
      if (read.done) break;
      said += read.value;
    }
    const port = /listening (\d+)\n/.exec(said)?.[1];
    assert.ok(port !== undefined, said);
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      `[mcp.open]\nurl = "http://127.0.0.1:${port}/mcp"\n`,
    );
    const run = await cli(dir, "login", "open");
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /^error: server "open" answered without signing in .*nothing to log in to/m,
    );
    assert.doesNotMatch(run.stderr, /register/);
    assert.deepEqual(await storeFiles(dir), []);
  } finally {
    server.kill("SIGTERM");
    await reader.cancel();
    await server.status;
    await Deno.remove(dir, { recursive: true });
  }
});
