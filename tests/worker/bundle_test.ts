import assert from "node:assert/strict";
import { bundleWorker } from "./update_worker_bundle.ts";

Deno.test("worker/_bundle.js is the bundle of worker/main.ts and its imports as they are", async () => {
  const committed = await Deno.readTextFile(new URL("../../worker/_bundle.js", import.meta.url));
  const fresh = await bundleWorker();
  assert.ok(
    committed === fresh,
    "worker/_bundle.js is stale: run deno run -A tests/worker/update_worker_bundle.ts",
  );
});
