/**
 * Checking values against real tools' schemas (tests/corpus/servers/): typical
 * arguments of a few real tools, a large structuredContent (a memory server's
 * read_graph of 5,000 entities, a FastMCP notes page of 500 notes with nested
 * replies), the one-time preparation of a schema, and the same large value
 * against a hostile schema that reaches the step budget.
 *
 * Run: `deno bench bench/validate_bench.ts`
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import { decodeToolsPage, isJsonObject, parseJson } from "../codec/mod.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { validateValue, valueValidator } from "../codegen/mod.ts";

const SERVERS = new URL("../tests/corpus/servers/", import.meta.url);

function tools(file: string): ToolDescriptor[] {
  const parsed = parseJson(Deno.readTextFileSync(new URL(`${file}.tools.json`, SERVERS)));
  if (!parsed.ok || !isJsonObject(parsed.value)) throw new Error(`${file} is not JSON`);
  const page = decodeToolsPage({ tools: parsed.value.tools ?? null });
  if (!page.ok) throw new Error(page.error.message);
  return page.value.tools;
}

function tool(file: string, name: string): ToolDescriptor {
  const found = tools(file).find((each) => each.name === name);
  if (found === undefined) throw new Error(`${file} has no tool ${name}`);
  return found;
}

function mustPass(validator: ReturnType<typeof valueValidator>, value: JsonValue, what: string) {
  const result = validator.validate(value);
  if (!result.ok || result.value.checked !== "all") {
    throw new Error(`${what}: ${JSON.stringify(result).slice(0, 300)}`);
  }
}

const ARGUMENTS: [string, ToolDescriptor, JsonValue][] = [
  ["filesystem edit_file", tool("modelcontextprotocol__server-filesystem", "edit_file"), {
    path: "src/main.ts",
    edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }],
    dryRun: true,
  }],
  ["github create_issue", tool("modelcontextprotocol__server-github", "create_issue"), {
    owner: "octo",
    repo: "demo",
    title: "Crash on start",
    body: "Steps to reproduce: run it.",
    labels: ["bug"],
  }],
  ["notion patch-block-children", tool("notionhq__notion-mcp-server", "API-patch-block-children"), {
    block_id: "abc",
    children: [{ paragraph: { rich_text: [{ text: { content: "hi" } }] }, type: "paragraph" }],
  }],
  ["fastmcp write_note", tool("fastmcp_notes", "write_note"), {
    slug: "a",
    body: "b",
    author: { handle: "h", display: null },
    tags: ["x"],
  }],
];

for (const [name, descriptor, args] of ARGUMENTS) {
  const validator = valueValidator(descriptor.inputSchema);
  mustPass(validator, args, name);
  Deno.bench(`check the arguments of ${name}`, { group: "arguments" }, () => {
    validator.validate(args);
  });
}

Deno.bench("prepare and check (one shot) the arguments of github create_issue", {
  group: "arguments",
}, () => {
  validateValue(ARGUMENTS[1]![2], ARGUMENTS[1]![1].inputSchema);
});

const readGraph = tool("modelcontextprotocol__server-memory", "read_graph");
const graph: JsonObject = {
  entities: Array.from({ length: 5_000 }, (_, i) => ({
    name: `entity ${i}`,
    entityType: i % 2 === 0 ? "person" : "place",
    observations: [`observed ${i}`, `seen at ${i % 17}`],
  })),
  relations: Array.from({ length: 5_000 }, (_, i) => ({
    from: `entity ${i}`,
    to: `entity ${(i + 1) % 5_000}`,
    relationType: "knows",
  })),
};
const graphValidator = valueValidator(readGraph.outputSchema ?? null);
mustPass(graphValidator, graph, "read_graph");

const listNotes = tool("fastmcp_notes", "list_notes");
const note = (i: number, depth: number): JsonObject => ({
  slug: `note-${i}`,
  body: "x".repeat(200),
  tags: ["a", "b"],
  author: { handle: `h${i}`, display: i % 3 === 0 ? null : `Person ${i}` },
  visibility: "team",
  replies: depth === 0 ? [] : [note(i * 10 + 1, depth - 1), note(i * 10 + 2, depth - 1)],
});
const page: JsonObject = {
  items: Array.from({ length: 500 }, (_, i) => note(i, 2)),
  next_cursor: "c",
};
const notesValidator = valueValidator(listNotes.outputSchema ?? null);
mustPass(notesValidator, page, "list_notes");

const bytes = (value: JsonValue) => new TextEncoder().encode(JSON.stringify(value)).length;

Deno.bench(
  `check a large structuredContent: read_graph of 10,000 entities and relations (${
    Math.round(bytes(graph) / 1024)
  } KiB)`,
  { group: "structuredContent" },
  () => {
    graphValidator.validate(graph);
  },
);

Deno.bench(
  `check a large structuredContent: a notes page of 3,500 recursive notes (${
    Math.round(bytes(page) / 1024)
  } KiB)`,
  { group: "structuredContent" },
  () => {
    notesValidator.validate(page);
  },
);

Deno.bench(
  "prepare the output schema of list_notes ($defs, recursion)",
  { group: "prepare" },
  () => {
    valueValidator(listNotes.outputSchema ?? null);
  },
);

const hostile = { allOf: Array.from({ length: 2_000 }, () => ({ items: { type: "integer" } })) };
const numbers = Array.from({ length: 5_000 }, (_, i) => i);
const hostileValidator = valueValidator(hostile);
Deno.bench("a hostile schema (2,000 alternatives) on 5,000 items stops at its budget", {
  group: "hostile",
}, () => {
  const result = hostileValidator.validate(numbers);
  if (!result.ok || result.value.checked !== "none") throw new Error("the check did not stop");
});
