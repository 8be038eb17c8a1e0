// Code mode's cost per program, side by side in one run: a bare `deno run`
// of an empty module (the floor), then, through one booted harness, a
// type-checked `harness.run`, an unchecked one, and the type check alone,
// interleaved round by round. A trivial program makes one call to the echo
// fixture; a second set of rows runs a program that also imports the four
// official servers' modules. Then the first run after boot, in fresh
// processes, with and without `prepareRunner`. Prints p50 and p90 in ms,
// each p50 as a multiple of the bare run's, the harness's resident memory,
// and the CPU time per run of the harness and of the sandboxes.
//
//   deno run -A bench/code_mode_bench.ts            the full run (about two minutes)
//   deno run -A bench/code_mode_bench.ts --quick    a few rounds of every row
//   deno run -A bench/code_mode_bench.ts --no-official   without the official servers
//   deno run -A bench/code_mode_bench.ts --pause-ms 0    runs back to back (default 400)
//
// `--first <prepare|lazy> <official|echo>` is the child mode of the first-run rows.

import process from "node:process";
import { boot } from "../harness/harness.ts";
import type { ServerSpec } from "../settings/mod.ts";
import { ResidentChecker } from "../runner/host/checker.ts";
import { CAP_SOURCE } from "../_generated/sandbox_sources.ts";
import { localize, makeScratch, tomlCatalogSpecs } from "../tests/interop/_servers.ts";
import { median, quantile } from "./_mcp_clients.ts";

const SELF = new URL(import.meta.url).pathname;
const QUICK = Deno.args.includes("--quick");
const ROUNDS = QUICK ? 5 : 30;
const WARMUP = QUICK ? 2 : 5;
const FIRST_RUNS = QUICK ? 2 : 5;
const OFFICIAL = !Deno.args.includes("--no-official");
/**
 * The pause before each timed run, standing for the model writing its next
 * program (seconds, in a real agent): long enough for the sandbox started
 * ahead to have booted. `--pause-ms 0` measures runs back to back.
 */
const PAUSE_MS = Deno.args.includes("--pause-ms")
  ? Number(Deno.args[Deno.args.indexOf("--pause-ms") + 1])
  : 400;

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}

function echoSpec(): ServerSpec {
  return {
    name: "echo",
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-lock",
      new URL("../tests/fixtures/echo_server.ts", import.meta.url).pathname,
    ],
    env: {},
    inheritEnv: ["DENO_DIR"],
    stderr: "tail",
  };
}

async function specs(
  official: boolean,
): Promise<{ specs: ServerSpec[]; cleanup: () => Promise<void> }> {
  if (!official) return { specs: [echoSpec()], cleanup: () => Promise.resolve() };
  const scratch = await makeScratch();
  return {
    specs: [echoSpec(), ...localize(tomlCatalogSpecs(), scratch)],
    cleanup: () => Deno.remove(scratch.root, { recursive: true }),
  };
}

/** The trivial program: one call to echo; with `official`, it imports the four modules too. */
function program(official: boolean): string {
  const lines = ['import { echo } from "./mcp/echo.ts";'];
  if (official) {
    lines.push(
      'import * as everything from "./mcp/everything.ts";',
      'import * as filesystem from "./mcp/filesystem.ts";',
      'import * as memory from "./mcp/memory.ts";',
      'import * as thinking from "./mcp/sequential-thinking.ts";',
      "void [everything, filesystem, memory, thinking];",
    );
  }
  lines.push('export default (await echo({ text: "hi" })).text;');
  return lines.join("\n") + "\n";
}

async function bare(empty: string): Promise<number> {
  const started = performance.now();
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--no-lock", "--quiet", empty],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  if (!status.success) throw new Error("the bare deno run failed");
  return performance.now() - started;
}

/** CPU time (user + system, ms) of this process, and of its reaped children. */
function cpu(): { self: number; children: number } {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  // utime, stime, cutime, cstime are fields 14-17 of the line: 11-14 after the name.
  const tick = 10;
  return {
    self: ((fields[11] ?? 0) + (fields[12] ?? 0)) * tick,
    children: ((fields[13] ?? 0) + (fields[14] ?? 0)) * tick,
  };
}

/** The CPU time a process has spent, in ms, from `/proc`; 0 when it cannot be read. */
function processCpu(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
    return ((fields[11] ?? 0) + (fields[12] ?? 0)) * 10;
  } catch {
    return 0;
  }
}

function row(name: string, samples: number[], floor: number): string {
  const p50 = median(samples);
  const ratio = Number.isFinite(floor) ? `${(p50 / floor).toFixed(2)}x` : "";
  return `| ${name} | ${p50.toFixed(1)} | ${quantile(samples, 0.9).toFixed(1)} | ${ratio} |`;
}

async function steady(official: boolean, empty: string): Promise<string[]> {
  const { specs: list, cleanup } = await specs(official);
  const harness = await boot(list, { retirementTimeoutMs: 10_000 });
  const out: string[] = [];
  try {
    const failed = [...harness.reports.values()].filter((report) => report.state === "failed");
    if (failed.length > 0) throw new Error(`boot failed: ${failed.map((f) => f.name).join(", ")}`);
    const source = program(official);
    const rssBoot = Deno.memoryUsage().rss;
    const checker = new ResidentChecker();
    const files: [string, string][] = [["program.ts", source], ["cap.ts", CAP_SOURCE]];
    for (const generated of harness.modules.values()) {
      files.push([generated.moduleName, generated.source]);
    }
    const samples = {
      bare: [] as number[],
      checked: [] as number[],
      unchecked: [] as number[],
      check: [] as number[],
    };
    const cpuChecked = { self: 0, children: 0, checker: 0 };
    const cpuUnchecked = { self: 0, children: 0 };
    let rssWarm = 0;
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const measuring = round >= WARMUP;
      if (round === WARMUP) rssWarm = Deno.memoryUsage().rss;
      const floor = await bare(empty);
      await pause();
      const checkerPid = harness.runnerStats().checker.pid;
      const checkerBefore = processCpu(checkerPid);
      let before = cpu();
      let started = performance.now();
      const checked = await harness.run(source);
      const checkedMs = performance.now() - started;
      let after = cpu();
      const checkerAfter = processCpu(checkerPid);
      if (checked.outcome.kind !== "returned") throw new Error(JSON.stringify(checked.outcome));
      if (measuring) {
        cpuChecked.self += after.self - before.self;
        cpuChecked.children += after.children - before.children;
        cpuChecked.checker += Math.max(0, checkerAfter - checkerBefore);
      }
      await pause();
      before = cpu();
      started = performance.now();
      const unchecked = await harness.run(source, { typeCheck: false });
      const uncheckedMs = performance.now() - started;
      after = cpu();
      if (unchecked.outcome.kind !== "returned") throw new Error(JSON.stringify(unchecked.outcome));
      if (measuring) {
        cpuUnchecked.self += after.self - before.self;
        cpuUnchecked.children += after.children - before.children;
      }
      started = performance.now();
      const alone = await checker.check(files, { timeoutMs: 60_000 });
      const checkMs = performance.now() - started;
      if (alone.kind !== "passed") throw new Error(JSON.stringify(alone));
      if (!measuring) continue;
      samples.bare.push(floor);
      samples.checked.push(checkedMs);
      samples.unchecked.push(uncheckedMs);
      samples.check.push(checkMs);
    }
    const rssEnd = Deno.memoryUsage().rss;
    const checkerRss = processRss(harness.runnerStats().checker.pid);
    await checker.retire();
    const floor = median(samples.bare);
    const label = `${
      official ? "echo + four official modules" : "echo"
    }, ${PAUSE_MS} ms between runs`;
    out.push(
      `### ${label} (${ROUNDS} rounds after ${WARMUP} of warm-up)`,
      "",
      "| row | p50 ms | p90 ms | p50 / bare |",
      "| --- | ---: | ---: | ---: |",
      row("bare `deno run` of an empty module", samples.bare, floor),
      row("`harness.run`, type-checked", samples.checked, floor),
      row("`harness.run`, `typeCheck: false`", samples.unchecked, floor),
      row("the type check alone (a resident checker)", samples.check, NaN),
      "",
      `- harness RSS: ${mb(rssBoot)} MiB after boot, ${mb(rssWarm)} MiB with the checker loaded ` +
        `and warm, ${mb(rssEnd)} MiB after ${2 * ROUNDS} more runs ` +
        `(${((rssEnd - rssWarm) / 1024 / (2 * ROUNDS)).toFixed(1)} KiB per run)`,
      `- the harness's checker process (not in the harness's RSS): ${mb(checkerRss)} MiB RSS`,
      `- CPU per run, type-checked: harness ${(cpuChecked.self / ROUNDS).toFixed(1)} ms, ` +
        `sandbox ${(cpuChecked.children / ROUNDS).toFixed(1)} ms, ` +
        `checker process ${(cpuChecked.checker / ROUNDS).toFixed(1)} ms`,
      `- CPU per run, unchecked: harness ${(cpuUnchecked.self / ROUNDS).toFixed(1)} ms, ` +
        `sandbox ${(cpuUnchecked.children / ROUNDS).toFixed(1)} ms`,
      `- runs that found a sandbox waiting: ${harness.runnerStats().warmRuns} of ${harness.runnerStats().runs}`,
      "",
    );
  } finally {
    await harness.retire();
    await cleanup();
  }
  return out;
}

/** A process's resident memory in bytes, from `/proc`; 0 when it cannot be read. */
function processRss(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const pages = Number(Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ")[1]);
    return pages * 4096;
  } catch {
    return 0;
  }
}

function mb(bytes: number): string {
  return (bytes / 1048576).toFixed(0);
}

/** Child mode: boot, then time the first run; prints one JSON line. */
async function firstRun(prepare: boolean, official: boolean): Promise<void> {
  const { specs: list, cleanup } = await specs(official);
  const started = performance.now();
  const harness = await boot(list, { retirementTimeoutMs: 10_000, prepareRunner: prepare });
  const booted = performance.now();
  try {
    const source = program(official);
    const report = await harness.run(source);
    const ran = performance.now();
    if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
    const second = performance.now();
    await harness.run(source);
    console.log(JSON.stringify({
      bootMs: booted - started,
      firstMs: ran - booted,
      secondMs: performance.now() - second,
      rss: Deno.memoryUsage().rss,
    }));
  } finally {
    await harness.retire();
    await cleanup();
  }
}

async function firstRows(official: boolean): Promise<string[]> {
  const out = [
    `### first run after boot, ${
      official ? "echo + four official servers" : "echo"
    } (${FIRST_RUNS} fresh processes each)`,
    "",
    "| `prepareRunner` | boot p50 ms | first run p50 ms | second run p50 ms | harness RSS p50 MiB |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const mode of ["lazy", "prepare"]) {
    const rows: { bootMs: number; firstMs: number; secondMs: number; rss: number }[] = [];
    for (let index = 0; index < FIRST_RUNS; index++) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", SELF, "--first", mode, official ? "official" : "echo"],
        stdin: "null",
        stderr: "inherit",
      }).output();
      if (!output.success) throw new Error(`the first-run child failed (${mode})`);
      rows.push(JSON.parse(new TextDecoder().decode(output.stdout)));
    }
    out.push(
      `| ${mode === "prepare" ? "true" : "false"} | ${
        median(rows.map((r) => r.bootMs)).toFixed(0)
      } | ` +
        `${median(rows.map((r) => r.firstMs)).toFixed(0)} | ${
          median(rows.map((r) => r.secondMs)).toFixed(0)
        } | ` +
        `${mb(median(rows.map((r) => r.rss)))} |`,
    );
  }
  out.push("");
  return out;
}

if (import.meta.main) {
  const first = Deno.args.indexOf("--first");
  if (first >= 0) {
    await firstRun(Deno.args[first + 1] === "prepare", Deno.args[first + 2] === "official");
  } else {
    const empty = await Deno.makeTempFile({ suffix: ".ts" });
    try {
      const lines = [
        `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load ${
          Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")
        }`,
        "",
        ...await steady(false, empty),
        ...(OFFICIAL ? await steady(true, empty) : []),
        ...await firstRows(false),
        ...(OFFICIAL ? await firstRows(true) : []),
      ];
      console.log(lines.join("\n"));
    } finally {
      await Deno.remove(empty);
      process.exitCode = 0;
    }
  }
}
