// How a rejected program is answered: every import problem and every type
// error in one answer, each with its source line, naming the program's file.

import assert from "node:assert/strict";
import { generate } from "../../../codegen/generate.ts";
import { ok } from "../../../codec/result.ts";
import type { Diagnostic, RunModule, RunOptions } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";

function module(server: string, tool: string): RunModule {
  const generated = generate(server, [{
    name: tool,
    description: "A tool.",
    inputSchema: {
      type: "object",
      properties: { thought: { type: "string" }, thoughtNumber: { type: "integer" } },
      required: ["thought"],
    },
  }]);
  if (!generated.ok) throw new Error(generated.error.message);
  return generated.value;
}

const MODULES = new Map([
  ["sequential-thinking", module("sequential-thinking", "sequentialthinking")],
  ["echo", module("echo", "echo")],
]);

async function rejection(source: string, options: Partial<RunOptions> = {}): Promise<Diagnostic[]> {
  const calls: string[] = [];
  const report = await runProgram(source, {
    modules: MODULES,
    call: (_server, tool) => {
      calls.push(tool);
      return Promise.resolve(ok({ content: [], isError: false }));
    },
    ...options,
  });
  assert.equal(report.outcome.kind, "rejected", JSON.stringify(report.outcome));
  assert.deepEqual(calls, []);
  return report.outcome.kind === "rejected" ? report.outcome.diagnostics : [];
}

const MISSPELLED = [
  'import { sequentialThinking } from "./mcp/sequential_thinking.ts";',
  'import { echoText } from "./mcp/echo.ts";',
  'import fs from "node:fs";',
  'const n: number = "one";',
  "export default [sequentialThinking, echoText, fs, n];",
  "",
].join("\n");

Deno.test("a misspelled module path hides no other problem: one answer holds them all", async () => {
  const diagnostics = await rejection(MISSPELLED);
  assert.deepEqual(diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`), [
    '1:36 Cannot import "./mcp/sequential_thinking.ts": no server of this harness has that ' +
    'module (available: "./mcp/sequential-thinking.ts", "./mcp/echo.ts"); did you mean ' +
    '"./mcp/sequential-thinking.ts"? The rest of the check reads it as that module',
    '3:16 Cannot import "node:fs": a program may import only its servers\' modules ' +
    '("./mcp/sequential-thinking.ts", "./mcp/echo.ts"), "@loom/mcp/cap" and "./tools.ts"',
    '1:10 Module "./mcp/sequential_thinking.ts" has no export "sequentialThinking"; ' +
    "did you mean sequentialthinking?",
    '2:10 Module "./mcp/echo.ts" has no export "echoText"; did you mean echo?',
    "4:7 Type 'string' is not assignable to type 'number'.",
  ]);
});

Deno.test("a module named without ./ or .ts is pointed at, and checked as, the one it means", async () => {
  const diagnostics = await rejection(
    'import { echo } from "mcp/echo";\nexport default await echo({ thought: 1 });\n',
  );
  assert.match(diagnostics[0]?.message ?? "", /did you mean "\.\/mcp\/echo\.ts"\?/);
  assert.ok(diagnostics.some((d) => d.code === 2322 && d.line === 2), JSON.stringify(diagnostics));
});

Deno.test("an unchecked run is refused for its imports alone", async () => {
  const diagnostics = await rejection(MISSPELLED, { typeCheck: false });
  assert.deepEqual(diagnostics.map((d) => d.line), [1, 3]);
});

Deno.test("import problems show their source line with the specifier marked", async () => {
  const [first] = await rejection(MISSPELLED);
  assert.equal(
    first?.excerpt,
    'import { sequentialThinking } from "./mcp/sequential_thinking.ts";\n' +
      `${" ".repeat(35)}${"~".repeat(30)}`,
  );
});

Deno.test("programName names the program in every diagnostic and related place", async () => {
  const diagnostics = await rejection(
    'const o: { a: string; b: number } = { a: "x", b: "y" };\nimport "./mcp/nope.ts";\n',
    { programName: "reports/weekly.ts" },
  );
  assert.deepEqual(diagnostics.map((d) => d.file), ["reports/weekly.ts", "reports/weekly.ts"]);
  assert.deepEqual(diagnostics[1]?.related?.map((r) => `${r.file}:${r.line}:${r.column}`), [
    "reports/weekly.ts:1:23",
  ]);
  await assert.rejects(
    () => rejection("export default 1;\n", { programName: "a\nb" }),
    TypeError,
  );
});

Deno.test("programName names the program in a thrown stack's frames, not in its message", async () => {
  const report = await runProgram(
    'function fail() {\n  throw new Error("at program.ts:1:1 is my text");\n}\nfail();\n',
    {
      modules: MODULES,
      call: () => Promise.resolve(ok({ content: [], isError: false })),
      programName: "x.ts",
    },
  );
  assert.equal(report.outcome.kind, "threw", JSON.stringify(report.outcome));
  if (report.outcome.kind !== "threw") return;
  assert.equal(report.outcome.message, "at program.ts:1:1 is my text");
  const frames = report.outcome.stack.split("\n").filter((line) => /^\s+at /.test(line));
  assert.ok(frames.length >= 2, report.outcome.stack);
  assert.ok(frames.every((line) => !line.includes("program.ts")), report.outcome.stack);
  assert.ok(frames.some((line) => line.includes("x.ts:2:9")), report.outcome.stack);
});
