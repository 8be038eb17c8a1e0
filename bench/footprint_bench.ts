// The resident memory of a harness of twenty servers with code mode ready, at
// rest after one program, each part on its own, beside its peers measured in
// the same run: a process of the same runtime with nothing loaded, and one
// holding twenty empty Workers. Each figure comes from a fresh child process
// (this script in another mode), so no part inherits another's heap:
//
// - `bare`: a process that loaded nothing;
// - `empty`: the same holding twenty Workers that do nothing (the least a
//   client's worker can cost);
// - `census`: twenty clients connected (the listing fixtures of
//   `tests/fixtures/_listings.ts`: 584 tools), at rest, no code mode;
// - `harness`: `boot` of the same twenty servers, its runner prepared, one
//   checked program run, then at rest: the harness process, its checker
//   process and its waiting sandboxes, each read from `/proc`.
//
// The servers' own processes are not counted. The census and the harness
// are read twice: at 3 s at rest, and again at 30 s, once V8's memory
// reducer has had an idle while to give back the young generation that boot
// grew (each process's own, the checker's and the sandbox's included).
//
//   deno run -A bench/footprint_bench.ts [rounds]     (default 3)

import { boot } from "../harness/harness.ts";
import { Census } from "../client/census.ts";
import { listingSpecs } from "../tests/fixtures/_listings.ts";
import { median } from "./_mcp_clients.ts";

const SELF = new URL(import.meta.url).pathname;
const EMPTY_WORKER = new URL("./_empty_worker.ts", import.meta.url);
const SERVERS = 20;
const REST_MS = 3_000;
const LONG_REST_MS = 30_000;

const rest = (ms = REST_MS) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number): string => (bytes / 1048576).toFixed(1);

function rss(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ")[1]) * 4096;
  } catch {
    return 0;
  }
}

/** The summed resident memory of this process's live sandbox children. */
function sandboxes(): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== Deno.pid || state === "Z") continue;
      if (!Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).includes("loom-run-")) continue;
      count++;
      bytes += rss(Number(entry.name));
    } catch {
      continue;
    }
  }
  return { count, bytes };
}

/** One figure of one mode, in a child of its own: its JSON line. */
async function child(mode: string): Promise<Record<string, number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SELF, "--mode", mode],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the ${mode} child failed`);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "{}");
}

async function mode(name: string): Promise<Record<string, number>> {
  switch (name) {
    case "bare":
      await rest();
      return { self: Deno.memoryUsage().rss };
    case "empty": {
      const workers = Array.from(
        { length: SERVERS },
        () => new Worker(EMPTY_WORKER, { type: "module" }),
      );
      await Promise.all(workers.map((worker) =>
        new Promise((resolve) => {
          worker.onmessage = resolve;
          worker.postMessage("ping");
        })
      ));
      await rest();
      const self = Deno.memoryUsage().rss;
      for (const worker of workers) worker.terminate();
      return { self };
    }
    case "census": {
      const census = Census.prepare(listingSpecs());
      const connected = await census.connectAll();
      if ([...connected.values()].some((result) => !result.ok)) throw new Error("a start failed");
      for (const client of census.clients.values()) {
        const listed = await client.listTools();
        if (!listed.ok) throw new Error("a listing failed");
      }
      await rest();
      const self = Deno.memoryUsage().rss;
      await rest(LONG_REST_MS - REST_MS);
      const longSelf = Deno.memoryUsage().rss;
      await census.retire();
      return { self, longSelf };
    }
    case "harness": {
      const harness = await boot(listingSpecs(), {
        retirementTimeoutMs: 10_000,
        prepareRunner: true,
      });
      const report = await harness.run(
        'import { get_current_time } from "./mcp/assistant.ts";\n' +
          'export default (await get_current_time({ timezone: "Etc/UTC" })).text;\n',
      );
      if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
      await rest();
      const self = Deno.memoryUsage().rss;
      const checker = rss(harness.runnerStats().checker.pid);
      const waiting = sandboxes();
      await rest(LONG_REST_MS - REST_MS);
      const longSelf = Deno.memoryUsage().rss;
      const longChecker = rss(harness.runnerStats().checker.pid);
      const longWaiting = sandboxes();
      await harness.retire();
      return {
        self,
        checker,
        sandboxes: waiting.count,
        sandboxBytes: waiting.bytes,
        longSelf,
        longChecker,
        longSandboxes: longWaiting.count,
        longSandboxBytes: longWaiting.bytes,
      };
    }
  }
  throw new TypeError(`Unknown mode "${name}"`);
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--mode");
  if (at >= 0) {
    console.log(JSON.stringify(await mode(Deno.args[at + 1] ?? "")));
  } else {
    const rounds = Number(Deno.args[0] ?? 3);
    const samples: Record<string, number[]> = {};
    const keep = (key: string, value: number) => (samples[key] ??= []).push(value);
    for (let round = 0; round < rounds; round++) {
      for (const name of ["bare", "empty", "census", "harness"]) {
        const figures = await child(name);
        for (const [key, value] of Object.entries(figures)) keep(`${name}.${key}`, value);
      }
    }
    const p50 = (key: string): number => median(samples[key] ?? [0]);
    const bare = p50("bare.self");
    const perEmpty = (p50("empty.self") - bare) / SERVERS;
    const perClient = (p50("census.self") - bare) / SERVERS;
    const total = p50("harness.self") + p50("harness.checker") + p50("harness.sandboxBytes");
    const longTotal = p50("harness.longSelf") + p50("harness.longChecker") +
      p50("harness.longSandboxBytes");
    const both = (key: string) =>
      `${mib(p50(key))} | ${
        mib(p50(key.replace(/\.(\w)/, (_, first: string) => `.long${first.toUpperCase()}`)))
      }`;
    console.log(
      [
        `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load ${
          Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")
        }, ${rounds} rounds, p50 of each`,
        "",
        `| what | RSS MiB at ${REST_MS / 1000} s at rest | at ${LONG_REST_MS / 1000} s |`,
        "| --- | ---: | ---: |",
        `| a process that loaded nothing | ${mib(bare)} | |`,
        `| one empty Worker, above that (${SERVERS} in one process) | ${mib(perEmpty)} | |`,
        `| one client connected and listed, above that (${SERVERS} in one census) | ${
          mib(perClient)
        } | ${mib((p50("census.longSelf") - bare) / SERVERS)} |`,
        `| the census of the same ${SERVERS} clients | ${both("census.self")} |`,
        `| the harness process (${SERVERS} servers, runner prepared, one program run) | ${
          both("harness.self")
        } |`,
        `| its checker process | ${both("harness.checker")} |`,
        `| its waiting sandboxes (${p50("harness.sandboxes")}, ${p50("harness.longSandboxes")}) | ${
          both("harness.sandboxBytes")
        } |`,
        `| **harness and code mode in all** | **${mib(total)}** | **${mib(longTotal)}** |`,
      ].join("\n"),
    );
  }
}
