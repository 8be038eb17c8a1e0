import assert from "node:assert/strict";
import { isRemote, readCatalog, type ServerSpec } from "../../mod.ts";
import { openStrict, readJsonStrict, readTomlStrict } from "./_strict.ts";

const TOML = `
[mcp.linear]
url = "https://mcp.linear.app/mcp"
headers = { Authorization = "Bearer \${LINEAR_TOKEN}" }
era = "legacy"
call_timeout_ms = 5000
`;

/** A remote spec as plain data (its headers a prototype-free record); a local one fails. */
function plain(spec: ServerSpec | undefined): Record<string, unknown> | undefined {
  if (spec === undefined) return undefined;
  assert.ok(isRemote(spec), `${spec.name} is not remote`);
  return { ...spec, headers: { ...spec.headers } };
}

Deno.test("readCatalog() reads a remote server: url, headers from the environment, the common keys", () => {
  const result = readTomlStrict(TOML, { file: "loom.toml", env: { LINEAR_TOKEN: "lin-1" } });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  assert.deepEqual(plain(result.value[0]), {
    name: "linear",
    url: "https://mcp.linear.app/mcp",
    headers: { Authorization: "Bearer lin-1" },
    era: "legacy",
    callTimeoutMs: 5000,
  });
});

Deno.test("a variable in headers with no environment given is refused, saying where to give one", () => {
  const result = readTomlStrict(TOML, { file: "loom.toml" });
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "unsupported_entry");
  assert.equal(
    result.error.message,
    `loom.toml: [mcp.linear] key "headers": variable substitution is not supported, found "Bearer \${LINEAR_TOKEN}"; write the value itself, or open the file with openCatalog (or give options.env), which expands it from the harness's environment`,
  );
});

Deno.test("an unset variable in headers is an error naming it", () => {
  const result = readTomlStrict(TOML, { file: "loom.toml", env: {} });
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "invalid_entry");
  assert.match(result.error.message, /names the variable LINEAR_TOKEN, which is not set/);
});

Deno.test("openCatalog() expands a remote server's headers from the harness's environment", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/loom.toml`, TOML);
    Deno.env.set("LINEAR_TOKEN", "from-env");
    const result = await openStrict(`${dir}/loom.toml`);
    assert.ok(result.ok, result.ok ? "" : result.error.message);
    assert.deepEqual(plain(result.value[0])?.headers, { Authorization: "Bearer from-env" });
  } finally {
    Deno.env.delete("LINEAR_TOKEN");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readCatalog() of JSON reads url, type and headers as Claude Code, Cursor and VS Code write them", async (t) => {
  for (const type of [undefined, "http", "streamable-http", "streamableHttp"]) {
    await t.step(String(type), () => {
      const entry = { url: "http://127.0.0.1:3000/mcp", headers: { "X-Api-Key": "k" }, type };
      const result = readJsonStrict(JSON.stringify({ mcpServers: { local: entry } }));
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.deepEqual(plain(result.value[0]), {
        name: "local",
        url: "http://127.0.0.1:3000/mcp",
        headers: { "X-Api-Key": "k" },
      });
    });
  }
});

Deno.test("a malformed remote entry is refused in strict mode, and one that cannot be served is skipped in both modes", async (t) => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    [
      "not http",
      { url: "ftp://example.com/mcp" },
      "invalid_entry",
      'key "url": "ftp://example.com/mcp" is not an http or https URL',
    ],
    ["not a URL", { url: "mcp server" }, "invalid_entry", 'key "url": "mcp server" is not a URL'],
    [
      "a header HTTP cannot carry",
      { url: "https://a.example/mcp", headers: { "Bad Name": "x" } },
      "invalid_entry",
      'key "headers": the header "Bad Name" is not one HTTP can carry',
    ],
    [
      "a header that is not a string",
      { url: "https://a.example/mcp", headers: { A: 1 } },
      "invalid_entry",
      'key "headers": the value of header "A" is an integer (1), not a string',
    ],
    [
      "an env for a remote server",
      { url: "https://a.example/mcp", env: { A: "1" } },
      "invalid_entry",
      'key "env": a remote server (at a "url") has no process',
    ],
    [
      "WebSocket",
      { type: "ws", url: "wss://a.example/ws" },
      "unsupported_entry",
      "over WebSocket, which is not supported",
    ],
    [
      "a headers command",
      { type: "http", url: "https://a.example/mcp", headersHelper: "get-token" },
      "unsupported_entry",
      "whose headers a command makes",
    ],
    [
      "an unknown key",
      { url: "https://a.example/mcp", token: "x" },
      "invalid_entry",
      'key "token": unknown key',
    ],
  ];
  for (const [name, entry, kind, message] of cases) {
    await t.step(name, () => {
      const text = JSON.stringify({ mcpServers: { remote: entry } });
      const unservable = kind === "unsupported_entry";
      const strict = readJsonStrict(text, { file: "m.json" });
      if (unservable) assert.ok(strict.ok && strict.value.length === 0);
      else {
        assert.ok(!strict.ok);
        assert.equal(strict.error.kind, kind);
        assert.ok(strict.error.message.includes(message), strict.error.message);
      }
      const read = readCatalog(text, { file: "m.json" });
      assert.ok(read.ok);
      assert.deepEqual(read.value.servers, []);
      const [skipped] = read.value.skipped;
      assert.equal(skipped?.reason, unservable ? "remote" : "invalid");
      assert.ok(skipped?.message.includes(message), skipped?.message);
    });
  }
});

Deno.test("readCatalog() reads [mcp.<name>.oauth] in snake_case, field for field, a secret from the environment", () => {
  const toml = `
[mcp.linear]
url = "https://mcp.linear.app/mcp"

[mcp.linear.oauth]
grant = "client_credentials"
client_id = "svc"
client_secret = "\${LINEAR_SECRET}"
scopes = "read write"
callback_port = 8976
token_endpoint_auth_method = "client_secret_post"
dpop = false
`;
  const result = readTomlStrict(toml, { file: "loom.toml", env: { LINEAR_SECRET: "s-1" } });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const [linear] = result.value;
  assert.ok(linear !== undefined && isRemote(linear));
  assert.deepEqual({ ...linear.oauth }, {
    grant: "client_credentials",
    clientId: "svc",
    clientSecret: "s-1",
    scopes: ["read", "write"],
    callbackPort: 8976,
    tokenEndpointAuthMethod: "client_secret_post",
    dpop: false,
  });
  const unset = readTomlStrict(toml, { file: "loom.toml", env: {} });
  assert.ok(!unset.ok);
  assert.equal(unset.error.key, "oauth.client_secret");
  assert.match(unset.error.message, /names the variable LINEAR_SECRET, which is not set/);
});

Deno.test("readCatalog() of JSON serves the oauth shapes Claude Code and Cursor write", () => {
  const text = JSON.stringify({
    mcpServers: {
      notion: {
        type: "http",
        url: "https://mcp.notion.com/mcp",
        oauth: { clientId: "c-1", callbackPort: 8080 },
      },
      pipes: {
        url: "https://pipes.example.com/mcp",
        auth: { CLIENT_ID: "c-2", CLIENT_SECRET: "${env:PIPES_SECRET}", scopes: ["mcp"] },
      },
    },
  });
  const result = readJsonStrict(text, { file: ".mcp.json", env: { PIPES_SECRET: "s-2" } });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const [notion, pipes] = result.value.filter(isRemote);
  assert.deepEqual({ ...notion?.oauth }, { clientId: "c-1", callbackPort: 8080 });
  assert.deepEqual({ ...pipes?.oauth }, { clientId: "c-2", clientSecret: "s-2", scopes: ["mcp"] });
});

Deno.test("a sign-in setting the catalog does not know is refused at its key", () => {
  const result = readTomlStrict(
    `[mcp.x]\nurl = "https://a.example/mcp"\n[mcp.x.oauth]\nclient-id = "c"\n`,
    { file: "loom.toml" },
  );
  assert.ok(!result.ok);
  assert.equal(result.error.key, "oauth.client-id");
  assert.match(
    result.error.message,
    /unknown sign-in setting; the known ones are grant, client_id/,
  );
});
