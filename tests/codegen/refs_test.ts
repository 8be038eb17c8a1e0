import assert from "node:assert/strict";
import type { JsonObject } from "../../codec/json.ts";
import { generate, plan } from "../../codegen/mod.ts";
import { canonical } from "../../codegen/_combine.ts";
import { closureKey, definitionKeys, MAX_EXACT_KEY_WORK } from "../../codegen/_refs.ts";

// `size` definitions, each naming ten others, so that every one reaches all.
function denseDefinitions(size: number, shift = 0): JsonObject {
  const defs: JsonObject = {};
  for (let i = 0; i < size; i++) {
    const properties: JsonObject = {};
    for (let j = 0; j < 10; j++) {
      properties[`p${j}`] = { $ref: `#/$defs/d${(i * 7 + j * 13 + shift) % size}` };
    }
    defs[`d${i}`] = { type: "object", properties };
  }
  return defs;
}

function denseSchema(size: number, shift = 0): JsonObject {
  return {
    type: "object",
    properties: { a: { $ref: "#/$defs/d0" } },
    $defs: denseDefinitions(size, shift),
  };
}

Deno.test("closureKey() of an ordinary definition is its pointer and everything it reaches, exactly", () => {
  const note = { type: "object", properties: { tags: { $ref: "#/$defs/Tags" } } };
  const tags = { type: "array", items: { type: "string" } };
  const root = { $defs: { Note: note, Tags: tags }, properties: { n: { $ref: "#/$defs/Note" } } };
  const key = closureKey(definitionKeys(root), "#/$defs/Note");
  assert.equal(key, `#/$defs/Note ${canonical([["#/$defs/Note", note], ["#/$defs/Tags", tags]])}`);
});

Deno.test("closureKey() is equal for one definition in two schemas, and differs when what it reaches does", () => {
  const schema = (item: string) => ({
    $defs: { Item: { properties: { v: { $ref: "#/$defs/V" } } }, V: { type: item } },
    properties: { other: { type: "string" } },
  });
  const key = (root: JsonObject) => closureKey(definitionKeys(root), "#/$defs/Item");
  assert.equal(key(schema("string")), key({ ...schema("string"), title: "Another tool" }));
  assert.notEqual(key(schema("string")), key(schema("number")));
});

Deno.test("closureKey() spends at most MAX_EXACT_KEY_WORK on one schema whose refs all reach one another", () => {
  const root = denseSchema(200);
  const keys = definitionKeys(root);
  const all = Array.from({ length: 128 }, (_, i) => closureKey(keys, `#/$defs/d${i}`));
  const exact = all.filter((key) => !/ #[0-9a-f]{64}$/.test(key));
  assert.ok(exact.length > 0 && exact.length < all.length, `${exact.length} exact keys`);
  const chars = exact.reduce((sum, key) => sum + key.length, 0);
  assert.ok(chars <= MAX_EXACT_KEY_WORK, `${chars} characters of exact keys`);
  // Past the budget a key names its schema: the same in a copy, not in a changed one.
  const again = definitionKeys(denseSchema(200));
  assert.deepEqual(all.map((_, i) => closureKey(again, `#/$defs/d${i}`)), all);
  const changed = definitionKeys({ ...denseSchema(200), title: "changed" });
  const last = all.length - 1;
  assert.notEqual(closureKey(changed, `#/$defs/d${last}`), all[last]);
});

Deno.test("generate() keeps one alias per definition that several tools repeat in a large ref graph", () => {
  const tools = (count: number) =>
    Array.from({ length: count }, (_, k) => ({ name: `t${k}`, inputSchema: denseSchema(200) }));
  const one = generate("s", tools(1));
  const three = generate("s", tools(3));
  assert.ok(one.ok && three.ok);
  assert.ok(one.value.types.size > 100, `${one.value.types.size} aliases`);
  assert.deepEqual([...three.value.types.keys()], [...one.value.types.keys()]);
});

Deno.test("generate() tells apart same-named definitions of different large ref graphs", () => {
  const tools = [0, 1].map((k) => ({ name: `t${k}`, inputSchema: denseSchema(200, k) }));
  const result = generate("s", tools);
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const names = [...result.value.types.keys()];
  assert.ok(names.some((name) => /^d0_[0-9a-f]{8}$/.test(name)), names.slice(0, 5).join());
  assert.equal(new Set(names).size, names.length);
});

Deno.test("plan() types a definition holding an array longer than a call's arguments may be", () => {
  const values = Array.from({ length: 300_000 }, (_, i) => `v${i}`);
  const planned = plan({
    type: "object",
    properties: { a: { $ref: "#/$defs/A" }, b: { $ref: "#b" } },
    $defs: {
      A: { type: "object", properties: { e: { enum: values } } },
      B: { $anchor: "b", type: "object", properties: { n: { type: "number" } } },
    },
  });
  assert.equal(planned.kind, "typed");
  assert.equal(planned.kind === "typed" && planned.definitions?.length, 2);
});
