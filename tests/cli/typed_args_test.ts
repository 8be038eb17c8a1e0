import assert from "node:assert/strict";
import { callArguments, strayKeys } from "../../cli/_call.ts";
import type { JsonObject, JsonValue } from "../../codec/json.ts";
import { cli, fixture } from "./_cli.ts";

const SCHEMA = {
  type: "object",
  properties: {
    message: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    flag: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    id: { anyOf: [{ type: "string" }, { type: "number" }] },
    maybe: { type: ["string", "null"] },
    mode: { enum: ["fast", "slow"] },
    note: { $ref: "#/$defs/Note" },
  },
  $defs: { Note: { type: "string" } },
};

Deno.test("callArguments() types key=value from the tool's input schema", async (t) => {
  const cases: [string, string, unknown][] = [
    ["a string property keeps digits as text", "message=123", "123"],
    ["a string property keeps true as text", "message=true", "true"],
    ["a string property takes a JSON string's text", 'message="quoted"', "quoted"],
    ["an integer property takes the number", "count=123", 123],
    ["a number property takes the number", "ratio=0.5", 0.5],
    ["a boolean property takes the boolean", "flag=false", false],
    ["an array property takes the JSON array", 'tags=["a","b"]', ["a", "b"]],
    ["a union with number takes the number", "id=7", 7],
    ["a union with string takes other text as text", "id=abc", "abc"],
    ["a nullable string takes null", "maybe=null", null],
    ["a nullable string keeps other text", "maybe=123", "123"],
    ["an enum of strings keeps the text", "mode=fast", "fast"],
    ["a local $ref to a string keeps digits as text", "note=42", "42"],
    ["an undescribed key is JSON when it parses", "other=42", 42],
    ["an integer property given text passes the text on", "count=many", "many"],
  ];
  for (const [name, arg, expected] of cases) {
    await t.step(name, () => {
      const typed = callArguments([arg], SCHEMA);
      assert.ok(typed.ok);
      assert.deepEqual(Object.values(typed.value)[0], expected);
    });
  }
});

Deno.test("call key=value sends a string property's digits as a string, a number property's as a number", async () => {
  const cli = new URL("../../cli/main.ts", import.meta.url).pathname;
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const fixture = new URL("../fixtures/typeof_args.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      "--config",
      config,
      cli,
      "--stdio",
      `${Deno.execPath()} run --quiet --no-lock ${fixture}`,
      "--name",
      "kinds",
      "call",
      "kinds",
      "kinds",
      "text=123",
      "n=123",
    ],
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.match(stdout, /\{"text":"string","n":"number"\}/);
});

Deno.test("strayKeys() names the keys a schema has no property for, and only those", async (t) => {
  const cases: [string, JsonObject, unknown, RegExp | undefined][] = [
    [
      "a misspelt key, with the name it is close to",
      { messge: "hi" },
      SCHEMA,
      /"messge" \(did you mean "message"\?\)/,
    ],
    ["every key described", { message: "hi", count: 1 }, SCHEMA, undefined],
    [
      "a schema that takes no arguments",
      { x: 1 },
      { type: "object", properties: {} },
      /it takes no arguments/,
    ],
    ["a schema that lets other keys in", { x: 1 }, {
      type: "object",
      properties: {},
      additionalProperties: true,
    }, undefined],
    ["a schema with patternProperties", { x: 1 }, {
      type: "object",
      properties: {},
      patternProperties: { "^x": {} },
    }, undefined],
    ["a schema with no properties at all", { x: 1 }, { type: "object" }, undefined],
    [
      "a short key gets no guess",
      { c: 1 },
      { type: "object", properties: { a: {}, b: {} } },
      /no parameter "c"; its parameters: a, b;/,
    ],
  ];
  for (const [name, args, schema, expected] of cases) {
    await t.step(name, () => {
      const said = strayKeys(args, schema as JsonValue);
      if (expected === undefined) assert.equal(said, undefined);
      else assert.match(said?.("t") ?? "", expected);
    });
  }
});

Deno.test("call warns of a key=value its tool's schema has no parameter for, and still calls", async () => {
  const run = await cli(Deno.cwd(), [
    "--stdio",
    fixture("echo_server.ts"),
    "--name",
    "echo",
    "call",
    "echo",
    "echo",
    "text=hi",
    "txet=typo",
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "hi");
  assert.match(
    run.stderr,
    /^warning: tool "echo" has no parameter "txet" \(did you mean "text"\?\); its parameters: text;/m,
  );
});
