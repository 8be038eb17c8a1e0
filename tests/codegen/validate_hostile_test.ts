import assert from "node:assert/strict";
import fc from "fast-check";
import type { JsonObject, JsonValue } from "../../codec/json.ts";
import {
  CHECK_STEPS_PER_VALUE_NODE,
  MAX_CHECK_NESTING,
  MAX_CHECKED_SCHEMA_DEPTH,
  MAX_CHECKED_SCHEMA_NODES,
  MAX_UNIQUE_ITEMS,
  MIN_CHECK_STEPS,
  validateValue,
  type ValueCheck,
  valueValidator,
} from "../../codegen/mod.ts";
import { patternCost } from "../../codegen/_regex.ts";

function verdict(value: JsonValue, schema: JsonValue): ValueCheck {
  const result = validateValue(value, schema);
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.value;
}

function nested(depth: number, leaf: JsonObject): JsonObject {
  let schema = leaf;
  for (let i = 0; i < depth; i++) schema = { properties: { a: schema } };
  return schema;
}

Deno.test("a schema nesting past MAX_CHECKED_SCHEMA_DEPTH is not checked, and says so", () => {
  const check = verdict({}, nested(MAX_CHECKED_SCHEMA_DEPTH, { type: "string" }));
  assert.equal(check.checked, "none");
  assert.ok(check.checked === "none" && /nests deeper than 128 levels/.test(check.reason));
  assert.equal(verdict({}, nested(20, { type: "string" })).checked, "all");
});

Deno.test("a schema past MAX_CHECKED_SCHEMA_NODES (a huge enum) is not checked, and says so", () => {
  const values = Array.from({ length: MAX_CHECKED_SCHEMA_NODES }, (_, i) => `v${i}`);
  const check = verdict("x", { enum: values });
  assert.ok(check.checked === "none" && /more than 50000 JSON nodes/.test(check.reason));
  const large = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
  const result = validateValue("nope", { enum: large });
  assert.ok(!result.ok);
  assert.match(result.error.message, /one of "v0", "v1", .*, … \(20000 in all\)/);
});

Deno.test("a $ref cycle that consumes no part of the value is not checked", async (t) => {
  const table: [string, JsonValue][] = [
    ["self", { $defs: { A: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" }],
    ["root", { anyOf: [{ $ref: "#" }] }],
    ["through allOf and not", {
      $defs: { A: { allOf: [{ not: { $ref: "#/$defs/B" } }] }, B: { $ref: "#/$defs/A" } },
      $ref: "#/$defs/A",
    }],
  ];
  for (const [name, schema] of table) {
    await t.step(name, () => {
      const check = verdict({ a: 1 }, schema);
      assert.ok(
        check.checked === "none" && /refers to itself/.test(check.reason),
        JSON.stringify(check),
      );
    });
  }
});

Deno.test("recursion that descends into the value is checked, to a depth its stack allows", () => {
  const schema = {
    $defs: { T: { properties: { kids: { items: { $ref: "#/$defs/T" } } }, required: ["n"] } },
    $ref: "#/$defs/T",
  };
  const tree = (levels: number, leaf: JsonObject) => {
    let value = leaf;
    for (let i = 0; i < levels; i++) value = { n: i, kids: [value] };
    return value;
  };
  assert.equal(verdict(tree(60, { n: 1 }), schema).checked, "all");
  const result = validateValue(tree(60, {}), schema);
  assert.ok(!result.ok);
  assert.equal(result.error.path, "$" + ".kids[0]".repeat(60) + ".n");
  const deep = verdict(tree(120, { n: 1 }), schema);
  assert.ok(deep.checked === "none" && /nests 242 levels deep/.test(deep.reason));
  assert.ok(MAX_CHECK_NESTING < 242 * 2);
});

Deno.test("refs that fan out exponentially stop at the step budget, and say so", () => {
  const defs: JsonObject = { L0: { type: "string" } };
  for (let i = 1; i <= 40; i++) {
    defs[`L${i}`] = { anyOf: [{ $ref: `#/$defs/L${i - 1}` }, { $ref: `#/$defs/L${i - 1}` }] };
  }
  const check = verdict(7, { $defs: defs, $ref: "#/$defs/L40" });
  assert.equal(check.checked, "none");
  assert.ok(check.checked === "none" && /steps|alternatives failed/.test(check.reason));
  assert.ok(check.steps <= MIN_CHECK_STEPS + CHECK_STEPS_PER_VALUE_NODE + 1_000);
});

Deno.test("a value that meets a recursive oneOf at every level stops at the step budget", () => {
  const schema = {
    $defs: {
      T: {
        oneOf: [
          { properties: { c: { $ref: "#/$defs/T" } } },
          { properties: { c: { $ref: "#/$defs/T" } }, required: ["z"] },
          { properties: { c: { $ref: "#/$defs/T" } }, required: ["y"] },
        ],
      },
    },
    $ref: "#/$defs/T",
  };
  let value: JsonObject = {};
  for (let i = 0; i < 25; i++) value = { c: value };
  const check = validateValue(value, schema);
  assert.ok(check.ok && check.value.checked === "none", JSON.stringify(check));
  assert.match(check.value.reason, /steps|alternatives failed/);
});

Deno.test("many alternatives over a large value cost steps in proportion, and stop at the budget", () => {
  const schema = { allOf: Array.from({ length: 2_000 }, () => ({ items: { type: "integer" } })) };
  const value = Array.from({ length: 5_000 }, (_, i) => i);
  const check = verdict(value, schema);
  assert.equal(check.checked, "none");
  assert.ok(check.steps <= MIN_CHECK_STEPS + CHECK_STEPS_PER_VALUE_NODE * 5_001 + 5_000);
  // The same value against one such alternative is checked in full.
  assert.equal(verdict(value, { items: { type: "integer" } }).checked, "all");
});

const CATASTROPHIC = [
  "(a+)+$",
  "(a|a)*$",
  "(a|aa)+$",
  "^(\\w+\\s?)*$",
  "(x+x+)+y",
  "(.*a){20}",
  "(a*)*b",
  "^(([a-z])+.)+[A-Z]([a-z])+$",
  "(a?){30}a{30}",
  "(\\d+|\\d+\\.\\d+)+!",
  "^(a|b|ab)*c$",
  "(a)\\1+x",
  "^(\\w\\d?)+$",
  "(x\\w?)+!",
  "^(a(b|b))+$",
  "^(a|a)(a|a)(a|a)(a|a)(a|a)$",
];

Deno.test("a pattern that can take exponential time is never run, and is reported", async (t) => {
  for (const pattern of CATASTROPHIC) {
    await t.step(pattern, () => {
      const value = { s: "a".repeat(40) + "!", t: "x".repeat(40) };
      const check = verdict(value, { properties: { s: { pattern }, t: { pattern } } });
      assert.equal(check.checked, "partly");
      assert.ok(
        check.checked === "partly" && check.unchecked.some((each) => each.includes("pattern")),
      );
    });
  }
});

Deno.test("a repeated group whose optional part its neighbour overlaps is never run, and is reported", () => {
  // Run, this takes seconds: each digit can end one repetition or sit in the \\d? of one.
  const pattern = "^(\\w\\d?)+$";
  assert.equal(patternCost(pattern).kind, "unsafe");
  const value = { code: "1".repeat(41) + "!" };
  const check = verdict(value, { properties: { code: { type: "string", pattern } } });
  assert.ok(check.checked === "partly", JSON.stringify(check));
  assert.ok(check.unchecked.some((each) => /pattern at \/properties\/code.*repeats/.test(each)));
});

Deno.test("a catastrophic pattern under not, if or oneOf takes its whole keyword out, never failing a good value", async (t) => {
  const table: [string, JsonValue][] = [
    ["not", { properties: { s: { not: { pattern: "(a+)+$" } } } }],
    ["if", { properties: { s: { if: { pattern: "(a|a)*$" }, then: false } } }],
    ["oneOf", { properties: { s: { oneOf: [{ pattern: "(a+)+$" }, { type: "string" }] } } }],
    ["not through a $ref", {
      $defs: { P: { pattern: "(x+x+)+y" } },
      properties: { s: { not: { $ref: "#/$defs/P" } } },
    }],
  ];
  for (const [name, schema] of table) {
    await t.step(name, () => {
      const check = verdict({ s: "a".repeat(40) }, schema);
      assert.equal(check.checked, "partly");
      assert.ok(
        check.checked === "partly" &&
          check.unchecked.some((each) => /since a part of it/.test(each)),
      );
    });
  }
});

Deno.test("a polynomial pattern is not run on a string too long for it, and says so", () => {
  const schema = { properties: { s: { pattern: "\\s+$" } } };
  assert.equal(verdict({ s: "a  " }, schema).checked, "all");
  const result = validateValue({ s: "a b" }, schema);
  assert.ok(!result.ok && result.error.rule === "pattern");
  const long = verdict({ s: " ".repeat(100_000) + "x" }, schema);
  assert.ok(long.checked === "partly" && /on a string this long/.test(long.unchecked.join()));
  // Under `not`, skipping could fail a good value: the check stops instead.
  const negative = verdict({ s: " ".repeat(100_000) + "x" }, {
    properties: { s: { not: schema.properties.s } },
  });
  assert.ok(negative.checked === "none" && /too costly/.test(negative.reason));
});

Deno.test("a patternProperties key that is not linear is left out with the additionalProperties beside it", () => {
  const schema = {
    patternProperties: { "^(a+)+$": { type: "integer" }, "^x-": { type: "string" } },
    additionalProperties: false,
  };
  const check = verdict({ ["a".repeat(30) + "!"]: "anything", "x-y": "s" }, schema);
  assert.ok(check.checked === "partly" && /patternProperties key/.test(check.unchecked.join()));
  const result = validateValue({ "x-y": 1 }, schema);
  assert.ok(!result.ok && result.error.path === '$["x-y"]');
});

Deno.test("a remote $ref is never fetched: the part it names is not checked, and says so", async () => {
  let requests = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
    requests++;
    return Response.json({ type: "string" });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/schema.json`;
    const check = verdict({ a: 1, b: "x" }, {
      properties: { a: { $ref: url }, b: { $ref: `${url}#/x` }, c: { $ref: "other.json" } },
    });
    assert.ok(check.checked === "partly");
    assert.equal(check.unchecked.length, 3);
    assert.match(check.unchecked[0] ?? "", /never fetched/);
    assert.equal(requests, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a schema whose $ids collide is not checked, and says so", () => {
  const check = verdict({}, {
    properties: { a: { $id: "https://x.example/a" }, b: { $id: "https://x.example/a" } },
  });
  assert.ok(check.checked === "none" && /\$id/.test(check.reason));
});

Deno.test("uniqueItems is left out for an array too long to compare pairwise", () => {
  const schema = { uniqueItems: true };
  const long = Array.from({ length: MAX_UNIQUE_ITEMS + 1 }, (_, i) => ({ i }));
  const check = verdict(long, schema);
  assert.ok(check.checked === "partly" && /uniqueItems/.test(check.unchecked.join()));
  const result = validateValue([{ i: 1 }, { i: 1 }], schema);
  assert.ok(!result.ok && result.error.rule === "uniqueItems");
});

Deno.test("__proto__ in a schema or a value is a key like any other", () => {
  const schema = JSON.parse(
    '{"properties": {"__proto__": {"type": "string"}}, "required": ["__proto__"]}',
  );
  const value = JSON.parse('{"__proto__": 1}');
  const result = validateValue(value, schema);
  assert.ok(!result.ok);
  assert.equal(result.error.path, "$.__proto__");
  assert.equal(result.error.rule, "type");
  assert.equal(verdict(JSON.parse('{"__proto__": "s"}'), schema).checked, "all");
});

Deno.test("schemas that are no schemas are judged, never thrown on", () => {
  for (
    const schema of ["object", 3, null, [1], { properties: { a: "string" } }, { type: 7 }, {
      required: "a",
    }]
  ) {
    const result = validateValue({ a: 1 }, schema as JsonValue);
    assert.ok(result.ok || result.error.kind === "value_invalid", JSON.stringify(schema));
  }
  assert.equal(verdict({}, true).checked, "all");
  assert.ok(!validateValue({}, false).ok);
});

Deno.test("a keyword of the wrong kind is no rule, as the surface reads it, and is said to be unchecked", async (t) => {
  const table: [string, JsonObject, JsonValue, RegExp][] = [
    [
      "required as a string",
      { required: "notarray" },
      {},
      /"required" at \/required, which is not a list of names/,
    ],
    ["required naming a number", { required: ["a", 3] }, {}, /"required" at \/required/],
    ["minimum as a string", { minimum: "5" }, 40, /"minimum" at \/minimum, which is not a number/],
    [
      "properties as a string",
      { properties: "abc" },
      { a: 1 },
      /"properties" at \/properties, which is not an object/,
    ],
    ["enum as an object", { enum: { a: 1 } }, "x", /"enum" at \/enum, which is not a list/],
    [
      "type as a number",
      { type: 7 },
      "x",
      /"type" at \/type, which is not a type or a list of types/,
    ],
    [
      "multipleOf zero",
      { multipleOf: 0 },
      3,
      /"multipleOf" at \/multipleOf, which is not a number above 0/,
    ],
  ];
  for (const [name, schema, value, said] of table) {
    await t.step(name, () => {
      const check = verdict(value, schema);
      assert.ok(check.checked === "partly", JSON.stringify(check));
      assert.ok(check.unchecked.some((part) => said.test(part)), JSON.stringify(check.unchecked));
    });
  }
  // The rules beside it still hold.
  const beside = validateValue({}, {
    type: "object",
    required: "a",
    properties: { b: { type: "string" } },
    minProperties: 1,
  });
  assert.ok(!beside.ok && beside.error.rule === "minProperties", JSON.stringify(beside));
});

const word = fc.constantFrom(
  "a",
  "b",
  "#",
  "#/$defs/a",
  "#/$defs/b",
  "http://x/y",
  "(a+)+$",
  "^a*$",
);
const anySchema: fc.Arbitrary<JsonValue> = fc.letrec<{ node: JsonValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc.record({ type: fc.constantFrom("string", "integer", "object", "array", "null", "nope") }),
    fc.record({ $ref: word }),
    fc.record({ pattern: word }),
    fc.record({
      enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }) as fc.Arbitrary<JsonValue[]>,
    }),
    fc.record({ anyOf: fc.array(tie("node"), { maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("node"), { maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("node"), { maxLength: 3 }) }),
    fc.record({ not: tie("node") }),
    fc.record({ if: tie("node"), then: tie("node"), else: tie("node") }),
    fc.record({ items: fc.oneof(tie("node"), fc.array(tie("node"), { maxLength: 2 })) }),
    fc.record({
      properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 3 }),
      patternProperties: fc.dictionary(word, tie("node"), { maxKeys: 2 }),
      additionalProperties: tie("node"),
      required: fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 2 }),
    }, { requiredKeys: [] }),
    fc.record({ $defs: fc.record({ a: tie("node"), b: tie("node") }), $ref: word }),
  ),
})).node;

Deno.test("validateValue() is total over arbitrary schemas and values", () => {
  fc.assert(
    fc.property(anySchema, fc.jsonValue({ maxDepth: 4 }), (schema, value) => {
      const result = validateValue(value as JsonValue, schema);
      if (result.ok) assert.ok(["all", "partly", "none"].includes(result.value.checked));
      else assert.equal(result.error.kind, "value_invalid");
      assert.ok(valueValidator(schema).unchecked.every((each) => typeof each === "string"));
    }),
    { numRuns: 500 },
  );
});
