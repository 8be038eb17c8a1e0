import assert from "node:assert/strict";
import type { JsonObject } from "../../codec/json.ts";
import { MAX_SCHEMA_DEPTH } from "../../codegen/mod.ts";
import { constrains, schemaCoverage } from "../../scripts/_schema_coverage.ts";

function tool(inputSchema: JsonObject, outputSchema?: JsonObject) {
  return outputSchema === undefined
    ? { name: "t", inputSchema }
    : { name: "t", inputSchema, outputSchema };
}

Deno.test("constrains() names the keywords that constrain a value, a local $ref among them", () => {
  assert.ok(constrains({ type: "string" }));
  assert.ok(constrains({ enum: [1] }));
  assert.ok(constrains({ $ref: "#/$defs/A" }));
  assert.ok(!constrains({ $ref: "https://example.com/a.json" }));
  assert.ok(!constrains({ description: "anything" }));
  assert.ok(!constrains({}));
});

Deno.test("schemaCoverage() counts each constraining node once, through local refs", () => {
  const { input, output } = schemaCoverage([tool({
    type: "object",
    $defs: { A: { type: "object", properties: { n: { type: "number" } } }, Unused: {} },
    properties: { a: { $ref: "#/$defs/A" }, b: { $ref: "#/$defs/A" }, c: {} },
  })]);
  // The root, a, b, A and A's n; c constrains nothing.
  assert.equal(input.constraining, 5);
  assert.equal(input.untyped, 0);
  assert.equal(output.constraining, 0);
});

Deno.test("schemaCoverage() counts the nodes the generator leaves JsonValue", () => {
  let deep: JsonObject = { type: "string" };
  for (let i = 0; i < MAX_SCHEMA_DEPTH + 5; i++) {
    deep = { type: "object", properties: { inner: deep } };
  }
  const { input } = schemaCoverage([tool({ type: "object", properties: { deep } })]);
  assert.equal(input.constraining, MAX_SCHEMA_DEPTH + 7);
  assert.equal(input.untyped, 6);
  assert.match(input.untypedAt[0] ?? "", /^t #\/properties\/deep(\/properties\/inner)+$/);
});

Deno.test("schemaCoverage() pairs union members with their own shapes", () => {
  const { output } = schemaCoverage([tool({ type: "object" }, {
    type: "object",
    properties: {
      r: {
        anyOf: [
          { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
          { type: "object", additionalProperties: true },
        ],
      },
    },
  })]);
  assert.equal(output.untyped, 0);
  assert.equal(output.constraining, 6);
});

Deno.test("schemaCoverage() counts a top level that is open but takes no argument", () => {
  const open = schemaCoverage([tool({ type: "object", properties: {} })]);
  assert.equal(open.input.openReadClosed, 0);
  const closed = schemaCoverage([tool({ type: "object", additionalProperties: false })]);
  assert.equal(closed.input.openReadClosed, 0);
  // Before it took any object, the generator read this as taking no argument.
  const any = schemaCoverage([tool({ type: "object" })]);
  assert.equal(any.input.openReadClosed, 0);
});
