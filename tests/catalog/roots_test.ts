// The catalog's roots key: the folders a server is told of when it asks
// (`roots/list`), as paths against the catalog's folder or file: URIs.

import assert from "node:assert/strict";
import { openCatalog } from "../../catalog/open.ts";
import { readCatalog } from "../../catalog/read.ts";

Deno.test("openCatalog() resolves a relative root against the catalog's folder", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-roots-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      '[mcp.files]\ncommand = "files-mcp"\nroots = ["./src", "/srv/my data", ' +
        '"file:///srv/data", { uri = "file:///opt/x", name = "X" }]\n',
    );
    const opened = await openCatalog(`${dir}/loom.toml`, { mode: "strict" });
    assert.ok(opened.ok, JSON.stringify(opened));
    assert.deepEqual(opened.value.servers[0]?.roots, [
      { uri: new URL(`file://${dir}/src`).href },
      { uri: "file:///srv/my%20data" },
      { uri: "file:///srv/data" },
      { uri: "file:///opt/x", name: "X" },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a JSON entry's roots reach its spec", () => {
  const text = JSON.stringify({
    mcpServers: { files: { command: "files-mcp", roots: ["file:///srv/data"] } },
  });
  const read = readCatalog(text, { file: ".mcp.json", mode: "strict" });
  assert.ok(read.ok, JSON.stringify(read));
  assert.deepEqual(read.value.servers[0]?.roots, [{ uri: "file:///srv/data" }]);
});

Deno.test("roots that cannot be served are refused, said of the key", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["a relative path in a text without a folder", '["./src"]', /relative path "\.\/src"/],
    ["not a list", '"./src"', /expected a list of paths or file: URIs/],
    ["an empty root", '[""]', /root 0 is/],
    ["a name that is not text", '[{ uri = "file:///a", name = 3 }]', /root 0's name/],
    ["a URI of another scheme", '["https://example.com/"]', /roots/],
    [
      "a misspelt field of a root's table",
      '[{ uri = "file:///w", nmae = "work" }]',
      /root 0 has the unknown field "nmae"; the fields are uri and name/,
    ],
  ];
  for (const [name, roots, pattern] of cases) {
    await t.step(name, () => {
      const read = readCatalog(`[mcp.files]\ncommand = "files-mcp"\nroots = ${roots}\n`, {
        file: "loom.toml",
        mode: "strict",
      });
      assert.ok(!read.ok && read.error.kind === "invalid_entry", JSON.stringify(read));
      assert.match(read.error.message, /key "roots"/);
      assert.match(read.error.message, pattern);
    });
  }
});
