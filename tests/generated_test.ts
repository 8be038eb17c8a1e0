import assert from "node:assert/strict";
import { ARTIFACTS } from "../scripts/generate.ts";

const root = new URL("../", import.meta.url);

for (const artifact of ARTIFACTS) {
  Deno.test(`${artifact.path} is what deno task generate makes of its sources today`, async () => {
    const committed = await Deno.readTextFile(new URL(artifact.path, root));
    const fresh = await artifact.make();
    assert.ok(committed === fresh, `${artifact.path} is stale: run deno task generate`);
  });
}
