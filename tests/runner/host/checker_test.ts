import assert from "node:assert/strict";
import { generate } from "../../../codegen/generate.ts";
import { ok } from "../../../codec/result.ts";
import { CAP_SOURCE } from "../../../_generated/sandbox_sources.ts";
import { ResidentChecker } from "../../../runner/host/checker.ts";
import type { Diagnostic, RunModule, RunOutcome } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";
import { denoCheck } from "./_deno_check.ts";

const generated = generate("echo", [{
  name: "echo",
  description: "Echoes its text.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" }, times: { type: "integer" } },
    required: ["text"],
  },
}]);
if (!generated.ok) throw new Error(generated.error.message);
const ECHO: RunModule = generated.value;
const ECHO_FN = [...generated.value.manifest.keys()][0] as string;
const MODULES = new Map([["echo", ECHO]]);

function files(program: string): [string, string][] {
  return [["program.ts", program], ["cap.ts", CAP_SOURCE], ["mcp/echo.ts", ECHO.source]];
}

const VOUCHED = ["cap.ts", "mcp/echo.ts"];

async function rejection(program: string): Promise<Diagnostic[]> {
  const report = await runProgram(program, {
    modules: MODULES,
    call: () => Promise.resolve(ok({ content: [], isError: false })),
  });
  const outcome: RunOutcome = report.outcome;
  assert.equal(outcome.kind, "rejected", JSON.stringify(outcome));
  return outcome.kind === "rejected" ? outcome.diagnostics : [];
}

Deno.test("the resident checker reports what deno check reports, at the same places", async (t) => {
  const table: [string, string][] = [
    ["a string for a number", `const n: number = "x";\nexport default n;\n`],
    [
      "a wrong argument to a tool",
      `import { ${ECHO_FN} } from "./mcp/echo.ts";\nawait ${ECHO_FN}({ text: 1 });\n`,
    ],
    [
      "a missing required argument",
      `import { ${ECHO_FN} } from "./mcp/echo.ts";\nawait ${ECHO_FN}({ times: 2 });\n`,
    ],
    [
      "a misspelled result field",
      `import { ${ECHO_FN} } from "./mcp/echo.ts";\n` +
      `const r = await ${ECHO_FN}({ text: "a" });\nexport default r.txt;\n`,
    ],
    ["an implicit any", "export function f(x) {\n  return x;\n}\n"],
    [
      "two errors in order",
      `const a: string = 1;\nconst b: boolean = "no";\nexport default [a, b];\n`,
    ],
    [
      "an expected type that comes from a property, with its related place",
      `const o: { a: string; b: number } = { a: "x", b: "y" };\nexport default o;\n`,
    ],
    [
      "a tool argument's expected type, with its related place in the module",
      `import { ${ECHO_FN} } from "./mcp/echo.ts";\nawait ${ECHO_FN}({ text: "a", times: "2" });\n`,
    ],
    ["a line indented with tabs", `if (true) {\n\t\tconst n: number = "x";\n\t\tvoid n;\n}\n`],
  ];
  const checker = new ResidentChecker();
  try {
    for (const [name, program] of table) {
      await t.step(name, async () => {
        const expected = await denoCheck(program, new Map([["echo", ECHO.source]]));
        assert.ok(expected.length > 0, "deno check found nothing");
        const checked = await checker.check(files(program), { timeoutMs: 60_000 });
        assert.deepEqual(checked, { kind: "failed", diagnostics: expected });
        // As the runner asks: the same diagnostics with its own files vouched for.
        const vouched = await checker.check(files(program), {
          timeoutMs: 60_000,
          vouched: VOUCHED,
        });
        assert.deepEqual(vouched, { kind: "failed", diagnostics: expected });
        if (name.includes("related")) assert.ok(expected.some((d) => d.related !== undefined));
      });
    }
  } finally {
    await checker.retire();
  }
});

Deno.test("a vouched module's own errors go unchecked, and are found when it is not vouched", async () => {
  const program = `import { ${ECHO_FN} } from "./mcp/echo.ts";\nawait ${ECHO_FN}({ text: "a" });\n`;
  const input = files(program).map(([path, text]): [string, string] =>
    path === "mcp/echo.ts" ? [path, `${text}export const wrong: number = "a";\n`] : [path, text]
  );
  const checker = new ResidentChecker();
  try {
    assert.deepEqual(await checker.check(input, { timeoutMs: 60_000, vouched: VOUCHED }), {
      kind: "passed",
    });
    const plain = await checker.check(input, { timeoutMs: 60_000 });
    assert.equal(plain.kind, "failed");
    if (plain.kind === "failed") {
      assert.deepEqual(plain.diagnostics.map((d) => [d.file, d.code]), [["mcp/echo.ts", 2322]]);
    }
  } finally {
    await checker.retire();
  }
});

Deno.test("runProgram() shows diagnostics relative to the program, never a host path", async () => {
  const diagnostics = await rejection(
    `import { ${ECHO_FN} } from "./mcp/echo.ts";\nawait ${ECHO_FN}({ text: "a" });\n` +
      `const n: number = "x";\n`,
  );
  assert.deepEqual(diagnostics.map((d) => `${d.file}:${d.line}:${d.column}`), ["program.ts:3:7"]);
  const text = JSON.stringify(diagnostics);
  assert.ok(!text.includes("/tmp") && !text.includes("file:") && !text.includes("/sandbox/"));
});

Deno.test("the sandbox's world has no Deno: using it is a type error that says why", async () => {
  const diagnostics = await rejection(
    'const text = await Deno.readTextFile("/etc/passwd");\nexport default text;\n',
  );
  assert.deepEqual(diagnostics.map((d) => [d.line, d.column, d.code, d.message]), [
    [
      1,
      20,
      2304,
      "Cannot find name 'Deno': a program runs without the Deno namespace; files, the network, " +
      "the environment and commands are reached through a server's tool",
    ],
  ]);
});

Deno.test("the sandbox's globals type-check", async () => {
  const report = await runProgram(
    "const t = setTimeout(() => {}, 1);\nclearTimeout(t);\n" +
      "const copy = structuredClone({ a: [1] });\n" +
      'const bytes = new TextEncoder().encode("hé");\n' +
      'const url = new URL("https://example.com/a?b=1");\n' +
      'console.log(new TextDecoder().decode(bytes), url.searchParams.get("b"));\n' +
      "queueMicrotask(() => {});\n" +
      "export default [copy.a[0], bytes.length, btoa(atob('aGk=')), typeof crypto.randomUUID()];\n",
    { modules: MODULES, call: () => Promise.resolve(ok({ content: [], isError: false })) },
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: [1, 3, "aGk=", "string"] });
});
