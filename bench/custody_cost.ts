// What custody costs the harness's main thread while a server keeps many idle
// children: the main thread's share of a core and the longest stall of its
// event loop, over a window in which nothing else happens.
//
//   deno run -A bench/custody_cost.ts [checkout ...] [--children 500,2000] [--window 10]
//
// Each checkout (this one by default; name another, e.g. /work/main, to
// compare) is measured in a process of its own, one per children count: it
// connects tests/fixtures/many_children.ts (this checkout's) through that
// checkout's Client, waits until every child has started and 2 s more, then
// samples two windows: in the first, nothing else runs, and it reads the
// main thread's CPU time (`schedstat` of its task, in nanoseconds) and the
// process's; in the second, a 5 ms interval runs, and it records the
// interval's longest lateness (which on a loaded machine also counts time the
// thread waited for a core) and the longest stretch of CPU the main thread
// spent between two of its turns (what custody's own work stalls, whatever
// the load). A run with 0 children is the floor. It retires the server and
// checks that no child is left (the drain must stay exact).

import { isLive } from "../tests/_proc.ts";

const FIXTURE = new URL("../tests/fixtures/many_children.ts", import.meta.url).pathname;
const TICK_MS = 5;
const SETTLE_MS = 2_000;

type Figures = {
  children: number;
  cpuShare: number;
  processShare: number;
  longestStallMs: number;
  longestBusyMs: number;
  retirementMs: number;
  retirementStallMs: number;
  retirementBusyMs: number;
  drained: unknown;
  left: number;
};

function mainThreadNs(): number {
  const text = Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/schedstat`);
  return Number(text.split(" ")[0]);
}

function processTicks(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

async function measure(root: string, children: number, windowMs: number): Promise<Figures> {
  const { Client } = await import(new URL(`${root}/client/client.ts`, "file:///").href);
  const client = new Client({
    name: "many",
    command: Deno.execPath(),
    args: ["run", "--quiet", "--no-lock", "--allow-run=sleep", FIXTURE, String(children)],
    env: {},
    inheritEnv: ["DENO_DIR"],
    stderr: "tail",
    connectTimeoutMs: 120_000,
  }, { retirementTimeoutMs: 30_000 });
  const started = await client.connect();
  if (!started.ok) throw new Error(`Cannot connect: ${started.error.message}`);
  let pids: number[] = [];
  for (let i = 0; i < 6_000 && pids.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const line = /children ([\d ]+)/.exec(client.stderrTail());
    if (line !== null) pids = (line[1] ?? "").trim().split(" ").map(Number);
  }
  if (pids.length !== children) throw new Error(`The fixture reported ${pids.length} children`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

  // First the CPU, with nothing else running on the main thread.
  const cpu = mainThreadNs();
  const ticks = processTicks();
  let at = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const elapsed = performance.now() - at;
  const cpuShare = (mainThreadNs() - cpu) / 1e6 / elapsed;
  const processShare = (processTicks() - ticks) * 10 / elapsed;

  // Then the stalls, seen from an interval.
  let longest = 0;
  let busiest = 0;
  let last = performance.now();
  let lastNs = mainThreadNs();
  const interval = setInterval(() => {
    const now = performance.now();
    const ns = mainThreadNs();
    longest = Math.max(longest, now - last - TICK_MS);
    busiest = Math.max(busiest, (ns - lastNs) / 1e6);
    last = now;
    lastNs = ns;
  }, TICK_MS);
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const idle = { longest, busiest };

  // The retirement, under the same interval: the drain's own stalls.
  longest = 0;
  busiest = 0;
  at = performance.now();
  const outcome = await client.shutdown();
  const retirementMs = performance.now() - at;
  clearInterval(interval);
  const drained = outcome.ok && outcome.value.kind === "exited" ? outcome.value.drained : outcome;
  let left = pids.filter(isLive);
  for (let i = 0; i < 100 && left.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter(isLive);
  }
  for (const pid of left) Deno.kill(pid, "SIGKILL");
  return {
    children,
    cpuShare,
    processShare,
    longestStallMs: idle.longest,
    longestBusyMs: idle.busiest,
    retirementMs,
    retirementStallMs: longest,
    retirementBusyMs: busiest,
    drained,
    left: left.length,
  };
}

const flag = (name: string, fallback: string) => {
  const index = Deno.args.indexOf(name);
  return index === -1 ? fallback : Deno.args[index + 1] ?? fallback;
};
const positional = Deno.args.filter((arg, index) =>
  !arg.startsWith("--") && !Deno.args[index - 1]?.startsWith("--")
);

if (Deno.args[0] === "--child") {
  const [, root = ".", count = "500", windowMs = "10000"] = Deno.args;
  console.log(JSON.stringify(await measure(root, Number(count), Number(windowMs))));
} else {
  const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const roots = positional.length > 0 ? positional : [here];
  const counts = flag("--children", "500,2000").split(",").map(Number);
  const windowMs = Number(flag("--window", "10")) * 1000;
  for (const root of roots) {
    for (const count of counts) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--no-lock",
          new URL(import.meta.url).pathname,
          "--child",
          root,
          String(count),
          String(windowMs),
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      const figures = JSON.parse(new TextDecoder().decode(output.stdout)) as Figures;
      console.log(
        `${root}: ${count} children: main thread ${(figures.cpuShare * 100).toFixed(1)}% ` +
          `of a core (process ${(figures.processShare * 100).toFixed(1)}%), longest stall ` +
          `${figures.longestStallMs.toFixed(1)} ms (of it busy ${
            figures.longestBusyMs.toFixed(1)
          } ms); ` +
          `retired in ${figures.retirementMs.toFixed(0)} ms, longest stall ` +
          `${figures.retirementStallMs.toFixed(1)} ms (busy ${
            figures.retirementBusyMs.toFixed(1)
          } ms), ` +
          `drained ${JSON.stringify(figures.drained)}, ` +
          `children left ${figures.left}`,
      );
    }
  }
}
