// The docs a newcomer trusts: every source path README.md, BENCHMARKS.md and
// docs/ name exists, and the README's install section names every runtime
// dependency the source pins.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** The documents whose paths are checked, relative to the repository's root. */
async function documents(): Promise<string[]> {
  const docs = ["README.md", "BENCHMARKS.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  return docs.sort();
}

// A path is two or more segments ending in a file with an extension, or in a
// folder's slash; a backquoted folder may be one segment (`client/`).
const PATH =
  /(?<![\w@:/.~$<>{}-])((?:[\w-][\w.-]*\/)+(?:[\w-][\w.-]*\.(?:ts|js|md|json))?)(?![\w<{*$-])/g;

// Folders the docs name that are not in the repository by design.
const ELSEWHERE = [
  "mcp/", // in a run's build root: one generated module per server
  "vendor/loom-mcp/", // where a user puts a checkout of the library
];

/** Every path-like mention in `text` that is not marked as historical. */
function mentionedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(PATH)) {
    const path = match[1] ?? "";
    const before = text.slice(Math.max(0, match.index - 9), match.index);
    // A benchmark may name a file as it was when it was measured, when it says so.
    if (/then in `?$/.test(before)) continue;
    if (path.split("/").length === 2 && path.endsWith("/") && text[match.index - 1] !== "`") {
      continue;
    }
    found.add(path);
  }
  return [...found];
}

// A file named alone, in backquotes, is named by its name: some file of the
// repository must have it.
const FILE_NAME = /`([\w.-]+\.(?:ts|js|md|json))`/g;

// File names the docs give that are people's own files, not the repository's.
const THEIRS = [".mcp.json", "mcp_config.json"];

/** Every file name in the repository, at any depth. */
async function fileNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (folder: URL): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.name === ".git") continue;
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, folder));
      else names.add(entry.name);
    }
  };
  await walk(ROOT);
  return names;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(new URL(path, ROOT));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test("the path finder sees backquoted and bare paths, folders, and skips what is not a path", () => {
  assert.deepEqual(
    mentionedPaths(
      "`client/worker/` runs `client/worker/handshake.ts`; see tests/layout_test.ts and `codec/`.",
    ),
    ["client/worker/", "client/worker/handshake.ts", "tests/layout_test.ts", "codec/"],
  );
  assert.deepEqual(
    mentionedPaths(
      "`npm:@cfworker/json-schema` at https://example.com/a/b.ts, `@loom/mcp/client`, " +
        "`./mcp/memory.ts`, `mcp/<segment>.ts`, and/or text/event-stream, then in `worker/x.ts`",
    ),
    [],
  );
});

Deno.test("every source path README.md, BENCHMARKS.md and docs/ name exists", async () => {
  const missing: string[] = [];
  for (const doc of await documents()) {
    const text = await Deno.readTextFile(new URL(doc, ROOT));
    for (const path of mentionedPaths(text)) {
      if (ELSEWHERE.some((folder) => path.startsWith(folder))) continue;
      if (!await exists(path)) missing.push(`${doc}: ${path}`);
    }
  }
  assert.deepEqual(missing, [], `paths named that do not exist:\n${missing.join("\n")}`);
});

Deno.test("every file README.md, BENCHMARKS.md and docs/ name alone is a file of the repository", async () => {
  const names = await fileNames();
  const missing: string[] = [];
  for (const doc of await documents()) {
    const text = await Deno.readTextFile(new URL(doc, ROOT));
    for (const match of text.matchAll(FILE_NAME)) {
      const name = match[1] ?? "";
      if (!names.has(name) && !THEIRS.includes(name)) missing.push(`${doc}: ${name}`);
    }
  }
  assert.deepEqual(
    missing,
    [],
    `files named that no file of the repository is:\n${missing.join("\n")}`,
  );
});

// Folders whose specifiers are not the library's runtime dependencies
// (`_generated/` is made of the source, so it pins nothing of its own).
const NOT_RUNTIME = ["tests/", "bench/", "scripts/", "_generated/"];

/** Every `npm:` or `jsr:` specifier the library's own source imports, as `npm:name@version`. */
async function pinnedDependencies(): Promise<Set<string>> {
  const pinned = new Set<string>();
  const walk = async (folder: URL, relative: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      const path = `${relative}${entry.name}`;
      if (entry.name.startsWith(".")) continue;
      if (entry.isDirectory) {
        if (!NOT_RUNTIME.includes(`${path}/`)) {
          await walk(new URL(`${entry.name}/`, folder), `${path}/`);
        }
      } else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(new URL(entry.name, folder));
        const imports =
          /(?:from|import)\s*\(?\s*"((?:npm|jsr):\/?((?:@[\w.-]+\/)?[\w.-]+)(@[^"/]+)?)/g;
        for (const match of text.matchAll(imports)) {
          assert.ok(match[3] !== undefined, `${path}: ${match[1]} is not pinned to a version`);
          pinned.add(`${match[1]?.slice(0, 4)}${match[2]}${match[3]}`);
        }
      }
    }
  };
  await walk(ROOT, "");
  return pinned;
}

Deno.test("the README's install section names every runtime dependency the source pins", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const start = readme.indexOf("\n## Install\n");
  assert.notEqual(start, -1, 'README.md has no "## Install" section');
  const end = readme.indexOf("\n## ", start + 1);
  const install = readme.slice(start, end === -1 ? undefined : end);
  const pinned = await pinnedDependencies();
  assert.ok(pinned.size > 0, "no pinned dependency was found in the source");
  const unnamed = [...pinned].filter((specifier) => !install.includes(specifier));
  assert.deepEqual(unnamed, [], `the install section does not name: ${unnamed.join(", ")}`);
});
