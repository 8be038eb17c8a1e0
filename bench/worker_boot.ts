// A client's worker booted from the committed bundle against one booted from
// the sources (client/worker/entry.ts and its imports), alternating: the time from
// `new Worker` to the worker's answer to a start whose command does not exist
// (module load, evaluation, the start message, a spawn that fails at once).
// Two figures each: the first worker of a fresh process (what a harness's
// boot pays once) and the later workers of one process (what each further
// server pays), medians.
//
//   deno run -A bench/worker_boot.ts [rounds]      (default 12)

import { WorkerLink } from "../client/thread/link.ts";
import { startMessage } from "../client/_worker_launch.ts";
import type { FromWorker } from "../client/thread/from_worker.ts";

const BUNDLE = new URL("../_generated/worker_bundle.js", import.meta.url);
const SOURCES = new URL("../client/worker/entry.ts", import.meta.url);

/** One worker's boot, in ms: `new Worker` to its answer to the start. */
export function bootOnce(url: URL): Promise<number> {
  const started = performance.now();
  const worker = new Worker(url, { type: "module", name: "boot" });
  return new Promise((resolve, reject) => {
    const link: WorkerLink = new WorkerLink(worker, "boot", {
      event(event: FromWorker) {
        if (event.kind !== "started") return;
        const elapsed = performance.now() - started;
        link.end();
        resolve(elapsed);
      },
      lost: (message) => reject(new Error(message)),
    });
    link.post(startMessage(
      {
        name: "boot",
        command: "/nonexistent/loom-boot",
        args: [],
        env: {},
        inheritEnv: [],
        stderr: "tail",
      },
      5_000,
      1_000,
      link.rings,
    ));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

if (import.meta.main) {
  const child = Deno.args[0] === "--child" ? Deno.args[1] : undefined;
  if (child !== undefined) {
    // One fresh process: its first worker, then eight more.
    const url = child === "bundle" ? BUNDLE : SOURCES;
    const first = await bootOnce(url);
    const later: number[] = [];
    for (let i = 0; i < 8; i++) later.push(await bootOnce(url));
    console.log(JSON.stringify({ first, later: median(later) }));
  } else {
    const rounds = Number(Deno.args[0] ?? 12);
    const figures: Record<string, { first: number[]; later: number[] }> = {
      bundle: { first: [], later: [] },
      sources: { first: [], later: [] },
    };
    for (let round = 0; round < rounds; round++) {
      for (const kind of round % 2 === 0 ? ["bundle", "sources"] : ["sources", "bundle"]) {
        const output = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", new URL(import.meta.url).pathname, "--child", kind],
          stdout: "piped",
          stderr: "inherit",
        }).output();
        const line = new TextDecoder().decode(output.stdout).trim().split("\n").pop() ?? "";
        const { first, later } = JSON.parse(line) as { first: number; later: number };
        figures[kind]!.first.push(first);
        figures[kind]!.later.push(later);
      }
    }
    for (const [kind, { first, later }] of Object.entries(figures)) {
      console.log(
        `${kind.padEnd(8)} first worker of a process ${median(first).toFixed(1)} ms, ` +
          `later workers ${median(later).toFixed(1)} ms (medians of ${rounds})`,
      );
    }
    const ratio = median(figures.sources!.first) / median(figures.bundle!.first);
    console.log(`sources / bundle, first worker: ${ratio.toFixed(2)}x`);
  }
}
