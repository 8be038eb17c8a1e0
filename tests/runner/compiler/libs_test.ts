import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import { AMBIENT_GLOBALS } from "../../../runner/compiler/_ambient.ts";
import { LIB_FILES } from "../../../runner/compiler/_libs.ts";
import { runProgram } from "../../../runner/runner.ts";

Deno.test("the checker's libraries are the lib.esnext.d.ts closure, no more, no less", () => {
  const closure = new Set<string>();
  const pending = ["lib.esnext.d.ts"];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (closure.has(name)) continue;
    closure.add(name);
    const text = LIB_FILES.get(name);
    assert.ok(text !== undefined, `${name} is referenced but not carried`);
    for (const match of text.matchAll(/^\/\/\/\s*<reference lib="([^"]+)"\s*\/>/gm)) {
      pending.push(`lib.${(match[1] as string).toLowerCase()}.d.ts`);
    }
  }
  assert.deepEqual([...LIB_FILES.keys()].sort(), [...closure].sort());
});

Deno.test("every global the checker declares exists in the sandbox's program Worker", async () => {
  const report = await runProgram(
    `const names = ${JSON.stringify(AMBIENT_GLOBALS)};\n` +
      "export default names.filter((name) => !(name in globalThis));\n",
    {
      modules: new Map(),
      call: () => Promise.resolve(ok({ content: [], isError: false })),
      typeCheck: false,
    },
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: [] });
});
