import assert from "node:assert/strict";
import { scanImports } from "../../../runner/checker/_scan.ts";

Deno.test("scanImports() finds every module a program names", async (t) => {
  const table: [string, string, string[]][] = [
    ["static", 'import { a } from "./mcp/a.ts";', ["./mcp/a.ts"]],
    ["bare", 'import "./x.ts"', ["./x.ts"]],
    ["type only", 'import type { T } from "../t.ts";', ["../t.ts"]],
    ["default and namespace", 'import d, * as n from "npm:x";', ["npm:x"]],
    ["json attribute", 'import s from "/etc/s.json" with { type: "json" };', ["/etc/s.json"]],
    ["re-export", 'export { a } from "./b.ts"; export * from "./c.ts";', ["./b.ts", "./c.ts"]],
    ["export type from", 'export type { T } from "./t.ts";', ["./t.ts"]],
    ["dynamic", 'const m = await import("https://x.test/m.ts");', ["https://x.test/m.ts"]],
    [
      "dynamic with attributes",
      'await import("./s.json", { with: { type: "json" } });',
      ["./s.json"],
    ],
    ["template dynamic", "await import(`./t.ts`);", ["./t.ts"]],
    ["escaped", 'import "\\u002e/x.ts";', ["./x.ts"]],
    ["in a string", 'const s = "import x from \\"./no.ts\\"";', []],
    ["in a comment", '// import "./no.ts"\n/* import("./no.ts") */', []],
    ["in a template", 'const s = `import "./no.ts" ${"x"} import("./no.ts")`;', []],
    ["after a regex", 'const r = /["]/; import "./yes.ts";', ["./yes.ts"]],
    ["a division", 'const d = a / b; import "./yes.ts"; const e = c / d;', ["./yes.ts"]],
    ["import.meta", "const u = import.meta.url;", []],
    ["a method named import", 'loader.import("./no.ts");', []],
    ["export of a declaration", 'export const s = "./no.ts";', []],
    ["export default string", 'export default "./no.ts";', []],
    ["nested template", 'const s = `${`${"a"}`}`; import "./yes.ts";', ["./yes.ts"]],
  ];
  for (const [name, source, expected] of table) {
    await t.step(name, () => {
      const scan = scanImports(source);
      assert.deepEqual(scan.problems, []);
      assert.deepEqual(scan.imports.map((found) => found.specifier), expected);
    });
  }
  await t.step("positions are 1-based lines and columns", () => {
    const scan = scanImports('const a = 1;\n  import("./x.ts");');
    assert.deepEqual(scan.imports, [{ specifier: "./x.ts", line: 2, column: 10 }]);
  });
  const refused: [string, string][] = [
    ["a computed dynamic import", "const s = './x.ts'; await import(s);"],
    ["a template with a substitution", "await import(`./${name}.ts`);"],
    ["a reference directive", '/// <reference path="/etc/x.d.ts" />'],
    ["a types directive", '// @ts-types="/etc/x.d.ts"\nimport "./mcp/a.ts";'],
    ["a deno-types directive", '// @deno-types="/etc/x.d.ts"'],
    ["a jsx pragma", "/** @jsxImportSource https://x.test */"],
    ["import = require", 'import fs = require("fs");'],
  ];
  for (const [name, source] of refused) {
    await t.step(`refuses ${name}`, () => {
      assert.equal(scanImports(source).problems.length, 1);
    });
  }
});

Deno.test("scanImports() finds the imports that fooled a lexer (regex, hashbang)", async (t) => {
  const table: [string, string][] = [
    ["a regex after a parenthesis", 'if (1) /"/; import { API_TOKEN } from "/abs/config.ts"; "";'],
    ["a regex after export default", 'export default /"/; import { A } from "/abs/config.ts";'],
    ["a hashbang with a backquote", '#!`\nimport { A } from "/abs/config.ts";\n`'],
  ];
  for (const [name, source] of table) {
    await t.step(name, () => {
      assert.deepEqual(scanImports(source).imports.map((found) => found.specifier), [
        "/abs/config.ts",
      ]);
    });
  }
  await t.step("a type-level import()", () => {
    const scan = scanImports('type T = typeof import("/etc/passwd");');
    assert.deepEqual(scan.imports.map((found) => found.specifier), ["/etc/passwd"]);
  });
});
