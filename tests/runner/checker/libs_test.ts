import assert from "node:assert/strict";
import { LIB_FILES } from "../../../runner/checker/_libs.ts";
import { WORLD_ROOTS } from "../../../runner/checker/_world.ts";

Deno.test("the checker's libraries are the closure of the world's roots, no more, no less", () => {
  const closure = new Set<string>();
  const pending = [...WORLD_ROOTS];
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
