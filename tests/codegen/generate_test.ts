import assert from "node:assert/strict";
import fc from "fast-check";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import {
  ELLIPSIS,
  generate,
  MAX_DESCRIPTION_CHARS,
  MAX_SURFACE_BYTES,
  MAX_SURFACE_DESCRIPTION_CHARS,
  MAX_TOOLS,
} from "../../codegen/mod.ts";
import { checkModules } from "./_modules.ts";

const GOLDEN = new URL("./golden/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

const LISTINGS: Record<string, ToolDescriptor[]> = {
  files: [
    {
      name: "read_file",
      title: "Read File",
      description:
        "Read the complete contents of a file as text.\nUse head or tail for part of it.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path of the file" },
          head: { type: "integer", description: "First N lines only" },
          tail: { type: "integer" },
        },
        required: ["path"],
      },
    },
    {
      name: "list",
      description: "List a directory.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string" },
          sortBy: { enum: ["name", "size"], default: "name" },
        },
        required: ["path"],
      },
    },
    { name: "roots", inputSchema: { type: "object", properties: {} } },
  ],
  tracker: [
    {
      name: "createIssue",
      description: "Open an issue. The body is Markdown.",
      inputSchema: {
        type: "object",
        properties: {
          title: { type: "string" },
          labels: { type: "array", items: { type: "string" } },
          assignee: { anyOf: [{ type: "string" }, { type: "null" }] },
          fields: { type: "object", additionalProperties: { type: "string" } },
          "due date": { type: "object", properties: { year: { type: "integer" } } },
          filter: { allOf: [{ type: "object" }], description: "Server-side filter" },
        },
        required: ["title"],
      },
    },
    {
      name: "query",
      description: "Run a raw query */ with hostile text\u202e.",
      inputSchema: { $ref: "#/$defs/Query" },
    },
  ],
};

Deno.test("generate() matches the golden source and surface", async (t) => {
  for (const [server, tools] of Object.entries(LISTINGS)) {
    await t.step(server, async () => {
      const result = generate(server, tools);
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      for (
        const [part, text] of [["source", result.value.source], ["surface", result.value.surface]]
      ) {
        const url = new URL(`${server}.${part}.txt`, GOLDEN);
        if (UPDATE) await Deno.writeTextFile(url, text!);
        assert.equal(text, await Deno.readTextFile(url), `${server}.${part}.txt differs`);
      }
    });
  }
});

Deno.test("golden modules type-check against cap.ts", async () => {
  const modules = Object.entries(LISTINGS).map(([server, tools]) => {
    const result = generate(server, tools);
    assert.ok(result.ok);
    return { group: "golden", generated: result.value };
  });
  assert.equal(await checkModules(modules), "");
});

Deno.test("generate() names the module after the server and maps identifiers to wire names", () => {
  const result = generate("files", LISTINGS.files!);
  assert.ok(result.ok);
  assert.equal(result.value.moduleName, "mcp/files.ts");
  assert.equal(result.value.segment, "files");
  assert.deepEqual([...result.value.manifest], [
    ["list", "list"],
    ["read_file", "read_file"],
    ["roots", "roots"],
  ]);
});

Deno.test("generate() uses the cap specifier and digest it is given", () => {
  const result = generate("files", [
    ...LISTINGS.files!,
    { name: "read-file", inputSchema: {} },
  ], { capSpecifier: "./cap.ts", digest: () => "00000000" });
  assert.ok(result.ok);
  assert.match(result.value.source, /from "\.\/cap\.ts";\n/);
  assert.equal(result.value.manifest.get("read_file_00000000"), "read-file");
  assert.equal(result.value.manifest.get("read_file"), "read_file");
});

Deno.test("generate() refuses a listing past MAX_TOOLS", () => {
  const tools = Array.from({ length: MAX_TOOLS + 1 }, (_, i) => ({
    name: `t${i}`,
    inputSchema: {},
  }));
  assert.ok(generate("s", tools.slice(0, MAX_TOOLS)).ok);
  const result = generate("s", tools);
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "too_many_tools");
  assert.match(result.error.message, /lists 257 tools, more than 256/);
});

Deno.test("generate() refuses a residual collision, naming both originals", () => {
  const result = generate("s", [
    { name: "a.b", inputSchema: {} },
    { name: "a-b", inputSchema: {} },
  ], { digest: () => "00000000" });
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "tool_name_collision");
  if (result.error.kind !== "tool_name_collision") return;
  assert.equal(result.error.first, "a.b");
  assert.equal(result.error.second, "a-b");
  assert.match(result.error.message, /tools "a\.b" and "a-b" both become "a_b_00000000"/);
});

Deno.test("generate() refuses a surface past MAX_SURFACE_BYTES", () => {
  const properties = Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [`parameter_${i}`, { type: "string" }]),
  );
  const tools = Array.from({ length: 60 }, (_, i) => ({
    name: `t${i}`,
    inputSchema: { type: "object", properties },
  }));
  const result = generate("s", tools);
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "surface_too_large");
  if (result.error.kind === "surface_too_large") {
    assert.ok(result.error.bytes > MAX_SURFACE_BYTES);
  }
});

Deno.test("generate() treats a bad server name or options as caller misuse", () => {
  assert.throws(() => generate("Bad Name", []), TypeError);
  assert.throws(() => generate("s", [], { capSpecifier: "" }), TypeError);
});

Deno.test("generate() of an empty listing is a valid empty module", () => {
  const result = generate("empty", []);
  assert.ok(result.ok);
  assert.match(result.value.source, /\nexport \{\};\n$/);
  assert.equal(result.value.surface, '// mcp/empty.ts (server "empty", 0 tools)\n');
});

Deno.test("generate() never breaches the backstop, whatever the server's text", () => {
  const text = fc.string({ unit: "binary", maxLength: 40 });
  const tool = fc.record({
    name: text.filter((s) => s.length > 0),
    description: text,
    inputSchema: fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(text, fc.record({ enum: fc.array(text, { minLength: 1 }) })),
    }),
  });
  fc.assert(
    fc.property(fc.array(tool, { maxLength: 6 }), (tools) => {
      const result = generate("s", tools);
      if (!result.ok) assert.equal(result.error.kind, "tool_name_collision");
    }),
    { numRuns: 200 },
  );
});

Deno.test("generate() leaves out a task-required tool, naming it with the reason", () => {
  const result = generate("s", [
    { name: "quick", inputSchema: {}, execution: { taskSupport: "optional" } },
    { name: "slow-research", inputSchema: {}, execution: { taskSupport: "required" } },
  ]);
  assert.ok(result.ok);
  assert.deepEqual([...result.value.manifest], [["quick", "quick"]]);
  assert.deepEqual([...result.value.omitted], [["slow-research", "task_required"]]);
  const line = '// Left out, not callable from a program: "slow-research" (it requires ' +
    "task-augmented calls, which the server does not offer)";
  assert.ok(result.value.surface.endsWith(`${line}\n`), result.value.surface);
  assert.ok(result.value.source.endsWith(`${line}\n`), result.value.source);
  assert.match(result.value.surface, /^\/\/ mcp\/s\.ts \(server "s", 1 tool, 1 left out\)\n/);
  assert.doesNotMatch(result.value.source, /export function slow/);
});

Deno.test("generate() types the result of a tool that declares an output schema", () => {
  const result = generate("weather", [{
    name: "forecast",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    outputSchema: {
      type: "object",
      properties: { temperature: { type: "number" }, note: { type: "string" } },
      required: ["temperature"],
    },
  }]);
  assert.ok(result.ok);
  assert.match(
    result.value.surface,
    /forecast\(args: \{ city: string \}\): Promise<ToolResult<\{ temperature: number; note\?: string \}>>/,
  );
  assert.match(result.value.source, /"temperature": number;\n {2}"note"\?: string;\n\}>> \{/);
  assert.match(
    result.value.source,
    /invoke\("weather", "forecast", args, \{ structured: true \}\)/,
  );
});

Deno.test("generate() falls back to JsonValue, with a comment, for an output schema outside the subset", () => {
  const result = generate("s", [{
    name: "odd",
    inputSchema: { type: "object", properties: {} },
    outputSchema: { $ref: "https://example.com/result.json" },
  }]);
  assert.ok(result.ok);
  assert.match(result.value.surface, /odd\(args: \{\}\): Promise<ToolResult<JsonValue>>/);
  assert.match(result.value.source, /Its structured content is typed JsonValue: the output schema/);
  assert.match(result.value.source, /Promise<ToolResult<JsonValue>>/);
});

Deno.test("generate() keeps every sentence of a description up to each cap, marking a cut", () => {
  const sentences = Array.from({ length: 400 }, (_, i) => `Sentence ${i} says one thing.`);
  const description = sentences.join("\n");
  const result = generate("s", [{ name: "t", description, inputSchema: { properties: {} } }]);
  assert.ok(result.ok);
  const line = result.value.surface.split("\n")[1] ?? "";
  const summary = line.slice(line.indexOf("  // ") + 5);
  assert.equal(Array.from(summary).length, MAX_SURFACE_DESCRIPTION_CHARS);
  assert.ok(summary.startsWith("Sentence 0 says one thing. Sentence 1 says one thing."));
  // The surface's cut says where the whole text is.
  assert.ok(summary.endsWith(`${ELLIPSIS} (the whole text: describe)`), summary.slice(-60));
  const doc = result.value.source.match(/\/\*\*\n([\s\S]*?)\n \*\//)?.[1] ?? "";
  const text = doc.split("\n").map((each) => each.replace(/^ \* ?/, "")).join(" ");
  assert.equal(Array.from(text).length, MAX_DESCRIPTION_CHARS);
  assert.ok(text.endsWith(ELLIPSIS));
  const short = generate("s", [{
    name: "t",
    description: sentences.slice(0, 3).join("\n"),
    inputSchema: {},
  }]);
  assert.ok(short.ok);
  assert.ok(short.value.surface.includes(sentences.slice(0, 3).join(" ")));
  assert.ok(!short.value.surface.includes("the whole text"));
});

Deno.test("generate() keeps a parameter's long description whole in the module", () => {
  const long = Array.from({ length: 20 }, (_, i) => `Rule ${i} of the parameter.`).join(" ");
  const result = generate("s", [{
    name: "t",
    inputSchema: { type: "object", properties: { q: { type: "string", description: long } } },
  }]);
  assert.ok(result.ok);
  const doc = result.value.source.replace(/\n\s*\* ?/g, " ");
  assert.ok(doc.includes(long), doc);
  assert.ok(!doc.includes(ELLIPSIS));
});
