import assert from "node:assert/strict";
import { formatDiagnostics } from "../../../runner/host/diagnostics.ts";
import type { Diagnostic } from "../../../runner/host/run.ts";

const WITH_RELATED: Diagnostic = {
  file: "program.ts",
  line: 1,
  column: 28,
  message: "Type 'string' is not assignable to type 'number'.",
  code: 2322,
  excerpt: 'const a: { b: number } = { b: "y" };\n                           ^',
  related: [{
    file: "program.ts",
    line: 1,
    column: 12,
    message:
      "The expected type comes from property 'b' which is declared here on type '{ b: number; }'",
    excerpt: 'const a: { b: number } = { b: "y" };\n           ^',
  }],
};

Deno.test("formatDiagnostics() shows the place, code, message, source line and related places", () => {
  assert.equal(
    formatDiagnostics([WITH_RELATED, { file: "program.ts", line: 2, column: 1, message: "Own" }]),
    [
      "program.ts:1:28 - TS2322: Type 'string' is not assignable to type 'number'.",
      '    const a: { b: number } = { b: "y" };',
      "                               ^",
      "  related: program.ts:1:12: The expected type comes from property 'b' which is declared " +
      "here on type '{ b: number; }'",
      '    const a: { b: number } = { b: "y" };',
      "               ^",
      "program.ts:2:1 - Own",
    ].join("\n"),
  );
});

Deno.test("formatDiagnostics() wraps a long message at the width and never cuts it", () => {
  const words = Array.from({ length: 200 }, (_, index) => `word${index}`);
  const text = formatDiagnostics([{
    file: "program.ts",
    line: 1,
    column: 1,
    message: `${words.join(" ")} ${"x".repeat(150)}`,
  }], { width: 60 });
  const lines = text.split("\n");
  assert.ok(lines.length > 10);
  assert.ok(lines.every((line) => line.length <= 60 || !line.trim().includes(" ")));
  assert.ok(lines.slice(1).every((line) => line.startsWith("  ") && line[2] !== " "));
  assert.equal(
    text.replace(/\n {2}/g, " "),
    `program.ts:1:1 - ${words.join(" ")} ${"x".repeat(150)}`,
  );
});

Deno.test("formatDiagnostics() refuses a width too narrow to read", () => {
  assert.throws(() => formatDiagnostics([], { width: 5 }), RangeError);
});
