import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../../codec/json.ts";
import { decodeToolsPage, isJsonObject, parseJson } from "../../codec/mod.ts";
import { validateValue, type ValueCheck, valueValidator } from "../../codegen/mod.ts";

const NOTE: JsonObject = {
  type: "object",
  $defs: {
    Author: {
      type: "object",
      properties: {
        handle: { type: "string" },
        display: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["handle"],
    },
    Note: {
      type: "object",
      properties: {
        slug: { type: "string", pattern: "^[a-z0-9-]+$" },
        author: { $ref: "#/$defs/Author" },
        visibility: { enum: ["private", "team", "public"] },
        replies: { type: "array", items: { $ref: "#/$defs/Note" } },
      },
      required: ["slug", "author"],
    },
  },
  properties: { result: { anyOf: [{ $ref: "#/$defs/Note" }, { type: "null" }] } },
  required: ["result"],
};

function checked(result: ReturnType<typeof validateValue>): ValueCheck {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.value;
}

Deno.test("a value that fits its schema is checked in full", () => {
  const value = {
    result: {
      slug: "a-1",
      author: { handle: "h", display: null },
      replies: [{ slug: "b", author: { handle: "i" }, visibility: "team" }],
    },
  };
  assert.equal(checked(validateValue(value, NOTE)).checked, "all");
  assert.equal(checked(validateValue({ result: null }, NOTE)).checked, "all");
});

Deno.test("a broken rule is reported with its JSON path, its keyword and what to do", async (t) => {
  const table: [string, JsonValue, JsonValue, string, string, RegExp][] = [
    [
      "type",
      { properties: { n: { type: "integer" } } },
      { n: "3" },
      "$.n",
      "type",
      /must be an integer, not a string/,
    ],
    [
      "required",
      { required: ["path"] },
      {},
      "$.path",
      "required",
      /is required but missing; add it/,
    ],
    [
      "closed object",
      { properties: { a: {} }, additionalProperties: false },
      { a: 1, b: 2 },
      "$.b",
      "additionalProperties",
      /remove it/,
    ],
    [
      "enum",
      { properties: { m: { enum: ["a", "b"] } } },
      { m: "c" },
      "$.m",
      "enum",
      /one of "a", "b", not "c"/,
    ],
    [
      "minimum",
      { properties: { n: { minimum: 1 } } },
      { n: 0 },
      "$.n",
      "minimum",
      /must be >= 1 \(it is 0\)/,
    ],
    [
      "exclusiveMaximum",
      { properties: { n: { exclusiveMaximum: 1 } } },
      { n: 1 },
      "$.n",
      "exclusiveMaximum",
      /must be < 1/,
    ],
    [
      "pattern",
      { properties: { s: { pattern: "^[a-z]+$" } } },
      { s: "A" },
      "$.s",
      "pattern",
      /match the pattern "\^\[a-z\]\+\$"/,
    ],
    [
      "maxLength",
      { properties: { s: { maxLength: 2 } } },
      { s: "abc" },
      "$.s",
      "maxLength",
      /at most 2 characters long \(it is 3\)/,
    ],
    [
      "nested index",
      { properties: { a: { items: { properties: { b: { type: "string" } } } } } },
      { a: [{}, {}, {}, { b: 1 }] },
      "$.a[3].b",
      "type",
      /^\$\.a\[3\]\.b must be a string/,
    ],
    [
      "odd key",
      { properties: { "a b": { type: "null" } } },
      { "a b": 1 },
      '$["a b"]',
      "type",
      /null/,
    ],
    [
      "const",
      { properties: { t: { const: "text" } } },
      { t: "image" },
      "$.t",
      "const",
      /must be "text"/,
    ],
    ["false", { properties: { x: false } }, { x: 1 }, "$.x", "false", /not allowed here/],
    [
      "anyOf",
      { properties: { u: { anyOf: [{ type: "string" }, { type: "null" }] } } },
      { u: 1 },
      "$.u",
      "anyOf",
      /none of the shapes/,
    ],
    [
      "maxItems",
      { properties: { l: { maxItems: 1 } } },
      { l: [1, 2] },
      "$.l",
      "maxItems",
      /at most 1 items \(it has 2\)/,
    ],
  ];
  for (const [name, schema, value, path, rule, message] of table) {
    await t.step(name, () => {
      const result = validateValue(value, schema);
      assert.ok(!result.ok, "the value passed");
      assert.equal(result.error.kind, "value_invalid");
      assert.equal(result.error.path, path);
      assert.equal(result.error.rule, rule);
      assert.match(result.error.message, message);
    });
  }
});

Deno.test("every broken rule is reported at once, the most direct first", () => {
  const result = validateValue({ b: 1, c: "x" }, {
    properties: { b: { type: "string" }, c: { type: "integer" } },
    required: ["a"],
  });
  assert.ok(!result.ok);
  assert.deepEqual(result.error.issues.map((issue) => [issue.path, issue.rule]), [
    ["$.a", "required"],
    ["$.b", "type"],
    ["$.c", "type"],
  ]);
  assert.match(result.error.message, /^\$\.a is required but missing; add it; also \$\.b must be/);
});

Deno.test("draft-07 schemas are read as draft-07: tuples as lists of items, definitions", () => {
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    definitions: {
      P: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
    },
    properties: { at: { $ref: "#/definitions/P" } },
  };
  assert.equal(checked(validateValue({ at: [1, 2] }, schema)).checked, "all");
  const long = validateValue({ at: [1, 2, 3] }, schema);
  assert.ok(!long.ok);
  assert.equal(long.error.path, "$.at[2]");
  const wrong = validateValue({ at: [1, "2"] }, schema);
  assert.ok(!wrong.ok && wrong.error.path === "$.at[1]");
});

Deno.test("2020-12 is the default draft: prefixItems and items", () => {
  const schema = { prefixItems: [{ type: "string" }], items: { type: "integer" } };
  assert.equal(checked(validateValue(["a", 1, 2], schema)).checked, "all");
  const result = validateValue(["a", 1, 2.5], schema);
  assert.ok(!result.ok && result.error.path === "$[2]");
});

Deno.test("an integer past 2^53 is checked as a number", () => {
  const schema = { properties: { n: { type: "integer", minimum: 0 } } };
  assert.equal(checked(validateValue({ n: 2n ** 70n }, schema)).checked, "all");
  const result = validateValue({ n: -(2n ** 70n) }, schema);
  assert.ok(!result.ok && result.error.rule === "minimum");
});

Deno.test("format is an annotation, whatever it names", () => {
  for (const name of ["email", "__proto__", "constructor", "toString", "date-time"]) {
    const schema = { properties: { s: { type: "string", format: name } } };
    assert.equal(checked(validateValue({ s: "not one" }, schema)).checked, "all", name);
  }
});

Deno.test("one prepared validator checks many values", () => {
  const validator = valueValidator(NOTE);
  assert.deepEqual(validator.unchecked, []);
  for (let i = 0; i < 50; i++) {
    const value = { result: { slug: `s${i}`, author: { handle: i % 2 === 0 ? "h" : 7 } } };
    assert.equal(validator.validate(value).ok, i % 2 === 0, `value ${i}`);
  }
});

Deno.test("every real tool's input schema is checked, and an empty argument object is judged", async () => {
  const folder = new URL("../corpus/servers/", import.meta.url);
  let schemas = 0;
  for await (const entry of Deno.readDir(folder)) {
    if (!entry.name.endsWith(".tools.json")) continue;
    const parsed = parseJson(await Deno.readTextFile(new URL(entry.name, folder)));
    assert.ok(parsed.ok && isJsonObject(parsed.value));
    const page = decodeToolsPage({ tools: parsed.value.tools ?? null });
    assert.ok(page.ok);
    for (const tool of page.value.tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        if (schema === undefined) continue;
        schemas++;
        const validator = valueValidator(schema);
        const result = validator.validate({});
        if (result.ok) assert.notEqual(result.value.checked, "none", `${entry.name} ${tool.name}`);
      }
    }
  }
  assert.ok(schemas > 700, `${schemas} schemas`);
});
