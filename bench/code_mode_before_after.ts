// Code mode before and after the resident checker and the warm sandbox, in
// one run: the one-shot `runProgram` of an older checkout (which ran
// `deno check`, then started a sandbox for each run) against a `Runner` of
// this tree, beside a bare `deno run` of an empty module; p50 of each, with
// a 400 ms pause before each Runner run (the model writing its next program).
//
//   git worktree add --detach /tmp/before 236f19a
//   deno run -A bench/code_mode_before_after.ts /tmp/before [rounds]

import { ok } from "../codec/result.ts";
import type { RunOptions, RunReport } from "../runner/host/run.ts";
import { Runner } from "../runner/host/runner.ts";
import { median } from "./_mcp_clients.ts";

type OldRunner = { runProgram(source: string, options: RunOptions): Promise<RunReport> };

const [oldRoot, roundsText] = Deno.args;
if (oldRoot === undefined) {
  throw new TypeError("Usage: code_mode_before_after.ts <old checkout> [rounds]");
}
const rounds = Number(roundsText ?? 10);
const old = await import(new URL("runner/host/run.ts", `file://${oldRoot}/`).href) as OldRunner;
const modules = new Map([["echo", {
  segment: "echo",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { text: string }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
}]]);
const call: RunOptions["call"] = () =>
  Promise.resolve(ok({ content: [{ type: "text", text: "hi" }], isError: false }));
const program = 'import { echo } from "./mcp/echo.ts";\n' +
  'export default (await echo({ text: "hi" })).text;\n';

async function time(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function returned(report: Promise<RunReport>): Promise<void> {
  const { outcome } = await report;
  if (outcome.kind !== "returned") throw new Error(JSON.stringify(outcome));
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 400));
const empty = await Deno.makeTempFile({ suffix: ".ts" });
const runner = new Runner({ modules, call });
runner.prepare();
const rows: Record<string, number[]> = {
  "bare `deno run` of an empty module": [],
  "before: `runProgram`, type-checked (`deno check`)": [],
  "before: `runProgram`, `typeCheck: false`": [],
  "after: `Runner.run`, type-checked": [],
  "after: `Runner.run`, `typeCheck: false`": [],
};
try {
  for (let round = 0; round < rounds + 2; round++) {
    const samples = [
      await time(() =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "--no-config", "--no-lock", "--quiet", empty],
          stdout: "null",
          stderr: "null",
        }).output()
      ),
      await time(() => returned(old.runProgram(program, { modules, call }))),
      await time(() => returned(old.runProgram(program, { modules, call, typeCheck: false }))),
      await pause().then(() => time(() => returned(runner.run(program)))),
      await pause().then(() => time(() => returned(runner.run(program, { typeCheck: false })))),
    ];
    // The first two rounds warm both up.
    if (round < 2) continue;
    Object.values(rows).forEach((list, index) => list.push(samples[index] as number));
  }
} finally {
  await runner.retire();
  await Deno.remove(empty);
}
const floor = median(Object.values(rows)[0] as number[]);
const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
console.log(
  `${rounds} rounds, load ${load}\n\n| row | p50 ms | p50 / bare |\n| --- | ---: | ---: |`,
);
for (const [name, list] of Object.entries(rows)) {
  console.log(`| ${name} | ${median(list).toFixed(1)} | ${(median(list) / floor).toFixed(2)}x |`);
}
