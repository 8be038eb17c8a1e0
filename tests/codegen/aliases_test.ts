import assert from "node:assert/strict";
import fc from "fast-check";
import type { JsonObject, JsonValue } from "../../codec/json.ts";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import { backstop, generate, GENERATOR_WORDS, MAX_TYPE_ALIASES } from "../../codegen/mod.ts";
import { checkModules, codeOnly, words } from "./_modules.ts";

function withDefs(defs: JsonObject, properties: JsonObject): JsonValue {
  return { type: "object", $defs: defs, properties };
}

const object = (properties: JsonObject): JsonObject => ({ type: "object", properties });

Deno.test("a definition's name is an identifier of the generator's alphabet, whatever the server wrote", async () => {
  const names = ["*/ evil() /*", "__proto__", "then", "a b", "Ünïcode", "`${x}`", "1st", "ok"];
  const defs: JsonObject = {};
  const properties: JsonObject = {};
  names.forEach((name, i) => {
    defs[name] = object({ [`v${i}`]: { type: "string" } });
    properties[`p${i}`] = { $ref: `#/$defs/${encodeURIComponent(name).replaceAll("%2F", "~1")}` };
  });
  const result = generate("s", [{ name: "t", inputSchema: withDefs(defs, properties) }]);
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const { source, types, manifest } = result.value;
  assert.equal(types.size, names.length);
  for (const identifier of types.keys()) assert.match(identifier, /^[A-Za-z_][A-Za-z0-9_]*$/);
  assert.deepEqual([...types.values()].sort(), [...names].sort());
  assert.ok(types.has("ok") && types.has("_then") && types.has("___proto__"));
  for (const word of words(codeOnly(source))) {
    assert.ok(GENERATOR_WORDS.has(word) || manifest.has(word) || types.has(word), word);
  }
  assert.ok(backstop(source, new Set([...manifest.keys(), ...types.keys()])).ok);
  assert.equal(await checkModules([{ group: "names", generated: result.value }]), "");
});

Deno.test("two definitions that would share an alias name each take a digest suffix", () => {
  const result = generate("s", [
    {
      name: "a",
      inputSchema: withDefs({ Item: object({ x: { type: "string" } }) }, {
        i: { $ref: "#/$defs/Item" },
      }),
    },
    {
      name: "b",
      inputSchema: withDefs({ Item: object({ y: { type: "number" } }) }, {
        i: { $ref: "#/$defs/Item" },
      }),
    },
  ], { digest: (text) => text.includes('"x"') ? "aaaaaaaa" : "bbbbbbbb" });
  assert.ok(result.ok);
  assert.deepEqual([...result.value.types.keys()], ["Item_aaaaaaaa", "Item_bbbbbbbb"]);
  assert.match(result.value.surface, /^a\(args: \{ i\?: Item_aaaaaaaa \}\)/m);
  assert.match(result.value.surface, /^b\(args: \{ i\?: Item_bbbbbbbb \}\)/m);
});

Deno.test("one definition repeated by several tools is one alias", () => {
  const defs = { Page: object({ next: { type: ["string", "null"] } }) };
  const tools = ["a", "b", "c"].map((name) => ({
    name,
    inputSchema: { type: "object", properties: {} },
    outputSchema: withDefs(defs, { page: { $ref: "#/$defs/Page" } }),
  }));
  const result = generate("s", tools);
  assert.ok(result.ok);
  assert.deepEqual([...result.value.types], [["Page", "Page"]]);
  assert.equal(result.value.source.match(/export type Page =/g)?.length, 1);
});

Deno.test("an alias never takes the name of a function", () => {
  const result = generate("s", [
    { name: "Note", inputSchema: { type: "object", properties: {} } },
    {
      name: "get",
      inputSchema: withDefs({ Note: object({ a: { type: "string" } }) }, {
        n: { $ref: "#/$defs/Note" },
      }),
    },
  ], { digest: () => "0123456789abcdef" });
  assert.ok(result.ok);
  assert.deepEqual([...result.value.types.keys()], ["Note_01234567"]);
  assert.ok(result.value.manifest.has("Note"));
});

Deno.test("past MAX_TYPE_ALIASES a module's refs are JsonValue, with the reason", async () => {
  const defs: JsonObject = {};
  const properties: JsonObject = {};
  const tools: ToolDescriptor[] = [];
  for (let i = 0; i < MAX_TYPE_ALIASES + 10; i++) {
    defs[`D${i}`] = object({ [`f${i}`]: { type: "string" } });
    properties[`p${i}`] = { $ref: `#/$defs/D${i}` };
    if (Object.keys(properties).length === 50) {
      tools.push({
        name: `t${tools.length}`,
        inputSchema: withDefs({ ...defs }, { ...properties }),
      });
      for (const key of Object.keys(properties)) delete properties[key];
    }
  }
  tools.push({ name: `t${tools.length}`, inputSchema: withDefs({ ...defs }, { ...properties }) });
  const result = generate("s", tools);
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  assert.equal(result.value.types.size, MAX_TYPE_ALIASES);
  assert.match(
    result.value.source,
    new RegExp(`JsonValue: the module already holds ${MAX_TYPE_ALIASES} type aliases`),
  );
  assert.equal(await checkModules([{ group: "cap", generated: result.value }]), "");
});

Deno.test("refs that fan out at every level are read once each", () => {
  const defs: JsonObject = { L0: { type: "string" } };
  for (let i = 1; i <= 40; i++) {
    defs[`L${i}`] = object({ a: { $ref: `#/$defs/L${i - 1}` }, b: { $ref: `#/$defs/L${i - 1}` } });
  }
  const result = generate("s", [{
    name: "t",
    inputSchema: withDefs(defs, { top: { $ref: "#/$defs/L40" } }),
  }]);
  assert.ok(result.ok);
  // L0 is a string, read in place; L1 to L40 are aliases.
  assert.equal(result.value.types.size, 40);
  assert.match(result.value.surface, /^type L1 = \{ a\?: string; b\?: string \}$/m);
});

Deno.test("recursive and mutually recursive definitions type-check; circular ones are JsonValue", async () => {
  const result = generate("s", [{
    name: "t",
    inputSchema: withDefs({
      Tree: object({ kids: { type: "array", items: { $ref: "#/$defs/Tree" } } }),
      Even: object({ next: { $ref: "#/$defs/Odd" } }),
      Odd: object({ next: { anyOf: [{ $ref: "#/$defs/Even" }, { type: "null" }] } }),
      Loop: { anyOf: [{ $ref: "#/$defs/Loop" }, { type: "string" }] },
    }, {
      tree: { $ref: "#/$defs/Tree" },
      even: { $ref: "#/$defs/Even" },
      loop: { $ref: "#/$defs/Loop" },
      root: { $ref: "#" },
    }),
  }]);
  assert.ok(result.ok);
  const { surface } = result.value;
  assert.match(surface, /^type Tree = \{ kids\?: Tree\[\] \}$/m);
  assert.match(surface, /^type Odd = \{ next\?: Even \| null \}$/m);
  assert.match(surface, /^type Loop = JsonValue$/m);
  assert.match(surface, /root\?: t_args/);
  assert.match(result.value.source, /JsonValue: it is defined by nothing but itself\./);
  assert.equal(await checkModules([{ group: "recursion", generated: result.value }]), "");
});

const text = fc.string({ unit: "binary", maxLength: 12 });
// Schemas built from JSON Schema's words, with server-chosen names and refs.
const schema: fc.Arbitrary<JsonValue> = fc.letrec<{ node: JsonValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<JsonValue>({ type: "string" }, { type: "integer" }, {}, true, { type: "null" }),
    fc.record({
      enum: fc.array(fc.oneof(text, fc.integer(), fc.constant(null)), { minLength: 1 }),
    }),
    fc.record({ const: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue> }),
    fc.record({ $ref: fc.oneof(fc.constant("#"), text.map((t) => `#/$defs/${t}`), text) }),
    fc.record({ type: fc.constant("array"), items: tie("node") }),
    fc.record({ type: fc.constant("array"), prefixItems: fc.array(tie("node"), { maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie("node"), { maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("node"), { maxLength: 3 }) }),
    fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(text, tie("node"), { maxKeys: 3 }),
      additionalProperties: fc.oneof(fc.boolean(), tie("node")),
      patternProperties: fc.dictionary(text, tie("node"), { maxKeys: 2 }),
    }, { requiredKeys: ["type"] }),
  ),
})).node;

Deno.test("generate() stays total and inside its alphabet for any schema with any definitions", () => {
  fc.assert(
    fc.property(
      fc.dictionary(text, schema, { maxKeys: 4 }),
      fc.dictionary(text, schema, { maxKeys: 4 }),
      schema,
      (defs, properties, output) => {
        const inputSchema = { type: "object", $defs: defs, properties };
        const result = generate("s", [{
          name: "t",
          inputSchema,
          outputSchema: { ...(output as JsonObject), $defs: defs },
        }]);
        assert.ok(result.ok, result.ok ? "" : result.error.message);
        const minted = new Set([...result.value.manifest.keys(), ...result.value.types.keys()]);
        assert.ok(backstop(result.value.source, minted).ok);
        for (const word of words(codeOnly(result.value.source))) {
          assert.ok(GENERATOR_WORDS.has(word) || minted.has(word), word);
        }
      },
    ),
    { numRuns: 300 },
  );
});
