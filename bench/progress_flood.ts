// What a flood of progress costs the harness's memory: one call to a fixture
// server (tests/fixtures/progress_flood.ts) that sends N progress
// notifications (1,000,000 unless given) before its answer, with onProgress
// counting the reports it hears. Prints the process's resident memory (the
// main thread and the client's worker together) before the call, at its
// peak while the call runs, and after it, and how many reports crossed.
//
//   deno run -A bench/progress_flood.ts [count] [--reset]
//
// With --reset the call also asks that progress reset its deadline.

import { Client } from "../client/client.ts";

const reset = Deno.args.includes("--reset");
const count = Number(Deno.args.find((arg) => !arg.startsWith("--")) ?? 1_000_000);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const client = new Client({
  name: "flood",
  command: Deno.execPath(),
  args: [
    "run",
    "--quiet",
    "--no-lock",
    new URL("../tests/fixtures/progress_flood.ts", import.meta.url).pathname,
  ],
  env: {},
  inheritEnv: ["DENO_DIR"],
  stderr: "tail",
  callTimeoutMs: 600_000,
});
const started = await client.connect();
if (!started.ok) throw new Error(`Cannot start the fixture: ${started.error.message}`);
// A first small call, so that what it costs to warm up is in the baseline.
await client.callTool("flood", { count: 1_000 }, { onProgress: () => {} });

const before = Deno.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 20);
let reports = 0;
const startedAt = performance.now();
const result = await client.callTool("flood", { count }, {
  onProgress: () => reports++,
  resetTimeoutOnProgress: reset,
});
const elapsed = performance.now() - startedAt;
clearInterval(sampler);
const after = Deno.memoryUsage().rss;
peak = Math.max(peak, after);
await client.shutdown();

console.log(`progress notifications sent: ${count}, call ${result.ok ? "answered" : "failed"}`);
console.log(`reports heard by onProgress: ${reports}`);
console.log(`rss before: ${mib(before)}`);
console.log(`rss peak:   ${mib(peak)} (+${mib(peak - before)})`);
console.log(`rss after:  ${mib(after)} (+${mib(after - before)})`);
console.log(`call took: ${(elapsed / 1000).toFixed(1)} s`);
