import assert from "node:assert/strict";
import { decodeToolsPage, isJsonObject, parseJson } from "../../codec/mod.ts";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import {
  backstop,
  escapeString,
  generate,
  type Generated,
  GENERATOR_WORDS,
  plan,
} from "../../codegen/mod.ts";
import { type Expectation, LARGE_DOCUMENTS } from "../corpus/_large.ts";
import { CAP_URL, checkModules, codeOnly, words } from "./_modules.ts";

type Case = {
  name: string;
  about: string;
  expect: Expectation;
  tools: ToolDescriptor[] | undefined;
};

const CORPUS = new URL("../corpus/", import.meta.url);

function decodeText(text: string): ToolDescriptor[] | undefined {
  const parsed = parseJson(text);
  if (!parsed.ok) return undefined;
  const page = decodeToolsPage(parsed.value);
  return page.ok ? page.value.tools : undefined;
}

function loadCorpus(): Case[] {
  const cases: Case[] = [];
  const files = [...Deno.readDirSync(CORPUS)]
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(".json"))
    .sort();
  for (const file of files) {
    const parsed = parseJson(Deno.readTextFileSync(new URL(file, CORPUS)));
    if (!parsed.ok || !isJsonObject(parsed.value)) throw new Error(`corpus ${file} is not JSON`);
    const doc = parsed.value;
    const page = decodeToolsPage(doc.listing ?? null);
    cases.push({
      name: file.replace(/\.json$/, ""),
      about: String(doc.about),
      expect: doc.expect as unknown as Expectation,
      tools: page.ok ? page.value.tools : undefined,
    });
  }
  for (const doc of LARGE_DOCUMENTS) {
    cases.push({
      name: doc.name,
      about: doc.about,
      expect: doc.expect,
      tools: "text" in doc ? decodeText(doc.text) : doc.tools,
    });
  }
  return cases;
}

const CASES = loadCorpus();

function segmentOf(name: string): string {
  return "c" + name.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

function run(testCase: Case, capSpecifier?: string) {
  assert.ok(testCase.tools !== undefined);
  return generate(segmentOf(testCase.name), testCase.tools, capSpecifier ? { capSpecifier } : {});
}

const GENERATED: { name: string; tools: ToolDescriptor[]; generated: Generated }[] = [];
for (const testCase of CASES) {
  if (testCase.expect.outcome !== "generated" || testCase.tools === undefined) continue;
  const result = run(testCase);
  if (result.ok) {
    GENERATED.push({ name: testCase.name, tools: testCase.tools, generated: result.value });
  }
}

Deno.test("the hostile corpus holds at least 40 documents", () => {
  assert.ok(CASES.length >= 40, `only ${CASES.length} documents`);
});

Deno.test("generate() meets the expected outcome of every corpus document", async (t) => {
  for (const testCase of CASES) {
    await t.step(`${testCase.name}: ${testCase.about}`, () => {
      const { expect } = testCase;
      if (expect.outcome === "codec_refused") {
        assert.equal(testCase.tools, undefined, "the codec accepted the document");
        return;
      }
      const result = run(testCase);
      if (expect.outcome !== "generated") {
        assert.ok(!result.ok, "generation succeeded");
        assert.equal(result.error.kind, expect.outcome, result.error.message);
        if (result.error.kind === "tool_name_collision" && expect.collision !== undefined) {
          assert.deepEqual([result.error.first, result.error.second], expect.collision);
          assert.match(result.error.message, /"search" and "search"/);
        }
        return;
      }
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      const tools = testCase.tools ?? [];
      assert.equal(result.value.manifest.size, tools.length, "a tool is missing");
      for (const wire of expect.whole_value ?? []) {
        const tool = tools.find((each) => each.name === wire);
        assert.equal(tool && plan(tool.inputSchema).kind, "whole_value", wire);
      }
      for (const entry of expect.structured ?? []) {
        const [wire, param] = entry.split("/");
        const planned = plan(tools.find((each) => each.name === wire)?.inputSchema ?? null);
        assert.equal(planned.kind, "typed", entry);
        if (planned.kind !== "typed") continue;
        const found = planned.params.find((each) => each.name === param);
        assert.equal(found?.type.kind, "structured", entry);
      }
      for (const entry of expect.typed ?? []) {
        const [wire, param] = entry.split("/");
        const planned = plan(tools.find((each) => each.name === wire)?.inputSchema ?? null);
        assert.equal(planned.kind, "typed", entry);
        if (planned.kind !== "typed" || param === undefined) continue;
        const found = planned.params.find((each) => each.name === param);
        assert.ok(found !== undefined && found.type.kind !== "structured", entry);
      }
      for (const plain of expect.manifest_keys_plain ?? []) {
        assert.equal(result.value.manifest.get(plain), plain);
      }
    });
  }
});

Deno.test("no server-controlled text appears outside comments and string literals", async (t) => {
  for (const { name, generated } of GENERATED) {
    await t.step(name, () => {
      const code = codeOnly(generated.source);
      assert.match(
        code,
        /^[A-Za-z0-9_ \n{}()[\];:,<>?|&=.+-]*$/,
        "a character outside the alphabet",
      );
      for (const word of words(code)) {
        assert.ok(
          GENERATOR_WORDS.has(word) || generated.manifest.has(word) || generated.types.has(word),
          `word ${JSON.stringify(word)} is not the generator's`,
        );
      }
      const minted = new Set([...generated.manifest.keys(), ...generated.types.keys()]);
      assert.ok(backstop(generated.source, minted).ok);
    });
  }
});

Deno.test("every corpus surface holds one line per tool and every parameter", async (t) => {
  for (const { name, tools, generated } of GENERATED) {
    await t.step(name, () => {
      const all = generated.surface.trimEnd().split("\n");
      const lines = all.filter((line) => !line.startsWith("type "));
      assert.equal(lines.length, tools.length + 1);
      assert.equal(all.length - lines.length, generated.types.size, "one line per type alias");
      assert.match(
        lines[0] ?? "",
        /^\/\/ mcp\/[a-z0-9_-]+\.ts \(server "[a-z0-9_-]+", \d+ tools?\)$/,
      );
      for (const line of lines) assert.doesNotMatch(line, /[\p{Cc}\p{Cf}\u2028\u2029]/u);
      for (const tool of tools) {
        const planned = plan(tool.inputSchema);
        if (planned.kind !== "typed") continue;
        const identifier = [...generated.manifest].find(([, wire]) => wire === tool.name)?.[0];
        const line = lines.find((each) => each.startsWith(`${identifier}(`)) ?? "";
        for (const param of planned.params) {
          const bare = /^[A-Za-z_][A-Za-z0-9_]*$/.test(param.name);
          const key = bare ? `${param.name}` : escapeString(param.name);
          assert.ok(line.includes(key), `${tool.name}: parameter ${key} is missing`);
        }
      }
    });
  }
});

Deno.test("every corpus module stays small however large the server's text", () => {
  for (const { name, tools, generated } of GENERATED) {
    assert.ok(generated.source.length < 8_000 + 4_000 * tools.length, name);
  }
});

Deno.test("every generated corpus module type-checks against cap.ts", async () => {
  const failures = await checkModules(
    GENERATED.map(({ name, generated }) => ({ group: name, generated })),
  );
  assert.equal(failures, "");
});

Deno.test("every generated function passes its server and wire name verbatim to invoke", async () => {
  const capSpecifier = `${CAP_URL.href}?corpus`;
  const cap = await import(capSpecifier);
  const calls: [string, string][] = [];
  cap.installChannel((server: string, tool: string) => {
    calls.push([server, tool]);
    return Promise.resolve({ ok: true, content: [], isError: false });
  });
  const root = await Deno.makeTempDir({ prefix: "codegen_run_" });
  try {
    for (const testCase of CASES) {
      if (testCase.expect.outcome !== "generated") continue;
      const result = run(testCase, capSpecifier);
      assert.ok(result.ok);
      const path = `${root}/${result.value.segment}.ts`;
      await Deno.writeTextFile(path, result.value.source);
      const module = await import(`file://${path}`);
      assert.deepEqual(Object.keys(module).sort(), [...result.value.manifest.keys()].sort());
      for (const [identifier, wire] of result.value.manifest) {
        calls.length = 0;
        await module[identifier]({});
        assert.deepEqual(calls, [[result.value.segment, wire]], testCase.name);
      }
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
