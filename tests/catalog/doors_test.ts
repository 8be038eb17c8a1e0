// The two doors to the catalog, readCatalog for a text and openCatalog for a
// file, and their options: the two modes, the syntax, the project folder.

import assert from "node:assert/strict";
import {
  type Catalog,
  type CatalogError,
  type CatalogMode,
  isRemote,
  openCatalog,
  readCatalog,
} from "../../mod.ts";
import { CATALOG_MODES } from "../../catalog/mod.ts";
import type { Result } from "../../codec/result.ts";

const TOML = '[mcp.memory]\ncommand = "deno"\nargs = ["run", "server.ts"]\n';
const JSON_TEXT = '{"mcpServers": {"memory": {"command": "deno", "args": ["run", "server.ts"]}}}';
const JSON_FILE = { file: ".mcp.json" };
// One good entry, one malformed (a shell string for a command).
const MIXED = '[mcp.good]\ncommand = "x"\n[mcp.bad]\ncommand = "npx -y server"\n';

function catalog(result: Result<Catalog, CatalogError>): Catalog {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.value;
}

function names(result: Result<Catalog, CatalogError>): string[] {
  return catalog(result).servers.map((spec) => spec.name);
}

Deno.test("readCatalog() reads the syntax format names, or the one the file name implies", async (t) => {
  await t.step("JSON by format, whatever the file name", () => {
    const read = catalog(readCatalog(JSON_TEXT, { file: "servers.conf", format: "json" }));
    assert.equal(read.format, "json");
    assert.deepEqual(read.servers.map((spec) => spec.name), ["memory"]);
  });
  await t.step("TOML by format, even for a .json name", () => {
    const read = catalog(readCatalog(TOML, { file: "odd.json", format: "toml" }));
    assert.equal(read.format, "toml");
    assert.deepEqual(read.servers.map((spec) => spec.name), ["memory"]);
  });
  await t.step("inferred: JSON for .json in any case, TOML otherwise", () => {
    assert.equal(catalog(readCatalog(JSON_TEXT, { file: "A.JSON" })).format, "json");
    assert.equal(catalog(readCatalog(TOML, { file: "loom.toml" })).format, "toml");
    assert.equal(catalog(readCatalog(TOML)).format, "toml");
  });
  await t.step("the wrong format is a syntax error of that format", () => {
    const read = readCatalog(TOML, { file: "c", format: "json" });
    assert.ok(!read.ok);
    assert.equal(read.error.kind, "invalid_json");
  });
  await t.step("a format that is neither is caller misuse", () => {
    assert.throws(
      () => readCatalog(TOML, { format: "yaml" as unknown as "toml" }),
      TypeError,
    );
  });
});

Deno.test("readCatalog() skips a malformed entry alone, and the strict mode refuses the catalog with its error", () => {
  const lenient = catalog(readCatalog(MIXED, { file: "loom.toml" }));
  assert.deepEqual(lenient.servers.map((spec) => spec.name), ["good"]);
  const [skipped] = lenient.skipped;
  assert.equal(skipped?.reason, "invalid");
  const strict = readCatalog(MIXED, { file: "loom.toml", mode: "strict" });
  assert.ok(!strict.ok);
  assert.deepEqual(strict.error, skipped?.error);
  assert.equal(strict.error.table, "mcp.bad");
  assert.equal(strict.error.key, "command");
});

Deno.test("readCatalog() reads every entry but a malformed one the same in both modes", async (t) => {
  const modes: readonly CatalogMode[] = CATALOG_MODES;
  const read = (text: string, mode: CatalogMode) =>
    catalog(readCatalog(text, { ...JSON_FILE, mode }));
  for (const mode of modes) {
    await t.step(`${mode}: a disabled entry is listed as disabled, not skipped`, () => {
      const text = '{"mcpServers": {"a": {"command": "x", "disabled": true}}}';
      const value = read(text, mode);
      assert.deepEqual(value.skipped, []);
      assert.deepEqual(value.disabled.map((entry) => entry.key), ["a"]);
    });
    await t.step(`${mode}: a remote entry that cannot be served is skipped`, () => {
      const text = '{"mcpServers": {"a": {"type": "sse", "url": "https://a.example/sse"}}}';
      assert.deepEqual(read(text, mode).skipped.map((entry) => entry.reason), ["remote"]);
    });
    await t.step(`${mode}: a JSON name that is not a server name is renamed`, () => {
      const text = '{"mcpServers": {"GitHub": {"command": "x"}}}';
      assert.deepEqual(read(text, mode).renamed, [{ key: "GitHub", name: "github" }]);
    });
  }
  await t.step("a malformed entry skipped is named by the server name it would have had", () => {
    const text = '{"mcpServers": {"Memory": {"command": "x", "colour": 1}}}';
    const value = read(text, "lenient");
    assert.deepEqual(value.skipped.map((entry) => entry.key), ["Memory"]);
    assert.deepEqual(value.renamed, [{ key: "Memory", name: "memory" }]);
  });
  await t.step("a mode that is neither is caller misuse", () => {
    assert.throws(
      () => readCatalog(TOML, { mode: "literal" as unknown as CatalogMode }),
      TypeError,
    );
  });
});

Deno.test("openCatalog() reads a file with the options of a text: mode and format", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-doors-" }));
  try {
    await t.step("format: a JSON file whatever its name", async () => {
      await Deno.writeTextFile(`${dir}/servers.conf`, JSON_TEXT);
      const opened = catalog(await openCatalog(`${dir}/servers.conf`, { format: "json" }));
      assert.equal(opened.format, "json");
      assert.deepEqual(opened.servers.map((spec) => spec.name), ["memory"]);
      const guessed = await openCatalog(`${dir}/servers.conf`);
      assert.ok(!guessed.ok);
      assert.equal(guessed.error.kind, "invalid_toml");
    });
    await t.step("strict mode: the first malformed entry refuses the file", async () => {
      await Deno.writeTextFile(`${dir}/loom.toml`, MIXED);
      assert.deepEqual(names(await openCatalog(`${dir}/loom.toml`)), ["good"]);
      const strict = await openCatalog(`${dir}/loom.toml`, { mode: "strict" });
      assert.ok(!strict.ok);
      assert.equal(strict.error.file, `${dir}/loom.toml`);
      assert.equal(strict.error.table, "mcp.bad");
    });
    await t.step("workspaceFolder: the folder a relative cwd, or none, means", async () => {
      await Deno.writeTextFile(
        `${dir}/loom.toml`,
        '[mcp.a]\ncommand = "x"\n[mcp.b]\ncommand = "x"\ncwd = "sub"\n',
      );
      const opened = catalog(await openCatalog(`${dir}/loom.toml`, { workspaceFolder: "/srv" }));
      assert.deepEqual(
        opened.servers.map((spec) => isRemote(spec) ? undefined : spec.cwd),
        ["/srv", "/srv/sub"],
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openCatalog() runs a server of a file kept in .vscode/ in the project, its parent", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-doors-" }));
  try {
    await Deno.mkdir(`${dir}/.vscode`);
    const file = `${dir}/.vscode/mcp.json`;
    await Deno.writeTextFile(file, '{"servers": {"a": {"command": "x", "cwd": "sub"}}}');
    const project = catalog(await openCatalog(file));
    assert.deepEqual(project.servers.map((spec) => isRemote(spec) ? undefined : spec.cwd), [
      `${dir}/sub`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
