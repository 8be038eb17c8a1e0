import assert from "node:assert/strict";
import fc from "fast-check";
import { type JsonValue, paramHeaders, scanParamHeaders } from "../../codec/mod.ts";
import { jsonValue, RUNS } from "./_helpers.ts";

function object(properties: Record<string, JsonValue>): JsonValue {
  return { type: "object", properties };
}

Deno.test("scanParamHeaders() reads the marks of properties reached through properties", () => {
  const schema = object({
    region: { type: "string", "x-mcp-header": "Region" },
    nested: { type: "object", properties: { on: { type: "boolean", "x-mcp-header": "On" } } },
    plain: { type: "number" },
  });
  assert.deepEqual(scanParamHeaders(schema), {
    ok: true,
    headers: [{ path: ["region"], name: "Region" }, { path: ["nested", "on"], name: "On" }],
  });
});

Deno.test("scanParamHeaders() refuses each broken mark, saying why", async (t) => {
  const table: Array<[string, JsonValue, RegExp]> = [
    ["empty", object({ a: { type: "string", "x-mcp-header": "" } }), /non-empty string/],
    ["not a string", object({ a: { type: "string", "x-mcp-header": 3 } }), /non-empty string/],
    ["a space", object({ a: { type: "string", "x-mcp-header": "A B" } }), /not a token/],
    ["a colon", object({ a: { type: "string", "x-mcp-header": "A:B" } }), /not a token/],
    ["not ASCII", object({ a: { type: "string", "x-mcp-header": "Ré" } }), /not a token/],
    [
      "an object",
      object({ a: { type: "object", "x-mcp-header": "A" } }),
      /string, integer or boolean/,
    ],
    [
      "a number",
      object({ a: { type: "number", "x-mcp-header": "A" } }),
      /string, integer or boolean/,
    ],
    ["no type", object({ a: { "x-mcp-header": "A" } }), /string, integer or boolean/],
    [
      "twice, any case",
      object({
        a: { type: "string", "x-mcp-header": "Id" },
        b: { type: "string", "x-mcp-header": "ID" },
      }),
      /also "Id"/,
    ],
    [
      "under items",
      object({
        a: { type: "array", items: { type: "string", "x-mcp-header": "A" } },
      }),
      /only on properties reached/,
    ],
    [
      "under anyOf",
      { anyOf: [object({ a: { type: "string", "x-mcp-header": "A" } })] },
      /only on properties reached/,
    ],
    ["on the schema itself", { type: "string", "x-mcp-header": "A" }, /only on properties reached/],
  ];
  for (const [name, schema, reason] of table) {
    await t.step(name, () => {
      const scan = scanParamHeaders(schema);
      assert.ok(!scan.ok);
      assert.match(scan.reason, reason);
    });
  }
});

Deno.test("paramHeaders() renders present primitives and omits null, absent and unsafe ones", () => {
  const marks = [
    { path: ["region"], name: "Region" },
    { path: ["n"], name: "N" },
    { path: ["on"], name: "On" },
    { path: ["gone"], name: "Gone" },
    { path: ["nil"], name: "Nil" },
    { path: ["big"], name: "Big" },
    { path: ["text"], name: "Text" },
  ];
  const args = { region: "eu", n: 42, on: false, nil: null, big: 2 ** 60, text: " ü" };
  assert.deepEqual(paramHeaders(marks, args), [
    ["Mcp-Param-Region", "eu"],
    ["Mcp-Param-N", "42"],
    ["Mcp-Param-On", "false"],
    ["Mcp-Param-Text", "=?base64?IMO8?="],
  ]);
});

Deno.test("scanParamHeaders() and paramHeaders() never throw", () => {
  fc.assert(
    fc.property(jsonValue, jsonValue, (schema, args) => {
      const scan = scanParamHeaders(schema);
      if (scan.ok) paramHeaders(scan.headers, args);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("scanParamHeaders() refuses a mark under every keyword that holds subschemas", async (t) => {
  const mark = { type: "string", "x-mcp-header": "Region" };
  const marked = { type: "object", properties: { r: mark } };
  // JSON Schema 2020-12 and draft-07: each keyword, with a subschema where it holds one.
  const table: Array<[string, JsonValue]> = [
    ["items", marked],
    ["items (draft-07 tuple form)", [marked]],
    ["prefixItems", [marked]],
    ["additionalItems", marked],
    ["unevaluatedItems", marked],
    ["contains", marked],
    ["additionalProperties", marked],
    ["unevaluatedProperties", marked],
    ["patternProperties", { "^a": marked }],
    ["dependentSchemas", { a: marked }],
    ["dependencies", { a: marked }],
    ["propertyNames", marked],
    ["contentSchema", marked],
    ["allOf", [marked]],
    ["anyOf", [marked]],
    ["oneOf", [marked]],
    ["not", marked],
    ["if", marked],
    ["then", marked],
    ["else", marked],
    ["$defs", { a: marked }],
    ["definitions", { a: marked }],
  ];
  for (const [keyword, sub] of table) {
    await t.step(keyword, () => {
      const scan = scanParamHeaders({
        type: "object",
        properties: {},
        [keyword.split(" ")[0]!]: sub,
      });
      assert.ok(!scan.ok, keyword);
      assert.match(scan.reason, /only on properties reached/);
    });
  }
  await t.step("a dependencies list of names holds no schema", () => {
    const scan = scanParamHeaders({
      type: "object",
      properties: { r: mark },
      dependencies: { r: ["s"] },
    });
    assert.deepEqual(scan, { ok: true, headers: [{ path: ["r"], name: "Region" }] });
  });
});
