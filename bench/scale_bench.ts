// Code mode at scale: twenty fixture servers replaying every real listing of
// tests/corpus/servers/ (584 tools; tests/fixtures/_listings.ts), through one
// booted harness. Prints, as markdown: boot time, the surface's bytes against
// the blocks it stands for, the search index's size and build time, search
// time over the labelled query set, the type check of a program importing 3
// servers among 3 and among 20, twelve checked one-call programs back to back
// and eight at once, each beside as many bare `deno run`s of an empty module
// measured in the same run, and the resident memory of the harness, its
// checker and its waiting sandboxes.
//
//   deno run -A bench/scale_bench.ts                 five rounds of each comparison
//   deno run -A bench/scale_bench.ts --quick         two rounds, one boot
//   deno run -A bench/scale_bench.ts --warm 8 --slots 8   the harness's warmSandboxes, maxSandboxes

import { boot, type Harness } from "../harness/harness.ts";
import { ToolIndex } from "../harness/_discovery.ts";
import { renderSurface } from "../harness/_surface.ts";
import { ResidentChecker } from "../runner/host/checker.ts";
import { CAP_SOURCE, TOOLS_SOURCE } from "../_generated/sandbox_sources.ts";
import { LISTING_GROUPS, listingGroup, listingSpecs } from "../tests/fixtures/_listings.ts";
import { DISCOVERY_QUERIES } from "../tests/harness/data/discovery_queries.ts";
import { median, quantile } from "./_mcp_clients.ts";

const QUICK = Deno.args.includes("--quick");
const ROUNDS = QUICK ? 2 : 5;
const BOOTS = QUICK ? 1 : 3;
const BACK_TO_BACK = 12;
const AT_ONCE = 8;
/** The pause between blocks of runs, standing for a model's thinking: the pool refills. */
const PAUSE_MS = 1_500;
const CHECKS = QUICK ? 20 : 60;

function flag(name: string): number | undefined {
  const at = Deno.args.indexOf(name);
  return at < 0 ? undefined : Number(Deno.args[at + 1]);
}
const WARM = flag("--warm");
const SLOTS = flag("--slots");

const encoder = new TextEncoder();
const bytes = (text: string): number => encoder.encode(text).length;
const pause = (ms = PAUSE_MS) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (value: number): string => value.toFixed(1);
const mib = (value: number): string => (value / 1048576).toFixed(0);

/** The one-call program: a tool of one server, type-checked; each run's text its own. */
let programs = 0;
function oneCall(): string {
  return `// program ${programs++}\n` +
    'import { get_current_time } from "./mcp/assistant.ts";\n' +
    'export default (await get_current_time({ timezone: "Etc/UTC" })).text;\n';
}

/** A program importing three servers' modules, calling one tool of each. */
const THREE = 'import { get_issue } from "./mcp/github.ts";\n' +
  'import { retrieve_balance } from "./mcp/stripe.ts";\n' +
  'import { ping } from "./mcp/kubernetes.ts";\n' +
  "const [a, b, c] = await Promise.all([\n" +
  '  get_issue({ owner: "o", repo: "r", issue_number: 1 }),\n' +
  "  retrieve_balance({}),\n  ping({}),\n]);\n" +
  "export default [a.text, b.text, c.text].length;\n";
const THREE_SERVERS = ["github", "stripe", "kubernetes"];

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

async function run(harness: Harness, source: string): Promise<number> {
  const started = performance.now();
  const report = await harness.run(source);
  const elapsed = performance.now() - started;
  if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
  return elapsed;
}

function rss(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ")[1]) * 4096;
  } catch {
    return 0;
  }
}

/** The summed resident memory of this process's live sandbox children. */
function sandboxesRss(): { count: number; bytes: number } {
  let count = 0;
  let total = 0;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== Deno.pid || state === "Z") continue;
      if (!Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).includes("loom-run-")) continue;
      count++;
      total += rss(Number(entry.name));
    } catch {
      continue;
    }
  }
  return { count, bytes: total };
}

function options(): Parameters<typeof boot>[1] {
  return {
    retirementTimeoutMs: 10_000,
    ...(WARM === undefined ? {} : { warmSandboxes: WARM }),
    ...(SLOTS === undefined ? {} : { maxSandboxes: SLOTS }),
  };
}

async function bootTwenty(): Promise<{ harness: Harness; ms: number }> {
  const started = performance.now();
  const harness = await boot(listingSpecs(), options());
  const elapsed = performance.now() - started;
  const failed = [...harness.reports.values()].filter((report) => report.state !== "ready");
  if (failed.length > 0) throw new Error(`boot failed: ${failed.map((f) => f.name).join(", ")}`);
  return { harness, ms: elapsed };
}

function surfaceRows(harness: Harness): string[] {
  const modules = new Map(
    [...harness.reports.values()].flatMap((r) =>
      r.state === "ready" ? [[r.name, r.generated]] : []
    ),
  );
  const whole = bytes(renderSurface(modules));
  const tools = [...harness.modules.values()].reduce((sum, m) => sum + m.manifest.size, 0);
  const builds: number[] = [];
  const engines: number[] = [];
  let size = 0;
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const index = new ToolIndex(harness.reports, 16 * 1024);
    const built = performance.now();
    size = index.indexSize(); // builds the search index, as the first search does
    engines.push(performance.now() - built);
    builds.push(built - started);
  }
  const searches: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const [query] of DISCOVERY_QUERIES) {
      const started = performance.now();
      harness.search(query, { limit: 5 });
      searches.push(performance.now() - started);
    }
  }
  return [
    "| what | figure |",
    "| --- | ---: |",
    `| servers, tools | ${harness.modules.size}, ${tools} |`,
    `| surface (default budget 16 KiB) | ${bytes(harness.surface)} bytes |`,
    `| every block, as the surface was before | ${whole} bytes |`,
    `| search index (MiniSearch, serialized) | ${(size / 1024).toFixed(0)} KiB |`,
    `| the surface made (index of 584 tools) p50 | ${ms(median(builds))} ms |`,
    `| the search index built (at the first search) p50 | ${ms(median(engines))} ms |`,
    `| one search, ${DISCOVERY_QUERIES.length} queries x 3, p50 / p90 | ` +
    `${median(searches).toFixed(2)} / ${quantile(searches, 0.9).toFixed(2)} ms |`,
  ];
}

/** The checker's files for THREE, with the modules of `servers`. */
function files(harness: Harness, servers: readonly string[]): [string, string][] {
  const out: [string, string][] = [
    ["program.ts", THREE],
    ["cap.ts", CAP_SOURCE],
    ["tools.ts", TOOLS_SOURCE],
  ];
  for (const name of servers) {
    const module = harness.modules.get(name);
    if (module !== undefined) out.push([module.moduleName, module.source]);
  }
  return out;
}

async function checkRows(twenty: Harness): Promise<string[]> {
  const all = LISTING_GROUPS.map((group) => group.name);
  const checker = new ResidentChecker();
  const samples = { three: [] as number[], sent: [] as number[], all: [] as number[] };
  try {
    for (let i = 0; i < CHECKS + 5; i++) {
      for (const [key, list] of [["three", THREE_SERVERS], ["all", all]] as const) {
        const started = performance.now();
        const outcome = await checker.check(files(twenty, list), { timeoutMs: 60_000 });
        if (outcome.kind !== "passed") throw new Error(JSON.stringify(outcome));
        if (i >= 5) samples[key].push(performance.now() - started);
      }
    }
  } finally {
    await checker.retire();
  }
  // Through harnesses: one of the three servers alone, and the twenty.
  const three = await boot(listingSpecs(THREE_SERVERS.map(listingGroup)), options());
  const runs = { three: [] as number[], twenty: [] as number[] };
  try {
    for (let i = 0; i < ROUNDS + 2; i++) {
      for (const [key, harness] of [["three", three], ["twenty", twenty]] as const) {
        await pause(400);
        const elapsed = await run(harness, THREE);
        if (i >= 2) runs[key].push(elapsed);
      }
    }
  } finally {
    await three.retire();
  }
  return [
    "| check of a program importing 3 servers | p50 ms | p90 ms |",
    "| --- | ---: | ---: |",
    `| the 3 modules sent (as the runner sends them, of 3 or of 20) | ${
      ms(median(samples.three))
    } | ${ms(quantile(samples.three, 0.9))} |`,
    `| all 20 modules sent (as before this change) | ${ms(median(samples.all))} | ${
      ms(quantile(samples.all, 0.9))
    } |`,
    `| \`harness.run\`, checked, harness of the 3 servers | ${ms(median(runs.three))} | ${
      ms(quantile(runs.three, 0.9))
    } |`,
    `| \`harness.run\`, checked, harness of the 20 servers | ${ms(median(runs.twenty))} | ${
      ms(quantile(runs.twenty, 0.9))
    } |`,
  ];
}

async function backToBack(harness: Harness, empty: string): Promise<string[]> {
  const floor: number[] = [];
  const programs: number[] = [];
  const perRound: string[] = [];
  // One block of warm-up: the pool learns what a burst needs.
  for (let i = 0; i < BACK_TO_BACK; i++) await run(harness, oneCall());
  await pause();
  for (let round = 0; round < ROUNDS; round++) {
    const bareRound: number[] = [];
    for (let i = 0; i < BACK_TO_BACK; i++) bareRound.push(await bare(empty));
    await pause();
    const runRound: number[] = [];
    for (let i = 0; i < BACK_TO_BACK; i++) runRound.push(await run(harness, oneCall()));
    await pause();
    floor.push(...bareRound);
    programs.push(...runRound);
    perRound.push((median(runRound) / median(bareRound)).toFixed(2));
  }
  const ratio = median(programs) / median(floor);
  return [
    `| ${BACK_TO_BACK} back to back, per program | p50 ms | p90 ms | p50 / bare |`,
    "| --- | ---: | ---: | ---: |",
    `| bare \`deno run\` of an empty module | ${ms(median(floor))} | ${
      ms(quantile(floor, 0.9))
    } | 1.00x |`,
    `| \`harness.run\`, type-checked, one call | ${ms(median(programs))} | ${
      ms(quantile(programs, 0.9))
    } | ${ratio.toFixed(2)}x |`,
    "",
    `Each round's ratio: ${perRound.join(", ")}.`,
  ];
}

async function atOnce(harness: Harness, empty: string): Promise<string[]> {
  const floor: number[] = [];
  const programs: number[] = [];
  const perRound: string[] = [];
  const all = async (task: () => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    await Promise.all(Array.from({ length: AT_ONCE }, task));
    return performance.now() - started;
  };
  await all(() => run(harness, oneCall()));
  await pause();
  for (let round = 0; round < ROUNDS; round++) {
    const b = await all(() => bare(empty));
    await pause();
    const p = await all(() => run(harness, oneCall()));
    await pause();
    floor.push(b);
    programs.push(p);
    perRound.push((p / b).toFixed(2));
  }
  return [
    `| ${AT_ONCE} started at once, until the last ends | p50 ms | p90 ms | p50 / bare |`,
    "| --- | ---: | ---: | ---: |",
    `| bare \`deno run\`s of an empty module | ${ms(median(floor))} | ${
      ms(quantile(floor, 0.9))
    } | 1.00x |`,
    `| \`harness.run\`s, type-checked, one call each | ${ms(median(programs))} | ${
      ms(quantile(programs, 0.9))
    } | ${(median(programs) / median(floor)).toFixed(2)}x |`,
    "",
    `Each round's ratio: ${perRound.join(", ")}.`,
  ];
}

if (import.meta.main) {
  const empty = await Deno.makeTempFile({ suffix: ".ts" });
  const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  const out: string[] = [
    `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load ${load()} at the start` +
    (WARM === undefined ? "" : `, warmSandboxes ${WARM}`) +
    (SLOTS === undefined ? "" : `, maxSandboxes ${SLOTS}`),
    "",
  ];
  const boots: number[] = [];
  let harness: Harness | undefined;
  try {
    for (let i = 0; i < BOOTS; i++) {
      const booted = await bootTwenty();
      boots.push(booted.ms);
      if (i < BOOTS - 1) await booted.harness.retire();
      else harness = booted.harness;
    }
    const live = harness as Harness;
    const rssBoot = Deno.memoryUsage().rss;
    out.push(
      `Boot of the twenty servers: p50 ${median(boots).toFixed(0)} ms of ${BOOTS} ` +
        `(${boots.map((b) => b.toFixed(0)).join(", ")}); harness RSS after boot ${
          mib(rssBoot)
        } MiB.`,
      "",
      ...surfaceRows(live),
      "",
      ...await checkRows(live),
      "",
      ...await backToBack(live, empty),
      "",
      ...await atOnce(live, empty),
      "",
    );
    const stats = live.runnerStats();
    const pool = sandboxesRss();
    out.push(
      `- harness RSS: ${mib(rssBoot)} MiB after boot, ${mib(Deno.memoryUsage().rss)} MiB after ` +
        `${stats.runs} runs; its checker process ${mib(rss(stats.checker.pid))} MiB; ` +
        `${pool.count} sandboxes waiting, ${mib(pool.bytes)} MiB together`,
      `- runs that found a sandbox waiting: ${stats.warmRuns} of ${stats.runs}`,
      `- load at the end: ${load()}`,
    );
    console.log(out.join("\n"));
  } finally {
    await harness?.retire();
    await Deno.remove(empty);
  }
}
