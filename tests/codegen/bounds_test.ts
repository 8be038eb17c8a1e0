import assert from "node:assert/strict";
import type { JsonObject } from "../../codec/json.ts";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import {
  generate,
  MAX_MODULE_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  MAX_SURFACE_BYTES,
  plan,
} from "../../codegen/mod.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

// Tools whose members say a lot in the module and little on the surface.
function wordyTools(count: number, members: number): ToolDescriptor[] {
  return Array.from({ length: count }, (_, t) => {
    const properties: JsonObject = {};
    for (let m = 0; m < members; m++) {
      properties[`p${m}`] = {
        type: "object",
        description: `Member ${m} of tool ${t}: `.padEnd(119, "x"),
        properties: {
          v: { type: "integer", minimum: 0, maximum: 99, default: 7, description: "y".repeat(110) },
        },
      };
    }
    return { name: `tool${t}`, inputSchema: { type: "object", properties } };
  });
}

Deno.test("past MAX_MODULE_BYTES the largest tools take the whole value until the module fits", () => {
  const tools = wordyTools(40, 60);
  const result = generate("s", tools);
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const { source, surface } = result.value;
  assert.ok(bytes(source) <= MAX_MODULE_BYTES, `${bytes(source)} bytes`);
  assert.ok(bytes(surface) <= MAX_SURFACE_BYTES);
  const demoted = surface.split("\n").filter((line) => line.includes("(args: JsonObject)"));
  assert.ok(demoted.length > 0 && demoted.length < tools.length, `${demoted.length} demoted`);
  assert.match(
    source,
    new RegExp(`its types would take the module past ${MAX_MODULE_BYTES} bytes`),
  );
  // Every tool is still callable, typed or not.
  assert.equal(result.value.manifest.size, tools.length);
});

Deno.test("a module under MAX_MODULE_BYTES keeps every type", () => {
  const result = generate("s", wordyTools(4, 60));
  assert.ok(result.ok);
  assert.doesNotMatch(result.value.surface, /\(args: JsonObject\)/);
});

Deno.test("past MAX_SCHEMA_NODES the rest of a schema is JsonValue, every parameter kept", () => {
  const properties: JsonObject = {};
  for (let i = 0; i < MAX_SCHEMA_NODES + 500; i++) properties[`p${i}`] = { type: "string" };
  const planned = plan({ type: "object", properties });
  assert.equal(planned.kind, "typed");
  if (planned.kind !== "typed") return;
  assert.equal(planned.params.length, MAX_SCHEMA_NODES + 500);
  const untyped = planned.params.filter((param) => param.type.kind === "structured");
  assert.equal(untyped.length, 501);
  const first = untyped[0]?.type;
  assert.ok(first?.kind === "structured" && /more than 10000 nodes/.test(first.reason));
});

Deno.test("nesting past MAX_SCHEMA_DEPTH stops typing there, however deep it goes", () => {
  let schema: JsonObject = { type: "string" };
  for (let i = 0; i < 5_000; i++) {
    schema = i % 2 === 0
      ? { type: "object", properties: { o: schema } }
      : { anyOf: [schema, { type: "null" }] };
  }
  const result = generate("s", [{
    name: "deep",
    inputSchema: { type: "object", properties: { schema } },
  }]);
  assert.ok(result.ok);
  const doc = result.value.source.replace(/\n\s*\* /g, " ");
  assert.match(
    doc,
    new RegExp(`JsonValue at (o\\.)+o: it nests deeper than ${MAX_SCHEMA_DEPTH} levels`),
  );
  assert.ok(bytes(result.value.source) < 20_000);
});
