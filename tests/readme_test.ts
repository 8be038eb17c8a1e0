// The README's snippets, run as written: every TypeScript block as a module
// (its jsr:@loom/mcp imports mapped to this checkout), every TOML block read
// as a catalog, every `loom-mcp` command of the command line's block run in a
// folder holding the README's own loom.toml, the `check` sample compared with
// a real run, and the limits table with the constants.

import assert from "node:assert/strict";
import { readCatalog } from "../mod.ts";
import * as limits from "../limits.ts";
import { splitWords } from "../cli/_source.ts";
import { argv } from "./cli/_cli.ts";

const ROOT = new URL("../", import.meta.url);
const README = await Deno.readTextFile(new URL("README.md", ROOT));

type Block = { lang: string; text: string; section: string };

function blocks(markdown: string): Block[] {
  const found: Block[] = [];
  let section = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith("## ")) section = line.slice(3);
    const open = /^```(\w+)/.exec(line);
    if (open === null) continue;
    const body: string[] = [];
    while (++i < lines.length && lines[i] !== "```") body.push(lines[i] as string);
    found.push({ lang: open[1] as string, text: body.join("\n") + "\n", section });
  }
  return found;
}

const BLOCKS = blocks(README);
const PROGRAM = 'import { read_graph } from "./mcp/memory.ts";\n' +
  "export default (await read_graph({})).structuredContent;\n";

async function folder(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-readme-" }));
  const catalog = BLOCKS.find((block) =>
    block.lang === "toml" && /\[mcp\.memory\]/.test(block.text)
  );
  assert.ok(catalog !== undefined, "the README has no [mcp.memory] catalog");
  await Deno.writeTextFile(`${dir}/loom.toml`, catalog.text);
  await Deno.writeTextFile(`${dir}/program.ts`, PROGRAM);
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const imports: Record<string, string> = {};
  for (const [path, file] of Object.entries(config.exports as Record<string, string>)) {
    imports[`jsr:@loom/mcp${path.slice(1)}`] = new URL(file, ROOT).href;
  }
  await Deno.writeTextFile(`${dir}/imports.json`, JSON.stringify({ imports }));
  return dir;
}

async function run(cwd: string, command: string[]): Promise<{ code: number; out: string }> {
  const [executable, ...args] = command;
  const output = await new Deno.Command(executable as string, {
    args,
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

Deno.test("every TypeScript snippet of the README runs as written", async (t) => {
  const dir = await folder();
  try {
    const snippets = BLOCKS.filter((block) => block.lang === "ts");
    assert.ok(snippets.length >= 4);
    for (const [index, snippet] of snippets.entries()) {
      await t.step(`${snippet.section}: snippet ${index + 1}`, async () => {
        const file = `${dir}/snippet_${index + 1}.ts`;
        await Deno.writeTextFile(file, snippet.text);
        const result = await run(dir, [
          Deno.execPath(),
          "run",
          "-A",
          "--quiet",
          "--no-lock",
          "--import-map",
          `${dir}/imports.json`,
          file,
        ]);
        assert.equal(result.code, 0, `${snippet.text}\n${result.out}`);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every TOML snippet of the README is a catalog that skips nothing", () => {
  const catalogs = BLOCKS.filter((block) => block.lang === "toml");
  assert.ok(catalogs.length >= 2);
  for (const block of catalogs) {
    const read = readCatalog(block.text, {
      file: "loom.toml",
      env: { LINEAR_TOKEN: "t", NOTION_SECRET: "s" },
    });
    assert.ok(read.ok, read.ok ? "" : read.error.message);
    assert.ok(read.value.servers.length > 0, block.text);
    assert.deepEqual(read.value.skipped, [], block.text);
  }
});

Deno.test("every loom-mcp command of the README's command line runs as written", async (t) => {
  const dir = await folder();
  try {
    const block = BLOCKS.find((candidate) =>
      candidate.lang === "sh" && candidate.section === "Command line"
    );
    assert.ok(block !== undefined);
    const commands = block.text.split("\n").filter((line) => line.startsWith("loom-mcp "));
    assert.ok(commands.length >= 8);
    // Four at a time: each boots a server.
    for (let at = 0; at < commands.length; at += 4) {
      const batch = commands.slice(at, at + 4);
      const results = await Promise.all(batch.map((line) => {
        const words = splitWords(line.replace(/\s+#.*$/, ""));
        assert.ok(words.ok, line);
        return run(dir, argv(words.value.slice(1)));
      }));
      for (const [index, line] of batch.entries()) {
        await t.step(line.replace(/\s+#.*$/, ""), () => {
          const result = results[index];
          assert.equal(result?.code, 0, `${line}\n${result?.out}`);
        });
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the README's check sample is what check prints, but for timings and pids", async () => {
  const dir = await folder();
  try {
    const sample = BLOCKS.find((block) => block.lang === "text" && /^Catalog /.test(block.text));
    assert.ok(sample !== undefined);
    const real = await run(dir, argv(["check", "loom.toml"]));
    assert.equal(real.code, 0, real.out);
    const shape = (text: string) =>
      text.replace(/\d+\.\d\d s/g, "N s").replace(/pid \d+/g, "pid N").trimEnd();
    assert.equal(shape(real.out), shape(sample.text));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the README's limits table says what @loom/mcp/limits says", () => {
  const rows = [...README.matchAll(/^\| `([A-Z_]+)` +\| ([\d]+)(?: ms)? +\|/gm)];
  assert.ok(rows.length >= 10);
  for (const [, name, value] of rows) {
    const constant = (limits as Record<string, unknown>)[name as string];
    assert.equal(constant, Number(value), `${name} is ${constant}, the README says ${value}`);
  }
});
