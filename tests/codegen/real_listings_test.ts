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
        [...result.value.manifest.values()].sort(),
        tools.map((tool) => tool.name).sort(),
      );
      for (const tool of tools) {
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

Deno.test("every module generated from a real listing type-checks against cap.ts", async () => {
  const modules: { group: string; generated: Generated }[] = [];
  for (const server of SERVERS) {
    const result = generate(server, load(server));
    assert.ok(result.ok);
    modules.push({ group: "real", generated: result.value });
  }
  assert.equal(await checkModules(modules), "");
});
