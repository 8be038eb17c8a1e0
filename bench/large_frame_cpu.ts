// Main-thread CPU of the host while a sandbox sends one large frame: a
// program passes a 15 MiB string to a tool, and the host reads, splits and
// decodes that line. Reports the main thread's CPU time (from
// /proc/self/task/<pid>/stat, Linux only, 10 ms ticks) and the longest stall
// of the host's event loop, per run, for five runs.
// Run: deno run -A bench/large_frame_cpu.ts [path/to/a/module/exporting/runProgram]
// (the optional path measures another checkout's runner, for a before/after).

import { ok } from "../codec/result.ts";

const RUNS = 5;
const SIZE = 15 * 1024 * 1024;
const target = Deno.args[0] === undefined
  ? new URL("../runner/host/runner.ts", import.meta.url).href
  : new URL(Deno.args[0], `file://${Deno.cwd()}/`).href;
const { runProgram } = await import(target) as typeof import("../runner/host/runner.ts");

const ticksPerSecond = 100;

function mainThreadCpuMs(): number {
  const stat = Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) * 1000 / ticksPerSecond;
}

const modules = new Map([["echo", {
  segment: "echo",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { text: string }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
}]]);
const program = `import { echo } from "./mcp/echo.ts";\n` +
  `export default (await echo({ text: "x".repeat(${SIZE}) })).text;\n`;

for (let run = 0; run < RUNS; run++) {
  let stall = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const before = mainThreadCpuMs();
  const started = performance.now();
  const report = await runProgram(program, {
    modules,
    typeCheck: false,
    call: () => Promise.resolve(ok({ content: [{ type: "text", text: "ok" }], isError: false })),
  });
  const wall = performance.now() - started;
  const cpu = mainThreadCpuMs() - before;
  clearInterval(probe);
  console.log(
    `run ${run + 1}: ${report.outcome.kind}, main-thread CPU ${cpu} ms, ` +
      `longest event-loop stall ${stall.toFixed(0)} ms, wall ${wall.toFixed(0)} ms`,
  );
}
