import assert from "node:assert/strict";
import { eagerFunctions } from "../../scripts/_eager_functions.ts";

const BUNDLE = `// header
var limit = twice(2);
function twice(n) {
  return n * 2;
}
async function later(value) {
  return await value;
}
var Box = class {
  open() {
    return twice(1);
  }
};
export { Box, later, limit, twice };
`;

Deno.test("eagerFunctions() turns every top-level declaration into a parenthesized expression at the top", () => {
  const out = eagerFunctions(BUNDLE);
  assert.ok(out.startsWith(
    "// header\n" +
      "var twice = (function twice(n) {\n  return n * 2;\n});\n" +
      "var later = (async function later(value) {\n  return await value;\n});\n" +
      "var limit = twice(2);",
  ));
  assert.equal(out.match(/^(async )?function /gm), null);
  assert.ok(out.includes("  open() {\n    return twice(1);\n  }"));
});

Deno.test("eagerFunctions() keeps what the module does: a use above a declaration still works", async () => {
  const url = `data:text/javascript,${encodeURIComponent(eagerFunctions(BUNDLE))}`;
  const module = await import(url);
  assert.equal(module.limit, 4);
  assert.equal(new module.Box().open(), 2);
  assert.equal(await module.later(7), 7);
});
