// The type check reads no file of the host: not through an import, a
// reference directive or a types lookup, whatever the import scan decided;
// and what it says does not depend on whether a path outside the root exists.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import { CAP_SOURCE } from "../../../_generated/sandbox_sources.ts";
import { ResidentChecker } from "../../../runner/host/checker.ts";
import { Runner, runProgram } from "../../../runner/host/runner.ts";

const SECRET = "sk-live-SECRET-4242";
const call = () => Promise.resolve(ok({ content: [], isError: false }));

/** A folder with a secret module, a declaration file and a node_modules types package. */
async function secrets(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-secret-" }));
  await Deno.writeTextFile(`${dir}/config.ts`, `export const API_TOKEN = "${SECRET}";\n`);
  await Deno.writeTextFile(`${dir}/leak.d.ts`, `declare const LEAK: "${SECRET}";\n`);
  await Deno.mkdir(`${dir}/node_modules/@types/leak`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/node_modules/@types/leak/index.d.ts`,
    `declare const LEAK_TYPES: "${SECRET}";\n`,
  );
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}

/** Each program reaches for `{dir}`; run against a real folder and a missing one. */
const REACHES: [string, string][] = [
  ["a static import", 'import { API_TOKEN } from "{dir}/config.ts";\nconst x: "a" = API_TOKEN;\n'],
  ["a type-only import", 'import type { API_TOKEN } from "{dir}/config.ts";\nexport {};\n'],
  [
    "a type-level import()",
    'type T = typeof import("{dir}/config.ts");\nconst x: "a" = null! as T["API_TOKEN"];\n',
  ],
  ["a reference path", '/// <reference path="{dir}/leak.d.ts" />\nconst x: "a" = LEAK;\n'],
  [
    "a reference types with the folder as the root",
    '/// <reference types="leak" />\nconst x: "a" = LEAK_TYPES;\nexport {};\n',
  ],
  ["an import of a types package", 'import type { X } from "leak";\nexport type Y = X;\n'],
  ["/etc/passwd", 'import passwd from "/etc/passwd";\nconst x: 1 = passwd;\n'],
  ["a file beside the root", 'import { API_TOKEN } from "../config.ts";\nexport { API_TOKEN };\n'],
];

Deno.test("the checker cannot read a file outside the build root, whatever the program names", async (t) => {
  const { dir, remove } = await secrets();
  const checker = new ResidentChecker();
  // As long as the real folder's path, so that excerpts marking it line up too.
  const missing = `${dir.slice(0, -6)}absent`;
  await assert.rejects(() => Deno.stat(missing), Deno.errors.NotFound);
  // The process's working folder holds the node_modules types package.
  const cwd = Deno.cwd();
  Deno.chdir(dir);
  try {
    for (const [name, template] of REACHES) {
      await t.step(name, async () => {
        const check = (folder: string) =>
          checker.check([
            ["program.ts", template.replaceAll("{dir}", folder)],
            ["cap.ts", CAP_SOURCE],
          ], { timeoutMs: 60_000 });
        const real = await check(dir);
        const absent = await check(missing);
        assert.ok(!JSON.stringify(real).includes(SECRET), JSON.stringify(real));
        assert.ok(!JSON.stringify(real).includes("root:"), JSON.stringify(real));
        // Nothing tells an existing path from a missing one.
        assert.equal(
          JSON.stringify(real).replaceAll(dir, "{dir}"),
          JSON.stringify(absent).replaceAll(missing, "{dir}"),
        );
      });
    }
  } finally {
    Deno.chdir(cwd);
    await checker.retire();
    await remove();
  }
});

Deno.test("a program hiding an import from a lexer gets no secret back from the run", async (t) => {
  const { dir, remove } = await secrets();
  const table: [string, string][] = [
    ["behind a regex after a parenthesis", 'if (1) /"/; import { API_TOKEN } from "{file}"; "";'],
    [
      "behind a regex after export default",
      'export default /"/; import { API_TOKEN } from "{file}";',
    ],
    ["behind a hashbang with a backquote", '#!`\nimport { API_TOKEN } from "{file}";\n`'],
  ];
  try {
    for (const [name, head] of table) {
      await t.step(name, async () => {
        const program = (file: string) =>
          `${head.replace("{file}", file)}\nconst x: "a" = API_TOKEN;\n`;
        const run = (file: string) => runProgram(program(file), { modules: new Map(), call });
        const real = await run(`${dir}/config.ts`);
        const absent = await run(`${dir}/absent.ts`);
        assert.equal(real.outcome.kind, "rejected");
        assert.ok(!JSON.stringify(real).includes(SECRET), JSON.stringify(real));
        assert.equal(
          JSON.stringify(real.outcome).replaceAll(`${dir}/config.ts`, "{file}"),
          JSON.stringify(absent.outcome).replaceAll(`${dir}/absent.ts`, "{file}"),
        );
      });
    }
  } finally {
    await remove();
  }
});

// Ten thousand members on each side: about ten seconds of compiler work here.
const SLOW = `type D = "0"|"1"|"2"|"3"|"4"|"5"|"6"|"7"|"8"|"9";
type N = \`\${D}\${D}\${D}\${D}\`;
type F<K> = K extends N ? { a: K; b: Exclude<N, K> } : never;
declare const a: F<N>;
const b: F<Exclude<N, "0000">> = a;
export {};
`;

Deno.test("a check past its deadline is stopped, reported, and its process replaced", async () => {
  const runner = new Runner({ modules: new Map(), call, warm: false });
  try {
    const slow = await runner.run(SLOW, { checkTimeoutMs: 300 });
    assert.deepEqual(slow.outcome, {
      kind: "rejected",
      diagnostics: [{
        file: "program.ts",
        line: 1,
        column: 1,
        message: "Cannot type-check the program: it ran past 300 ms",
      }],
    });
    assert.equal(runner.stats().checker.replaced, 1);
    const next = await runner.run("const n: number = 1;\nexport default n + 1;\n");
    assert.deepEqual(next.outcome, { kind: "returned", value: 2 });
  } finally {
    await runner.retire();
  }
});
