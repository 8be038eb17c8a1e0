// The compiler of the checker's process reuses what it can between checks
// (parsed files, the last program's structure, the verdicts of unchanged
// dependencies) and never what changed: each check below follows another,
// and its answer is the one a fresh compiler gives.

import assert from "node:assert/strict";
import { ClosedWorldCompiler } from "../../../runner/checker/_compiler.ts";
import { CAP_SOURCE } from "../../../_generated/sandbox_sources.ts";

const ECHO = 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
  "export function echo(args: { text: string }): Promise<ToolResult> {\n" +
  '  return invoke("echo", "echo", args);\n}\n';

type Files = [string, string][];

function files(program: string, more: Files = [["mcp/echo.ts", ECHO]]): Files {
  return [["program.ts", program], ["cap.ts", CAP_SOURCE], ...more];
}

/** The messages of a check, and of the same check by a compiler that saw nothing before. */
function both(
  compiler: ClosedWorldCompiler,
  input: Files,
  aliases: [string, string][] = [],
): [string[], string[]] {
  const messages = (c: ClosedWorldCompiler) =>
    c.check(input, aliases).map((d) => `${d.file}:${d.line} ${d.message}`);
  return [messages(compiler), messages(new ClosedWorldCompiler())];
}

Deno.test("a check after others answers as a fresh compiler does", async (t) => {
  const compiler = new ClosedWorldCompiler();
  const steps: [string, Files][] = [
    [
      "a program that passes",
      files('import { echo } from "./mcp/echo.ts";\nawait echo({ text: "a" });\n'),
    ],
    [
      "a program with a type error",
      files('import { echo } from "./mcp/echo.ts";\nawait echo({ text: 1 });\n'),
    ],
    ["a program importing nothing", files("export default 1;\n")],
    [
      "a module whose text changed",
      files('import { echo } from "./mcp/echo.ts";\nawait echo({ text: "a" });\n', [
        ["mcp/echo.ts", ECHO.replace("text: string", "words: string[]")],
      ]),
    ],
    [
      "the module as it was",
      files('import { echo } from "./mcp/echo.ts";\nawait echo({ text: "a" });\n'),
    ],
  ];
  for (const [name, input] of steps) {
    await t.step(name, () => {
      const [seen, fresh] = both(compiler, input);
      assert.deepEqual(seen, fresh);
      assert.equal(seen.length > 0, /type error|changed/.test(name), seen.join("\n"));
    });
  }
});

Deno.test("the same program checked with other aliases resolves as they say", () => {
  const compiler = new ClosedWorldCompiler();
  const program = files('import { echo } from "./mcp/ech.ts";\nawait echo({ text: "a" });\n');
  const [aliased, aliasedFresh] = both(compiler, program, [["./mcp/ech.ts", "mcp/echo.ts"]]);
  assert.deepEqual(aliased, aliasedFresh);
  assert.deepEqual(aliased, []);
  const [plain, plainFresh] = both(compiler, program);
  assert.deepEqual(plain, plainFresh);
  assert.match(plain.join("\n"), /Cannot find module '\.\/mcp\/ech\.ts'/);
});

Deno.test("a program that augments a global leaves nothing to the next check", () => {
  const compiler = new ClosedWorldCompiler();
  const first = files(
    "declare global { interface Array<T> { extra: number } }\n" +
      "export const n: number = [].extra;\n",
  );
  assert.deepEqual(both(compiler, first)[0], []);
  const [seen, fresh] = both(compiler, files("export const n: number = [].extra;\n"));
  assert.deepEqual(seen, fresh);
  assert.match(seen.join("\n"), /Property 'extra' does not exist/);
});

Deno.test("a dependency that imports the program is checked again when the program changes", () => {
  const compiler = new ClosedWorldCompiler();
  const uses: Files = [[
    "mcp/echo.ts",
    'import { x } from "../program.ts";\nexport const y: string = x;\n',
  ]];
  const program = (x: string) =>
    files(`export const x = ${x};\nimport { y } from "./mcp/echo.ts";\nvoid y;\n`, uses);
  assert.deepEqual(both(compiler, program('"a"'))[0], []);
  const [seen, fresh] = both(compiler, program("1"));
  assert.deepEqual(seen, fresh);
  assert.match(seen.join("\n"), /mcp\/echo\.ts:2 Type 'number' is not assignable to type 'string'/);
});

Deno.test("a vouched dependency is read for what the program takes, and checked in full only when the program reaches out", () => {
  const compiler = new ClosedWorldCompiler();
  // A module with an error of its own: what the runner never sends, so that
  // whether it was checked shows.
  const broken: Files = [[
    "mcp/echo.ts",
    ECHO + 'export const wrong: number = "a";\n',
  ]];
  const calls = (text: string) =>
    files(`import { echo } from "./mcp/echo.ts";\nawait echo({ text: ${text} });\n`, broken);
  const vouched = ["cap.ts", "mcp/echo.ts"];
  const messages = (input: Files, paths: string[]) =>
    compiler.check(input, [], paths).map((d) => `${d.file}:${d.line} ${d.message}`);

  assert.deepEqual(messages(calls('"a"'), vouched), []);
  assert.match(messages(calls('"a"'), []).join("\n"), /mcp\/echo\.ts:5 Type 'string'/);
  // The program's own errors against the module's types are still found.
  const typed = messages(calls("1"), vouched);
  assert.equal(typed.length, 1, typed.join("\n"));
  assert.match(typed[0] as string, /^program\.ts:2 Type 'number' is not assignable/);
  // A program that augments a global can break its dependencies: all are checked.
  const reaching = files(
    "declare global { interface Array<T> { extra: number } }\n" +
      'import { echo } from "./mcp/echo.ts";\nawait echo({ text: "a" });\n',
    broken,
  );
  assert.match(messages(reaching, vouched).join("\n"), /mcp\/echo\.ts:5 Type 'string'/);
  assert.deepEqual(messages(calls('"a"'), vouched), []);
});
