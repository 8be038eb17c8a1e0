/**
 * The layout's rules, checked on the source as it is: every arrow between
 * rooms points down (docs/ARCHITECTURE.md draws them), no import circle, no
 * Deno API in the pure rooms, the sandbox imports nothing outside itself, the
 * root export stays within its count, and no private file declares what an
 * export reaches.
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** Which rooms each room may import from (its own room always). */
const ARROWS: Record<string, readonly string[]> = {
  "mod.ts": [
    "gateway",
    "harness",
    "catalog",
    "client",
    "client/thread",
    "server",
    "settings",
    "codegen",
    "codec",
  ],
  "limits.ts": [
    "harness",
    "catalog",
    "client",
    "runner",
    "settings",
    "codegen",
    "codec",
    "telemetry",
  ],
  cli: [
    "gateway",
    "harness",
    "catalog",
    "client",
    "client/thread",
    "oauth",
    "server",
    "settings",
    "codegen",
    "codec",
  ],
  // A harness served to another host: the harness's code mode over the server's line seam.
  gateway: ["harness", "client", "runner", "runner/host", "server", "settings", "codegen", "codec"],
  harness: [
    "client",
    "client/thread",
    "client/custody",
    "runner",
    "runner/host",
    "settings",
    "codegen",
    "codec",
    "telemetry",
  ],
  catalog: ["settings", "codegen", "codec"],
  client: [
    "client/thread",
    "client/custody",
    "client/transport/stdio",
    "oauth",
    "settings",
    "codegen",
    "codec",
    "_generated",
    "telemetry",
  ],
  "client/worker": [
    "client/transport",
    "client/transport/stdio",
    "client/transport/http",
    "client/thread",
    "settings",
    "codec",
  ],
  "client/transport/stdio": ["client/transport", "client/thread", "settings", "codec"],
  "client/transport/http": ["client/transport", "client/thread", "settings", "codec"],
  "client/transport": ["client/thread", "settings", "codec"],
  "client/custody": ["client/thread", "codec"],
  "client/thread": ["settings", "codec"],
  runner: ["runner/host", "runner/checker", "settings", "codegen", "codec"],
  "runner/host": [
    "runner/checker",
    "runner/sandbox",
    "settings",
    "codegen",
    "codec",
    "_generated",
    "telemetry",
  ],
  "runner/checker": ["codegen", "codec", "_generated"],
  "runner/sandbox": [],
  oauth: ["settings", "codec"],
  settings: ["codegen", "codec"],
  codegen: ["codec"],
  codec: [],
  server: ["codec", "telemetry"],
  // OpenTelemetry's MCP conventions over its API alone: the main-thread rooms
  // (client, harness, runner's host, server) make spans through it, and it
  // imports none of them, so that no worker bundle or sandbox ever holds it.
  telemetry: [],
};

const PURE_ROOMS = ["codec", "codegen"];

type Source = { path: string; text: string; imports: string[] };

async function sources(): Promise<Source[]> {
  const out: Source[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (dir === "" && !(entry.name in ARROWS)) continue;
        await walk(path);
      } else if (path.endsWith(".ts") && (dir !== "" || path in ARROWS)) {
        const text = await Deno.readTextFile(new URL(path, ROOT));
        out.push({ path, text, imports: importsOf(path, text) });
      }
    }
  }
  await walk("");
  return out;
}

/** The repository paths a module imports, statically, dynamically or by `new URL`. */
function importsOf(path: string, text: string): string[] {
  const code = stripComments(text);
  const found: string[] = [];
  const patterns = [
    /(?:^|[;\s}])(?:import|export)\b[^'"`;]*?\bfrom\s*(["'])(\.{1,2}\/[^"'\n]+)\1/g,
    /(?:^|[;\s])import\s*(["'])(\.{1,2}\/[^"'\n]+)\1/g,
    /\bimport\(\s*(["'])(\.{1,2}\/[^"'\n]+)\1/g,
    /\bnew URL\(\s*(["'])(\.{1,2}\/[^"'\n]+)\1,\s*import\.meta\.url/g,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      found.push(new URL(match[2]!, new URL(path, "file:///r/")).pathname.slice(3));
    }
  }
  return found;
}

/** The code with comments blanked out; string literals are kept (they hold specifiers). */
function stripComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
      out += " ";
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The code with comments and string literals blanked out. */
function codeOnly(text: string): string {
  return stripComments(text).replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""');
}

/** The room a path is in: the longest room of the arrows that holds it. */
function roomOf(path: string): string {
  if (path === "mod.ts" || path === "limits.ts") return path;
  let room = path.split("/")[0]!;
  for (const name of Object.keys(ARROWS)) {
    if (path.startsWith(`${name}/`) && name.length > room.length) room = name;
  }
  return room;
}

Deno.test("every import between rooms points down the layout's arrows", async () => {
  const wrong: string[] = [];
  for (const source of await sources()) {
    const from = roomOf(source.path);
    for (const target of source.imports) {
      const to = roomOf(target);
      if (to === from) continue;
      if (!(ARROWS[from] ?? []).includes(to)) wrong.push(`${source.path} -> ${target}`);
    }
  }
  assert.deepEqual(wrong, [], `imports against the arrows:\n${wrong.join("\n")}`);
});

Deno.test("the worker never imports the main thread's client and nothing imports cli/", async () => {
  for (const source of await sources()) {
    for (const target of source.imports) {
      if (roomOf(source.path) !== "client" && source.path.startsWith("client/")) {
        assert.ok(roomOf(target) !== "client", `${source.path} imports ${target}`);
      }
      if (!source.path.startsWith("cli/")) {
        assert.ok(!target.startsWith("cli/"), `${source.path} imports ${target}`);
      }
    }
  }
});

Deno.test("nothing under runner/sandbox/ imports outside it", async () => {
  for (const source of await sources()) {
    if (!source.path.startsWith("runner/sandbox/")) continue;
    for (const target of source.imports) {
      assert.ok(target.startsWith("runner/sandbox/"), `${source.path} imports ${target}`);
    }
    const code = stripComments(source.text);
    const bare = [...code.matchAll(/\bfrom\s*["']([^."'][^"']*)["']/g)]
      .map((match) => match[1]).filter((specifier) => specifier !== undefined);
    assert.deepEqual(bare, [], `${source.path} imports by name: ${bare.join(", ")}`);
  }
});

Deno.test("codec/ and codegen/ use no Deno API", async () => {
  const impure: string[] = [];
  for (const source of await sources()) {
    if (!PURE_ROOMS.includes(roomOf(source.path))) continue;
    if (/\bDeno\b/.test(codeOnly(source.text))) impure.push(source.path);
  }
  assert.deepEqual(impure, [], `Deno APIs in a pure room: ${impure.join(", ")}`);
});

Deno.test("no module imports itself back through a circle", async () => {
  const all = await sources();
  const graph = new Map(all.map((source) => [source.path, source.imports]));
  const state = new Map<string, "open" | "done">();
  const circles: string[] = [];
  function visit(path: string, trail: string[]): void {
    const seen = state.get(path);
    if (seen === "done") return;
    if (seen === "open") {
      circles.push([...trail.slice(trail.indexOf(path)), path].join(" -> "));
      return;
    }
    state.set(path, "open");
    for (const target of graph.get(path) ?? []) {
      if (graph.has(target)) visit(target, [...trail, path]);
    }
    state.set(path, "done");
  }
  for (const path of graph.keys()) visit(path, []);
  assert.deepEqual(circles, [], `import circles:\n${circles.join("\n")}`);
});

Deno.test("the layout check sees imports of every form", () => {
  const text = [
    'import { a } from "./a.ts";',
    'export * from "../codec/b.ts";',
    'import type { C } from "./c.ts";',
    'import "./d.ts";',
    'const e = await import("./e.ts");',
    'const f = new URL("./f.js", import.meta.url);',
    '// import { g } from "./g.ts";',
    "/* export * from './h.ts'; */",
  ].join("\n");
  assert.deepEqual(importsOf("worker/x.ts", text).sort(), [
    "codec/b.ts",
    "worker/a.ts",
    "worker/c.ts",
    "worker/d.ts",
    "worker/e.ts",
    "worker/f.js",
  ]);
  assert.equal(/\bDeno\b/.test(codeOnly('const s = "Deno.exit"; // Deno.exit\nx();')), false);
  assert.equal(/\bDeno\b/.test(codeOnly("Deno.exit(1);")), true);
});

/** The package's exports, from deno.json, as paths. */
async function exportedEntries(): Promise<Record<string, string>> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    exports: Record<string, string>;
  };
  return Object.fromEntries(
    Object.entries(config.exports).map(([name, path]) => [name, path.replace(/^\.\//, "")]),
  );
}

type DocSymbol = { name: string; declarations: { location: { filename: string } }[] };

/** Every symbol an entry point exports, with the files that declare it (`deno doc`). */
async function exportedSymbols(entry: string): Promise<DocSymbol[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    cwd: new URL(".", ROOT).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  return Object.values(doc.nodes).flatMap((node) => node.symbols);
}

/**
 * The most symbols the root export may have: a harness author's entry, where `boot` is found.
 * Raised from 70, then from 135 for the prompts, resources and logs a client asks for, then from
 * 160 for skills and `serveHarness`: every type a root signature names, however deep, is
 * exported beside it.
 */
const MAX_ROOT_SYMBOLS = 168;

Deno.test(`the root export holds at most ${MAX_ROOT_SYMBOLS} symbols`, async () => {
  const symbols = await exportedSymbols("mod.ts");
  assert.ok(
    symbols.length <= MAX_ROOT_SYMBOLS,
    `mod.ts exports ${symbols.length} symbols: ${symbols.map((s) => s.name).sort().join(", ")}`,
  );
  assert.ok(symbols.some((symbol) => symbol.name === "boot"), "mod.ts does not export boot");
});

Deno.test("no file whose name starts with _ declares a symbol an export reaches", async () => {
  const wrong: string[] = [];
  for (const [name, entry] of Object.entries(await exportedEntries())) {
    for (const symbol of await exportedSymbols(entry)) {
      for (const { location } of symbol.declarations) {
        const file = new URL(location.filename).pathname;
        const base = file.slice(file.lastIndexOf("/") + 1);
        if (base.startsWith("_") && !file.includes("/_generated/")) {
          wrong.push(`${name}: ${symbol.name} (${file.slice(new URL(".", ROOT).pathname.length)})`);
        }
      }
    }
  }
  assert.deepEqual(wrong, [], `symbols declared in private files:\n${wrong.join("\n")}`);
});

Deno.test("catalog/ never imports client/: the spec vocabulary is its own room", async () => {
  const wrong = (await sources())
    .filter((source) => source.path.startsWith("catalog/"))
    .flatMap((source) => source.imports.filter((target) => target.startsWith("client/")))
    .map((target) => target);
  assert.deepEqual(wrong, []);
});

// The segment rule's forms: a lowercase letter then segment characters, or
// segment characters with a bounded count.
const SEGMENT_RULE = /\[a-z\]\[a-z0-9_-\]|\[(?:A-Z)?a-z(?:A-Z)?0-9_-\]\{\d*,\d+\}/;

Deno.test("the module-segment rule is stated once, in codegen/names.ts", async () => {
  const restated = (await sources())
    .filter((source) => source.path !== "codegen/names.ts")
    .filter((source) => SEGMENT_RULE.test(stripComments(source.text)))
    .map((source) => source.path);
  assert.deepEqual(restated, [], `the segment rule stated again in: ${restated.join(", ")}`);
  assert.ok(SEGMENT_RULE.test("/^[A-Za-z0-9_-]{1,128}$/"), "the check misses the old runner rule");
  assert.ok(
    SEGMENT_RULE.test("/^[a-z][a-z0-9_-]{0,63}$/"),
    "the check misses the old catalog rule",
  );
  assert.ok(!SEGMENT_RULE.test("/^[A-Za-z0-9_-]+$/"), "a TOML bare key is not a segment rule");
});
