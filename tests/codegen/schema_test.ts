import assert from "node:assert/strict";
import fc from "fast-check";
import type { JsonValue } from "../../codec/json.ts";
import { MAX_ENUM_MEMBERS, MAX_SCHEMA_DEPTH, type ParamType, plan } from "../../codegen/mod.ts";

function paramType(schema: JsonValue, required = false): ParamType {
  const planned = plan({
    type: "object",
    properties: { p: schema },
    required: required ? ["p"] : [],
  });
  assert.equal(planned.kind, "typed");
  assert.equal(planned.params.length, 1);
  return planned.params[0]!.type;
}

Deno.test("plan() types the typed subset", async (t) => {
  const table: [string, JsonValue, ParamType][] = [
    ["string", { type: "string" }, { kind: "string" }],
    ["integer", { type: "integer" }, { kind: "number" }],
    ["boolean", { type: "boolean" }, { kind: "boolean" }],
    ["null", { type: "null" }, { kind: "null" }],
    ["const", { const: "x" }, { kind: "literal", value: "x" }],
    ["enum", { enum: ["a", 1, null] }, {
      kind: "union",
      members: [{ kind: "literal", value: "a" }, { kind: "literal", value: 1 }, {
        kind: "literal",
        value: null,
      }],
    }],
    ["type array", { type: ["string", "null"] }, {
      kind: "union",
      members: [{ kind: "string" }, { kind: "null" }],
    }],
    ["anyOf", { anyOf: [{ type: "number" }, { type: "null" }] }, {
      kind: "union",
      members: [{ kind: "number" }, { kind: "null" }],
    }],
    ["array", { type: "array", items: { type: "string" } }, {
      kind: "array",
      items: { kind: "string" },
    }],
    ["nested object", {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a"],
    }, {
      kind: "object",
      properties: [
        { name: "a", type: { kind: "string" }, required: true },
        { name: "b", type: { kind: "number" }, required: false },
      ],
    }],
    ["map", { type: "object", additionalProperties: { type: "number" } }, {
      kind: "map",
      values: { kind: "number" },
    }],
    ["open object", { type: "object" }, { kind: "any_object" }],
    ["nullable", { type: "string", nullable: true }, {
      kind: "union",
      members: [{ kind: "string" }, { kind: "null" }],
    }],
    ["allOf with a constraint", { allOf: [{ type: "string" }, { minLength: 2 }] }, {
      kind: "string",
    }],
    ["allOf of objects", {
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: "number" } } },
      ],
    }, {
      kind: "object",
      properties: [
        { name: "a", type: { kind: "string" }, required: true },
        { name: "b", type: { kind: "number" }, required: false },
      ],
    }],
    ["anyOf beside a type", { type: "string", anyOf: [{ minLength: 1 }] }, { kind: "string" }],
    ["allOf of any object and a shape", {
      allOf: [{ type: "object" }, { properties: { a: { type: "string" } } }],
    }, { kind: "object", properties: [{ name: "a", type: { kind: "string" }, required: false }] }],
    ["patternProperties", { type: "object", patternProperties: { "^x-": { type: "number" } } }, {
      kind: "map",
      values: { kind: "number" },
    }],
    ["object const", { const: { a: 1 } }, {
      kind: "object",
      properties: [{ name: "a", type: { kind: "literal", value: 1 }, required: true }],
    }],
    ["draft-07 tuple", { type: "array", items: [{ type: "string" }], minItems: 1 }, {
      kind: "tuple",
      items: [{ kind: "string" }],
      required: 1,
      rest: { kind: "structured", reason: "any item" },
    }],
    ["prefixItems, closed", {
      type: "array",
      prefixItems: [{ type: "number" }, { type: "number" }],
      items: false,
    }, { kind: "tuple", items: [{ kind: "number" }, { kind: "number" }], required: 0 }],
  ];
  for (const [name, schema, expected] of table) {
    await t.step(name, () => assert.deepEqual(paramType(schema), expected));
  }
});

Deno.test("plan() types everything else JsonValue, with a reason", async (t) => {
  const table: [string, JsonValue, RegExp][] = [
    ["remote $ref", { $ref: "https://example.com/s.json" }, /never fetched/],
    ["local $ref to nothing", { $ref: "#/$defs/x" }, /names no part/],
    ["$dynamicRef", { $dynamicRef: "#meta" }, /"\$dynamicRef"/],
    ["untyped anyOf member", { anyOf: [{ type: "string" }, { not: {} }] }, /"anyOf"/],
    ["allOf sharing no type", { allOf: [{ type: "string" }, { type: "number" }] }, /no value/],
    ["unknown type", { type: "date" }, /"type"/],
    ["no type", { description: "x" }, /no "type"/],
    ["true schema", true, /any value/],
  ];
  for (const [name, schema, reason] of table) {
    await t.step(name, () => {
      const type = paramType(schema);
      assert.equal(type.kind, "structured");
      if (type.kind === "structured") assert.match(type.reason, reason);
    });
  }
});

Deno.test("plan() reads an unusable top level as a whole value", async (t) => {
  const table: [string, JsonValue][] = [
    ["not an object", "object"],
    ["null", null],
    ["a top-level $ref to nothing", { $ref: "#/x" }],
    ["a top-level remote $ref", { $ref: "https://example.com/s.json" }],
    ["a top-level anyOf of any object", { anyOf: [{ type: "object" }] }],
    ["a top-level union of shapes", {
      oneOf: [{ properties: { a: { type: "string" } } }, { properties: { b: {} } }],
    }],
    ["no properties, not closed (any object)", { type: "object" }],
    ["no keyword at all", { $schema: "http://json-schema.org/draft-07/schema#" }],
    ["a string type", { type: "string" }],
    ["properties not an object", { type: "object", properties: [] }],
    ["keys only by additionalProperties", { type: "object", additionalProperties: true }],
  ];
  for (const [name, schema] of table) {
    await t.step(name, () => assert.equal(plan(schema).kind, "whole_value"));
  }
});

Deno.test("plan() never drops a parameter", () => {
  const planned = plan({
    type: "object",
    properties: { a: { $ref: "#" }, b: false, c: 3 },
    required: ["a", "ghost", "ghost", 7],
  });
  assert.equal(planned.kind, "typed");
  if (planned.kind !== "typed") return;
  assert.deepEqual(planned.params.map((p) => [p.name, p.required]), [
    ["a", true],
    ["b", false],
    ["c", false],
    ["ghost", true],
  ]);
});

Deno.test("plan() reads only own keys, so Object.prototype names are plain data", () => {
  const planned = plan({ type: "object", properties: {}, required: ["constructor", "toString"] });
  assert.equal(planned.kind, "typed");
  if (planned.kind === "typed") {
    assert.deepEqual(planned.params.map((p) => p.name), ["constructor", "toString"]);
  }
});

Deno.test("plan() stops typing at the depth bound", () => {
  let schema: JsonValue = { type: "string" };
  for (let i = 0; i < 1000; i++) schema = { type: "array", items: schema };
  let type = paramType(schema);
  let depth = 0;
  while (type.kind === "array") {
    type = type.items;
    depth++;
  }
  assert.equal(type.kind, "structured");
  assert.equal(depth, MAX_SCHEMA_DEPTH);
});

Deno.test("plan() widens an enum too large to list", () => {
  const values = Array.from({ length: MAX_ENUM_MEMBERS + 1 }, (_, i) => `v${i}`);
  assert.deepEqual(paramType({ enum: values }), { kind: "string" });
});

Deno.test("plan() is total over arbitrary JSON", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const planned = plan(value as JsonValue);
      assert.ok(planned.kind === "typed" || planned.kind === "whole_value");
    }),
  );
});
