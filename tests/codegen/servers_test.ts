import assert from "node:assert/strict";
import { decodeToolsPage, isJsonObject, parseJson } from "../../codec/mod.ts";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import { generate, type Generated } from "../../codegen/mod.ts";
import { schemaCoverage } from "../../scripts/_schema_coverage.ts";
import { LARGE_DOCUMENTS } from "../corpus/_large.ts";
import { checkModules } from "./_modules.ts";

// Real tools/list results of 48 servers (tests/corpus/servers/README.md).
const SERVERS = new URL("../corpus/servers/", import.meta.url);
const CORPUS = new URL("../corpus/", import.meta.url);

function listing(
  file: string,
  key: "tools" | "listing",
  folder: URL,
): ToolDescriptor[] | undefined {
  const parsed = parseJson(Deno.readTextFileSync(new URL(file, folder)));
  if (!parsed.ok || !isJsonObject(parsed.value)) throw new Error(`${file} is not a JSON object`);
  const value = parsed.value[key] ?? null;
  const page = decodeToolsPage(key === "tools" ? { tools: value } : value);
  return page.ok ? page.value.tools : undefined;
}

function decodeText(text: string): ToolDescriptor[] | undefined {
  const parsed = parseJson(text);
  const page = parsed.ok ? decodeToolsPage(parsed.value) : undefined;
  return page?.ok ? page.value.tools : undefined;
}

function filesOf(folder: URL, suffix: string): string[] {
  return [...Deno.readDirSync(folder)].map((entry) => entry.name).filter((name) =>
    name.endsWith(suffix)
  ).sort();
}

const REAL = filesOf(SERVERS, ".tools.json").map((file) => ({
  name: file.replace(/\.tools\.json$/, ""),
  tools: listing(file, "tools", SERVERS) ?? [],
}));

// The segment each document was generated under when the outcomes were recorded.
function segmentOf(name: string): string {
  return "c" + name.toLowerCase().replace(/[^a-z0-9_]/g, "_").slice(0, 60);
}

Deno.test("the real corpus holds the 48 servers of the shared corpus", () => {
  assert.equal(REAL.length, 48);
  assert.equal(REAL.reduce((sum, { tools }) => sum + tools.length, 0), 584);
});

Deno.test("the generator refuses nothing it accepted before", async (t) => {
  const before: Record<string, string> = JSON.parse(
    await Deno.readTextFile(new URL("./data/outcomes_before.json", import.meta.url)),
  );
  const documents: [string, ToolDescriptor[] | undefined][] = [
    ...filesOf(CORPUS, ".json").map((file) =>
      [`corpus/${file.replace(/\.json$/, "")}`, listing(file, "listing", CORPUS)] as [
        string,
        ToolDescriptor[] | undefined,
      ]
    ),
    ...LARGE_DOCUMENTS.map((doc) =>
      [`corpus/${doc.name}`, "tools" in doc ? doc.tools : decodeText(doc.text)] as [
        string,
        ToolDescriptor[] | undefined,
      ]
    ),
    ...REAL.map(({ name, tools }) => [`servers/${name}`, tools] as [string, ToolDescriptor[]]),
  ];
  assert.ok(Object.values(before).filter((each) => each === "generated").length >= 90);
  for (const [name, tools] of documents) {
    if (before[name] !== "generated") continue;
    await t.step(name, () => {
      assert.ok(tools !== undefined, "the codec refuses it now");
      const result = generate(segmentOf(name), tools);
      assert.ok(result.ok, result.ok ? "" : result.error.message);
    });
  }
});

Deno.test("no schema node of a real server that constrains its value is JsonValue", async (t) => {
  for (const { name, tools } of REAL) {
    await t.step(name, () => {
      const { input, output } = schemaCoverage(tools);
      assert.ok(input.constraining + output.constraining > 0 || name.includes("gitlab"));
      assert.deepEqual([...input.untypedAt, ...output.untypedAt], []);
      assert.equal(input.untyped + output.untyped, 0);
    });
  }
});

Deno.test("a real schema without properties that is not closed takes any object", () => {
  const gitlab = REAL.find(({ name }) => name.includes("server-gitlab"));
  assert.ok(gitlab !== undefined);
  const result = generate("gitlab", gitlab.tools);
  assert.ok(result.ok);
  for (const line of result.value.surface.trimEnd().split("\n").slice(1)) {
    assert.match(line, /^[a-z_]+\(args: JsonObject\): Promise<ToolResult>/);
  }
  assert.equal(schemaCoverage(gitlab.tools).input.openReadClosed, 0);
});

const GENERATED: { group: string; generated: Generated }[] = REAL.map(({ name, tools }) => {
  const result = generate(segmentOf(name), tools);
  if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
  return { group: "servers", generated: result.value };
});

Deno.test("every real server's module type-checks against cap.ts", async () => {
  assert.equal(await checkModules(GENERATED), "");
});

Deno.test("the surface shows server text as written where a line comment allows it", () => {
  const filesystem = REAL.find(({ name }) => name.includes("server-filesystem"));
  assert.ok(filesystem !== undefined);
  const result = generate("filesystem", filesystem.tools);
  assert.ok(result.ok);
  assert.ok(result.value.surface.includes("'**/*.ext' to match files in all subdirectories"));
  assert.ok(!result.value.surface.includes("'** /*.ext'"));
  // A doc comment still cannot be closed by server text.
  assert.ok(result.value.source.includes("'** /*.ext'"));
  assert.ok(!result.value.source.includes("'**/*.ext'"));
});

const GOLDEN = new URL("./golden/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

function notes(): ToolDescriptor[] {
  return REAL.find(({ name }) => name === "fastmcp_notes")?.tools ?? [];
}

Deno.test("generate() matches the golden module and surface of the FastMCP notes server", async (t) => {
  const result = generate("notes", notes());
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  for (const [part, text] of [["source", result.value.source], ["surface", result.value.surface]]) {
    await t.step(part!, async () => {
      const url = new URL(`fastmcp_notes.${part}.txt`, GOLDEN);
      if (UPDATE) await Deno.writeTextFile(url, text!);
      assert.equal(text, await Deno.readTextFile(url), `fastmcp_notes.${part}.txt differs`);
    });
  }
});

Deno.test("the FastMCP notes server's pydantic models are named types, recursion included", () => {
  const result = generate("notes", notes());
  assert.ok(result.ok);
  assert.deepEqual([...result.value.types], [["Author", "Author"], ["Note", "Note"]]);
  const { source, surface } = result.value;
  assert.match(
    source,
    /export type Note = \{\n[^]*?"author": Author;\n[^]*?"replies"\?: Note\[\];\n\};/,
  );
  assert.match(
    surface,
    /^find_note\(args: \{ slug: string \}\): Promise<ToolResult<\{ result: Note \| null \}>>/m,
  );
  assert.match(
    surface,
    /^tag_cloud\(args: \{\}\): Promise<ToolResult<\{ \[key: string\]: number \}>>/m,
  );
  assert.doesNotMatch(source, /JsonValue/);
});

// A program as a model writes it from the notes surface.
const PROGRAM = `
import { authors, find_note, list_notes, tag_cloud, write_note } from "./mcp/notes.ts";
import type { Note } from "./mcp/notes.ts";
const written = await write_note({ slug: "a", body: "b", author: { handle: "h" }, tags: ["x"] });
const visibility: "private" | "team" | "public" | undefined = written.structuredContent.visibility;
const found = await find_note({ slug: "a" });
const note: Note | null = found.structuredContent.result;
const reply: string | undefined = note?.replies?.[0]?.author.display ?? undefined;
const page = await list_notes({ tag: null });
const slugs: string[] = page.structuredContent.items.map((each) => each.slug);
const cloud: number | undefined = (await tag_cloud({})).structuredContent["x"];
const handles: string[] = (await authors({})).structuredContent.result.map((each) => each.handle);
export default [visibility, reply, slugs, cloud, handles];
`;

Deno.test("a program using the notes server's types type-checks against cap.ts", async () => {
  const result = generate("notes", notes());
  assert.ok(result.ok);
  const program = { ...result.value, moduleName: "program.ts", source: PROGRAM };
  assert.equal(
    await checkModules([
      { group: "notes", generated: result.value },
      { group: "notes", generated: program },
    ]),
    "",
  );
});
