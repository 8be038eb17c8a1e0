import assert from "node:assert/strict";
import fc from "fast-check";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import { generate, MAX_SURFACE_BYTES, MAX_TOOLS, sha256Hex } from "../../codegen/mod.ts";
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
    [`readFile_${sha256Hex("read_file").slice(0, 8)}`, "read_file"],
    ["roots", "roots"],
  ]);
});

Deno.test("generate() uses the cap specifier and digest it is given", () => {
  const result = generate("files", LISTINGS.files!, {
    capSpecifier: "./cap.ts",
    digest: () => "00000000",
  });
  assert.ok(result.ok);
  assert.match(result.value.source, /from "\.\/cap\.ts";\n/);
  assert.ok(result.value.manifest.has("readFile_00000000"));
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
    { name: "a_b", inputSchema: {} },
    { name: "a-b", inputSchema: {} },
  ], { digest: () => "00000000" });
  assert.ok(!result.ok);
  assert.equal(result.error.kind, "tool_name_collision");
  if (result.error.kind !== "tool_name_collision") return;
  assert.equal(result.error.first, "a_b");
  assert.equal(result.error.second, "a-b");
  assert.match(result.error.message, /tools "a_b" and "a-b" both become "aB_00000000"/);
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
