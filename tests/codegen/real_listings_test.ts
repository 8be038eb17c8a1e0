import assert from "node:assert/strict";
import { decodeToolsPage, parseJson } from "../../codec/mod.ts";
import { generate, type Generated, plan } from "../../codegen/mod.ts";
import { checkModules } from "./_modules.ts";

// tools/list results of the official servers, version 2026.8.31.
const SERVERS = ["everything", "filesystem", "memory", "sequential-thinking"] as const;

function load(server: string) {
  const text = Deno.readTextFileSync(new URL(`./data/${server}.json`, import.meta.url));
  const parsed = parseJson(text);
  assert.ok(parsed.ok);
  const page = decodeToolsPage(parsed.value);
  assert.ok(page.ok, page.ok ? "" : page.error.message);
  return page.value.tools;
}

Deno.test("generate() accepts every real listing, keeping every tool and parameter", async (t) => {
  for (const server of SERVERS) {
    await t.step(server, () => {
      const tools = load(server);
      const result = generate(server, tools);
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.deepEqual(
        [...result.value.manifest.values(), ...result.value.omitted.keys()].sort(),
        tools.map((tool) => tool.name).sort(),
      );
      for (const tool of tools) {
        if (result.value.omitted.has(tool.name)) continue;
        const planned = plan(tool.inputSchema);
        assert.equal(planned.kind, "typed", tool.name);
        if (planned.kind !== "typed") continue;
        for (const param of planned.params) {
          assert.notEqual(param.type.kind, "structured", `${tool.name}.${param.name}`);
          assert.ok(result.value.surface.includes(`${param.name}`), `${tool.name}.${param.name}`);
        }
      }
    });
  }
});

const GOLDEN = new URL("./golden/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

Deno.test("generate() matches the golden module and surface of every real listing", async (t) => {
  for (const server of SERVERS) {
    await t.step(server, async () => {
      const result = generate(server, load(server));
      assert.ok(result.ok);
      for (
        const [part, text] of [["source", result.value.source], ["surface", result.value.surface]]
      ) {
        const url = new URL(`${server}.${part}.txt`, GOLDEN);
        if (UPDATE) await Deno.writeTextFile(url, text!);
        assert.equal(text, await Deno.readTextFile(url), `${server}.${part}.txt differs`);
      }
    });
  }
});

Deno.test("the official servers' tools keep their wire names as identifiers where they can", () => {
  const expected: Record<string, [string, string][]> = {
    everything: [["echo", "echo"], ["get_sum", "get-sum"], ["get_env", "get-env"]],
    filesystem: [["read_text_file", "read_text_file"], ["list_directory", "list_directory"]],
    memory: [["create_entities", "create_entities"], ["read_graph", "read_graph"]],
    "sequential-thinking": [["sequentialthinking", "sequentialthinking"]],
  };
  for (const server of SERVERS) {
    const result = generate(server, load(server));
    assert.ok(result.ok);
    for (const [identifier, wire] of expected[server] ?? []) {
      assert.equal(result.value.manifest.get(identifier), wire, `${server}: ${identifier}`);
    }
    for (const identifier of result.value.manifest.keys()) {
      assert.doesNotMatch(identifier, /_[0-9a-f]{8}$/, `${server}: ${identifier} carries a digest`);
    }
  }
});

Deno.test("the everything server's task-required tool is left out, with the reason", () => {
  const result = generate("everything", load("everything"));
  assert.ok(result.ok);
  assert.equal(result.value.omitted.get("simulate-research-query"), "task_required");
  assert.ok(![...result.value.manifest.values()].includes("simulate-research-query"));
});

// A program as a model writes it from the surface: wire names as identifiers,
// typed structured content, content blocks narrowed on their type.
const PROGRAM = `
import { echo, get_structured_content, get_sum } from "./mcp/everything.ts";
import { list_directory, read_text_file } from "./mcp/filesystem.ts";
import { create_entities, read_graph } from "./mcp/memory.ts";
import { sequentialthinking } from "./mcp/sequential-thinking.ts";
const weather = await get_structured_content({ location: "Chicago" });
const celsius: number = weather.structuredContent.temperature;
await create_entities({ entities: [{ name: "a", entityType: "t", observations: [] }] });
const graph = await read_graph({});
const names: string[] = graph.structuredContent.entities.map((entity) => entity.name);
const sum = await get_sum({ a: 1, b: 2 });
const texts: string[] = [];
for (const block of sum.content) {
  if (block.type === "text") texts.push(block.text);
  else if (block.type === "image") texts.push(block.mimeType);
  else if (block.type === "resource_link") texts.push(block.uri);
}
const file = await read_text_file({ path: "README.md", head: 3 });
const listing: string = (await list_directory({ path: "." })).structuredContent.content;
const thought = await sequentialthinking({
  thought: "t", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1,
});
const next: boolean = thought.structuredContent.nextThoughtNeeded;
export default [celsius, names, texts, file.text, listing, next, (await echo({ message: "hi" })).text];
`;

Deno.test("every real module, and a program using the wire names, type-checks against cap.ts", async () => {
  const modules: { group: string; generated: Generated }[] = [];
  for (const server of SERVERS) {
    const result = generate(server, load(server));
    assert.ok(result.ok);
    modules.push({ group: "real", generated: result.value });
  }
  const first = modules[0]!.generated;
  modules.push({
    group: "real",
    generated: { ...first, moduleName: "program.ts", source: PROGRAM },
  });
  assert.equal(await checkModules(modules), "");
});
