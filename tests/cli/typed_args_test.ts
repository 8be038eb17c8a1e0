import assert from "node:assert/strict";
import { callArguments } from "../../cli/_call.ts";

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
