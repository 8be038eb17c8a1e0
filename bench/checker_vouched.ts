// The resident checker with the runner's files vouched for (read only for
// what a program takes from them) against the same checker checking every
// file in full, alternating, each round in a fresh checker process: the
// check of a program importing all twenty listing modules (what
// `Runner.prepare` sends), then three programs each importing three modules
// not checked together before, then one of them again, and the checker
// process's resident memory 2 s after the last.
//
//   deno run -A bench/checker_vouched.ts [rounds]     (default 5)
//
// The modules are generated from the listings of tests/fixtures/_listings.ts
// (twenty servers, 584 tools), as a harness of them would.

import { CAP_SOURCE, TOOLS_SOURCE } from "../_generated/sandbox_sources.ts";
import { generate } from "../codegen/generate.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { ResidentChecker } from "../runner/host/checker.ts";
import { vouchedOf } from "../runner/host/_course.ts";
import { groupTools, LISTING_GROUPS } from "../tests/fixtures/_listings.ts";
import { median, processRssMib } from "./_mcp_clients.ts";

const ROUNDS = Number(Deno.args[0] ?? 5);

const modules = LISTING_GROUPS.map((group): [string, string] => {
  const generated = generate(group.name, groupTools(group) as ToolDescriptor[]);
  if (!generated.ok) throw new Error(generated.error.message);
  return [generated.value.moduleName, generated.value.source];
});

function files(program: string, imported: [string, string][]): [string, string][] {
  return [["program.ts", program], ["cap.ts", CAP_SOURCE], ["tools.ts", TOOLS_SOURCE], ...imported];
}

function importing(imported: [string, string][]): string {
  return imported.map(([path], index) => `import * as m${index} from "./${path}";\n`).join("") +
    `export default [${imported.map((_, index) => `m${index}`).join(", ")}].length;\n`;
}

const WORLDS = [modules.slice(0, 3), modules.slice(3, 6), modules.slice(6, 9), modules.slice(0, 3)];
const STEPS = ["all 20 (prepare)", "3 of them", "3 others", "3 more others", "the first 3 again"];

/** One round in a fresh checker: each step's time in ms, then the process's MiB. */
async function round(vouch: boolean): Promise<number[]> {
  const checker = new ResidentChecker();
  try {
    checker.start();
    await checker.scan("export default 1;\n", { timeoutMs: 60_000 });
    const figures: number[] = [];
    for (const imported of [modules, ...WORLDS]) {
      const input = files(importing(imported), imported);
      const vouched = vouch ? vouchedOf(input) : undefined;
      const started = performance.now();
      const outcome = await checker.check(input, { timeoutMs: 120_000, vouched });
      figures.push(performance.now() - started);
      if (outcome.kind !== "passed") throw new Error(JSON.stringify(outcome).slice(0, 400));
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    figures.push(processRssMib(checker.stats().pid));
    return figures;
  } finally {
    await checker.retire();
  }
}

const samples: Record<"vouched" | "full", number[][]> = { vouched: [], full: [] };
for (let i = 0; i < ROUNDS; i++) {
  for (const vouch of i % 2 === 0 ? [true, false] : [false, true]) {
    samples[vouch ? "vouched" : "full"].push(await round(vouch));
  }
}
const column = (rows: number[][], index: number) => median(rows.map((row) => row[index] ?? 0));
console.log(
  `Deno ${Deno.version.deno}, load ${Deno.loadavg().join(" ")}, ${ROUNDS} rounds, p50 of each`,
);
console.log(
  "\n| check of a program importing | vouched, ms | in full, ms |\n| --- | ---: | ---: |",
);
STEPS.forEach((step, index) => {
  console.log(
    `| ${step} | ${column(samples.vouched, index).toFixed(1)} | ${
      column(samples.full, index).toFixed(1)
    } |`,
  );
});
console.log(
  `| **the checker process, MiB, 2 s after** | ${
    column(samples.vouched, STEPS.length).toFixed(1)
  } | ${column(samples.full, STEPS.length).toFixed(1)} |`,
);
