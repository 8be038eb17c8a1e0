// Our client against the official TypeScript SDK client (`Client` over
// `StdioClientTransport`), in one run, on the same servers, alternating
// which goes first, beside a bare-pipe floor. Prints a table of medians and
// the ratio ours / SDK.
//
//   deno run -A bench/sdk_bench.ts            the full run (a few minutes on 2 cores)
//   deno run -A bench/sdk_bench.ts --quick    a few iterations of every row
//   ... --rows 3,4 --only ours                      a subset, for a profiler
//
// Rows 2 and 6 run each client in its own subprocess (`--fleet <kind> <n>`),
// so the peak resident memory read there (VmHWM) is that client's alone; row
// 5 too (`--big <kind> <rounds>`), so that no client's heap collects another's
// 8 MiB strings.

import {
  allGone,
  type ClientKind,
  echoTarget,
  median,
  memoryTarget,
  open,
  Pipe,
  procStatusKib,
  quantile,
  type Session,
  type Target,
  WorkerPipe,
} from "./_mcp_clients.ts";
import type { JsonObject } from "../codec/json.ts";
import process from "node:process";

const SELF = new URL(import.meta.url).pathname;
const MIB = 1024 * 1024;
const FLEET = 16;
const QUICK_FLEET = 4;
const IN_FLIGHT = 64;

type Plan = {
  connectRounds: number;
  memoryConnectRounds: number;
  fleetRounds: number;
  sequentialCalls: number;
  sequentialBlocks: number;
  memoryCalls: number;
  throughputCalls: number;
  throughputRounds: number;
  bigRounds: number;
  /** The official client spends seconds on each 8 MiB answer, so it runs fewer. */
  sdkBigRounds: number;
  warmup: number;
  /** The memory server (Node code under Deno) keeps getting faster for longer. */
  memoryWarmup: number;
};

const FULL: Plan = {
  connectRounds: 10,
  memoryConnectRounds: 6,
  fleetRounds: 3,
  sequentialCalls: 2_000,
  // The machine's speed drifts: short sequential blocks, many of them, and
  // two throughput rounds per place in the turn order (a shorter round would
  // weigh the start and end of keeping 64 in flight more; with one round per
  // place, the in-flight ratio of runs of rows 3 and 4 alone, back to back,
  // spread from 0.73 to 0.94).
  sequentialBlocks: 8,
  memoryCalls: 1_000,
  throughputCalls: 6_000,
  throughputRounds: 8,
  // Its 8 MiB answers' medians move by a third between runs at 5 rounds: the
  // main thread's heap is collected after every second or third answer.
  bigRounds: 15,
  sdkBigRounds: 5,
  // Every caller runs this many calls first, so that the rows measure each
  // client's steady state, its code optimized, rather than its warm-up.
  warmup: 2_000,
  memoryWarmup: 1_500,
};

const QUICK: Plan = {
  connectRounds: 1,
  memoryConnectRounds: 1,
  fleetRounds: 1,
  sequentialCalls: 40,
  sequentialBlocks: 2,
  memoryCalls: 20,
  throughputCalls: 256,
  throughputRounds: 1,
  bigRounds: 1,
  sdkBigRounds: 1,
  warmup: 10,
  memoryWarmup: 10,
};

/** One printed line: a figure per client, the ratio, and the floor where there is one. */
type Line = {
  row: string;
  unit: string;
  ours: number;
  sdk: number;
  floor?: number;
  /** What any worker-hosted client spends at least: the same work behind one worker hop. */
  workerFloor?: number;
  higherIsBetter?: boolean;
};

type FleetReport = {
  connectMs: number;
  shutdownMs: number;
  hwmKib: number;
  baseKib: number;
  /** CPU time of the harness process (every thread) while connecting, in ms. */
  connectCpuMs: number;
  /** The same while shutting down. */
  shutdownCpuMs: number;
};

function flag(name: string): string | undefined {
  const index = Deno.args.indexOf(name);
  return index === -1 ? undefined : Deno.args[index + 1];
}

function now(): number {
  return performance.now();
}

/** Both kinds, the first alternating by round. */
function order(round: number, only: ClientKind | undefined): ClientKind[] {
  const both: ClientKind[] = round % 2 === 0 ? ["ours", "sdk"] : ["sdk", "ours"];
  return only === undefined ? both : [only];
}

function samples(): Record<ClientKind, number[]> {
  return { ours: [], sdk: [] };
}

const ECHO_ARGS: JsonObject = { text: "hello" };
const ECHO_PARAMS = '{"name":"echo","arguments":{"text":"hello"}}';
const READ_GRAPH_PARAMS = '{"name":"read_graph","arguments":{}}';

// ---- row 1: connect, initialize, list ----

async function connectOnce(kind: ClientKind, target: Target): Promise<number> {
  const started = now();
  const session = await open(kind, [target]);
  const tools = await session.listTools(0);
  const elapsed = now() - started;
  await session.close();
  if (tools === 0) throw new Error(`${target.name} listed no tools`);
  return elapsed;
}

/** What one worker costs, in wall and harness CPU time: booting, then spawning one child. */
type WorkerCost = { bootMs: number; bootCpuMs: number; spawnMs: number; spawnCpuMs: number };

/**
 * A worker that spawns one child (detached or not) and ends: the spawn's own
 * time, and the harness's CPU for the worker's whole life, minus an empty
 * worker's. The rows cannot lead by less than what these cost.
 */
async function spawnCost(detached: boolean, bootCpuMs: number): Promise<[number, number]> {
  const cpu = cpuMicros();
  const worker = new Worker(new URL("./_spawn_worker.ts", import.meta.url), { type: "module" });
  const spawnMs = await new Promise<number>((resolve) => {
    worker.onmessage = (event: MessageEvent<number>) => resolve(event.data);
    worker.postMessage({ detached });
  });
  worker.terminate();
  return [spawnMs, (cpuMicros() - cpu) / 1000 - bootCpuMs];
}

async function workerCosts(rounds: number): Promise<{ plain: WorkerCost; detached: WorkerCost }> {
  const boot: number[] = [];
  const bootCpu: number[] = [];
  const spawn = { plain: [] as number[], detached: [] as number[] };
  const spawnCpu = { plain: [] as number[], detached: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const cpu = cpuMicros();
    boot.push(await workerBoot());
    bootCpu.push((cpuMicros() - cpu) / 1000);
    const base = median(bootCpu);
    for (
      const kind of round % 2 === 0
        ? ["plain", "detached"] as const
        : ["detached", "plain"] as const
    ) {
      const [ms, cpuMs] = await spawnCost(kind === "detached", base);
      spawn[kind].push(ms);
      spawnCpu[kind].push(cpuMs);
    }
  }
  const cost = (kind: "plain" | "detached"): WorkerCost => ({
    bootMs: median(boot),
    bootCpuMs: median(bootCpu),
    spawnMs: median(spawn[kind]),
    spawnCpuMs: median(spawnCpu[kind]),
  });
  return { plain: cost("plain"), detached: cost("detached") };
}

/** One empty worker, from `new Worker` to its first answer: what a worker costs before any client code. */
async function workerBoot(): Promise<number> {
  const started = now();
  const { session } = await bareWorkers(1);
  const elapsed = now() - started;
  await session.close();
  return elapsed;
}

async function rowConnect(
  label: string,
  target: () => Target,
  rounds: number,
  only: ClientKind | undefined,
): Promise<Line> {
  const times = samples();
  const boots: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const kind of order(round, only)) times[kind].push(await connectOnce(kind, target()));
    boots.push(await workerBoot());
  }
  return {
    row: label,
    unit: "ms",
    ours: median(times.ours),
    sdk: median(times.sdk),
    workerFloor: median(boots),
  };
}

// ---- rows 2 and 6: a fleet of servers in a subprocess ----

type FleetKind = ClientKind | "workers" | "spawners";

/**
 * Workers and no client: empty ones, or ones that each spawn a server of
 * `targets` detached, as a client's worker spawns its server, and do nothing
 * more (what a worker per server costs at least when it owns its child).
 * Closing terminates them, which closes each server's stdin.
 */
async function bareWorkers(
  count: number,
  targets?: readonly Target[],
): Promise<{ session: Session; pids: number[] }> {
  const file = targets === undefined ? "./_empty_worker.ts" : "./_spawner_worker.ts";
  const url = new URL(file, import.meta.url);
  const workers = Array.from({ length: count }, () => new Worker(url, { type: "module" }));
  const pids = await Promise.all(
    workers.map((worker, index) =>
      new Promise<number>((resolve, reject) => {
        worker.onmessage = (event: MessageEvent<unknown>) => resolve(Number(event.data));
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(`A worker of the floor fleet failed: ${event.message}`));
        };
        const target = targets?.[index];
        worker.postMessage(
          target === undefined ? "start" : { command: target.command, args: target.args },
        );
      })
    ),
  );
  const spawned = targets === undefined ? [] : pids;
  const session: Session = {
    pids: spawned,
    listTools: () => Promise.resolve(0),
    call: () => Promise.resolve(0),
    close() {
      for (const worker of workers) worker.terminate();
      return Promise.resolve();
    },
  };
  return { session, pids: spawned };
}

async function fleetChild(kind: FleetKind, count: number): Promise<void> {
  const targets = Array.from({ length: count }, (_, index) => echoTarget(`echo${index}`));
  const baseKib = procStatusKib("VmRSS");
  const cpu = cpuMicros();
  const started = now();
  const session = kind === "workers" || kind === "spawners"
    ? (await bareWorkers(count, kind === "spawners" ? targets : undefined)).session
    : await open(kind, targets);
  const connectMs = now() - started;
  const connectCpuMs = (cpuMicros() - cpu) / 1000;
  const hwmKib = procStatusKib("VmHWM");
  const pids = session.pids;
  const closingCpu = cpuMicros();
  const closing = now();
  await session.close();
  await allGone(pids);
  const shutdownMs = now() - closing;
  // A terminated worker's isolate is torn down on its own thread after
  // `terminate` returns: its CPU belongs to the shutdown, so it is read once
  // every worker thread is gone, for every kind alike.
  await workerThreadsGone();
  const shutdownCpuMs = (cpuMicros() - closingCpu) / 1000;
  const report: FleetReport = {
    connectMs,
    shutdownMs,
    hwmKib,
    baseKib,
    connectCpuMs,
    shutdownCpuMs,
  };
  console.log(JSON.stringify(report));
}

/** The ids of this process's threads that are workers' (Deno names them `worker-<n>`). */
function workerThreads(): Set<string> {
  const ids = new Set<string>();
  for (const entry of Deno.readDirSync("/proc/self/task")) {
    try {
      const name = Deno.readTextFileSync(`/proc/self/task/${entry.name}/comm`);
      if (name.startsWith("worker-")) ids.add(entry.name);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ids;
}

/**
 * Resolves once every worker thread there is now has ended (Linux): named
 * once, then only listed every millisecond, so that the wait adds little
 * CPU of its own to what it measures.
 */
async function workerThreadsGone(limitMs = 10_000): Promise<void> {
  const until = now() + limitMs;
  const left = workerThreads();
  while (left.size > 0) {
    if (now() > until) throw new Error(`Worker threads still running after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const live = new Set<string>();
    for (const entry of Deno.readDirSync("/proc/self/task")) live.add(entry.name);
    for (const id of left) if (!live.has(id)) left.delete(id);
  }
}

/** Runs this script in a process of its own with `args`; returns the JSON of its last line. */
async function childReport<T>(args: string[], what: string): Promise<T> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", SELF, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) throw new Error(`The ${what} failed: ${text}`);
  return JSON.parse(text.slice(text.lastIndexOf("\n") + 1)) as T;
}

function fleetRun(kind: FleetKind, count: number): Promise<FleetReport> {
  return childReport(["--fleet", kind, String(count)], `${kind} fleet run`);
}

async function rowsFleet(
  rounds: number,
  count: number,
  only: ClientKind | undefined,
): Promise<Line[]> {
  const reports: Record<ClientKind, FleetReport[]> = { ours: [], sdk: [] };
  const workers: FleetReport[] = [];
  const spawners: FleetReport[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const kind of order(round, only)) reports[kind].push(await fleetRun(kind, count));
    workers.push(await fleetRun("workers", count));
    spawners.push(await fleetRun("spawners", count));
  }
  const worker = (key: keyof FleetReport) => median(workers.map((report) => report[key]));
  const spawner = (key: keyof FleetReport) => median(spawners.map((report) => report[key]));
  const pick = (kind: ClientKind, key: keyof FleetReport) =>
    median(reports[kind].map((report) => report[key]));
  return [
    {
      row: `2 connect ${count} servers in parallel`,
      unit: "ms",
      ours: pick("ours", "connectMs"),
      sdk: pick("sdk", "connectMs"),
      workerFloor: worker("connectMs"),
    },
    {
      row: `2 peak RSS, ${count} servers connected`,
      unit: "MiB",
      ours: pick("ours", "hwmKib") / 1024,
      sdk: pick("sdk", "hwmKib") / 1024,
      floor: pick(only ?? "sdk", "baseKib") / 1024,
      workerFloor: worker("hwmKib") / 1024,
    },
    {
      row: `2 harness CPU while connecting ${count}`,
      unit: "ms",
      ours: pick("ours", "connectCpuMs"),
      sdk: pick("sdk", "connectCpuMs"),
      floor: spawner("connectCpuMs"),
      workerFloor: worker("connectCpuMs"),
    },
    {
      row: `6 shutdown ${count} servers, all exited`,
      unit: "ms",
      ours: pick("ours", "shutdownMs"),
      sdk: pick("sdk", "shutdownMs"),
    },
    {
      row: `6 harness CPU while shutting down ${count}`,
      unit: "ms",
      ours: pick("ours", "shutdownCpuMs"),
      sdk: pick("sdk", "shutdownCpuMs"),
      workerFloor: worker("shutdownCpuMs"),
    },
  ];
}

// ---- rows 3 to 5: calls on one connected server ----

/** CPU time of this process so far (every thread: the main one, workers, the runtime's), in µs. */
function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Runs `count` calls one after another; returns the CPU time this process spent on them, in µs. */
async function sequential(
  call: () => Promise<number>,
  count: number,
  into: number[],
): Promise<number> {
  const cpu = cpuMicros();
  for (let index = 0; index < count; index++) {
    const started = now();
    await call();
    into.push((now() - started) * 1000);
  }
  return cpuMicros() - cpu;
}

async function throughput(call: () => Promise<number>, count: number): Promise<number> {
  let issued = 0;
  const lane = async () => {
    while (issued < count) {
      issued++;
      await call();
    }
  };
  const started = now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return count / ((now() - started) / 1000);
}

type Callers = Record<ClientKind, () => Promise<number>>;

async function rowsCalls(
  prefix: string,
  callers: Partial<Callers>,
  floors: { pipe: () => Promise<number>; worker: () => Promise<number> },
  plan: { calls: number; blocks: number; throughputCalls: number; throughputRounds: number },
  only: ClientKind | undefined,
): Promise<Line[]> {
  const latency = samples();
  const floorLatency: number[] = [];
  const workerLatency: number[] = [];
  const cpu = { ours: 0, sdk: 0, floor: 0, worker: 0 };
  const rates = samples();
  const floorRates: number[] = [];
  const workerRates: number[] = [];
  // Every caller, clients and floors, each block in a turn that moves one
  // place per block, so that none always runs first or last.
  type Turn = {
    call: () => Promise<number>;
    cpu: keyof typeof cpu;
    latency: number[];
    rates: number[];
  };
  const turns: Turn[] = [];
  for (const kind of order(0, only)) {
    const call = callers[kind];
    if (call !== undefined) {
      turns.push({ call, cpu: kind, latency: latency[kind], rates: rates[kind] });
    }
  }
  turns.push({ call: floors.pipe, cpu: "floor", latency: floorLatency, rates: floorRates });
  turns.push({ call: floors.worker, cpu: "worker", latency: workerLatency, rates: workerRates });
  const rotated = (block: number) =>
    turns.map((_, index) => turns[(index + block) % turns.length] as Turn);
  const perBlock = Math.ceil(plan.calls / plan.blocks);
  for (let block = 0; block < plan.blocks; block++) {
    for (const turn of rotated(block)) {
      cpu[turn.cpu] += await sequential(turn.call, perBlock, turn.latency);
    }
  }
  const calls = perBlock * plan.blocks;
  for (let round = 0; round < plan.throughputRounds; round++) {
    for (const turn of rotated(round)) {
      turn.rates.push(await throughput(turn.call, plan.throughputCalls));
    }
  }
  return [
    {
      row: `3 ${prefix} round trip, median`,
      unit: "µs",
      ours: median(latency.ours),
      sdk: median(latency.sdk),
      floor: median(floorLatency),
      workerFloor: median(workerLatency),
    },
    {
      row: `3 ${prefix} round trip, p99`,
      unit: "µs",
      ours: quantile(latency.ours, 0.99),
      sdk: quantile(latency.sdk, 0.99),
      floor: quantile(floorLatency, 0.99),
      workerFloor: quantile(workerLatency, 0.99),
    },
    {
      row: `3 ${prefix} CPU per sequential call`,
      unit: "µs",
      ours: cpu.ours / calls,
      sdk: cpu.sdk / calls,
      floor: cpu.floor / calls,
      workerFloor: cpu.worker / calls,
    },
    {
      row: `4 ${prefix} ${IN_FLIGHT} in flight`,
      unit: "calls/s",
      ours: median(rates.ours),
      sdk: median(rates.sdk),
      higherIsBetter: true,
      floor: median(floorRates),
      workerFloor: median(workerRates),
    },
  ];
}

/** Rounds of row 5 each process runs first, uncounted. */
const BIG_WARMUP = 3;

/** What one client's subprocess measured for row 5, with the pipe floor beside it. */
type BigReport = { result: number[]; args: number[]; floorResult: number[]; floorArgs: number[] };

/**
 * Row 5 for one client, in a process of its own (`--big <kind> <rounds>`):
 * a client's 8 MiB strings are garbage its own heap must collect, and the
 * official client leaves gigabytes of it per call, which a client sharing
 * its heap would be billed for. The pipe floor runs beside it, alternating.
 */
async function bigChild(kind: ClientKind, rounds: number): Promise<void> {
  const session = await open(kind, [echoTarget(kind)]);
  const pipe = new Pipe(echoTarget("pipe"));
  await pipe.initialize();
  const pad = "x".repeat(8 * MIB);
  // `add` ignores the extra key and answers a short sum, so only the
  // arguments are large; echo would send them back (past the line cap).
  const bigArgs: JsonObject = { a: 1, b: 2, pad };
  const bigArgsLine = new TextEncoder().encode(
    `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":` +
      `{"name":"add","arguments":{"a":1,"b":2,"pad":"${pad}"}}}\n`,
  );
  const bigResultParams = `{"name":"big","arguments":{"bytes":${8 * MIB}}}`;
  const report: BigReport = { result: [], args: [], floorResult: [], floorArgs: [] };
  const time = async (run: () => Promise<number>, into: number[] | undefined, expect?: number) => {
    const started = now();
    const got = await run();
    into?.push(now() - started);
    if (expect !== undefined && got !== expect) {
      throw new Error(`Expected ${expect} characters, got ${got}`);
    }
  };
  try {
    // The first rounds warm both up (a client's first 8 MiB answers run
    // unoptimized code into a heap not yet grown) and are not counted.
    for (let round = 0; round < BIG_WARMUP + rounds; round++) {
      const keep = (into: number[]) => round < BIG_WARMUP ? undefined : into;
      await time(() => session.call(0, "big", { bytes: 8 * MIB }), keep(report.result), 8 * MIB);
      await time(() => session.call(0, "add", bigArgs), keep(report.args), 1);
      await time(() => pipe.request("tools/call", bigResultParams), keep(report.floorResult));
      await time(() => pipe.send(bigArgsLine), keep(report.floorArgs));
    }
  } finally {
    await session.close();
    await pipe.close();
  }
  console.log(JSON.stringify(report));
}

function bigRun(kind: ClientKind, rounds: number): Promise<BigReport> {
  return childReport(["--big", kind, String(rounds)], `${kind} run of row 5`);
}

async function rowsBig(plan: Plan, only: ClientKind | undefined): Promise<Line[]> {
  const result = samples();
  const args = samples();
  const floorResult: number[] = [];
  const floorArgs: number[] = [];
  for (const kind of order(0, only)) {
    const report = await bigRun(kind, kind === "sdk" ? plan.sdkBigRounds : plan.bigRounds);
    result[kind].push(...report.result);
    args[kind].push(...report.args);
    floorResult.push(...report.floorResult);
    floorArgs.push(...report.floorArgs);
  }
  return [
    {
      row: "5 one 8 MiB text result",
      unit: "ms",
      ours: median(result.ours),
      sdk: median(result.sdk),
      floor: median(floorResult),
    },
    {
      row: "5 one call with 8 MiB arguments",
      unit: "ms",
      ours: median(args.ours),
      sdk: median(args.sdk),
      floor: median(floorArgs),
    },
  ];
}

// ---- the table ----

function figure(value: number | undefined, unit: string): string {
  if (value === undefined || Number.isNaN(value)) return "-";
  if (unit === "calls/s") return Math.round(value).toLocaleString("en-US");
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function table(lines: readonly Line[]): string {
  const head = ["row", "unit", "ours", "SDK", "ours/SDK", "floor", "worker floor"];
  const body = lines.map((line) => {
    const ratio = line.ours / line.sdk;
    const leads = line.higherIsBetter === true ? ratio >= 1 : ratio <= 1;
    return [
      line.row,
      line.unit,
      figure(line.ours, line.unit),
      figure(line.sdk, line.unit),
      Number.isFinite(ratio) ? `${ratio.toFixed(2)}${leads ? "" : " !"}` : "-",
      figure(line.floor, line.unit),
      figure(line.workerFloor, line.unit),
    ];
  });
  const widths = head.map((cell, column) =>
    Math.max(cell.length, ...body.map((row) => (row[column] ?? "").length))
  );
  const render = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [
    render(head),
    render(widths.map((width) => "-".repeat(width))),
    ...body.map(render),
  ].join("\n");
}

/** One figure of the client's hot path against its floor, and the bound it should keep. */
type Bound = {
  name: string;
  /** The row's name, up to its count of servers. */
  row: string;
  /** The figure: ours against the floor the target names. */
  ratio: (line: Line) => number | undefined;
  bound: number;
  atLeast?: boolean;
};

const BOUNDS: readonly Bound[] = [
  {
    name: "64 in flight / worker floor",
    row: "4 echo 64 in flight",
    ratio: (line) => line.workerFloor && line.ours / line.workerFloor,
    bound: 0.8,
    atLeast: true,
  },
  {
    name: "sequential median / worker floor",
    row: "3 echo round trip, median",
    ratio: (line) => line.workerFloor && line.ours / line.workerFloor,
    bound: 1.1,
  },
  {
    name: "8 MiB result / pipe floor",
    row: "5 one 8 MiB text result",
    ratio: (line) => line.floor && line.ours / line.floor,
    bound: 1.3,
  },
  {
    name: "connect CPU / empty workers",
    row: "2 harness CPU while connecting",
    ratio: (line) => line.workerFloor && line.ours / line.workerFloor,
    bound: 1.3,
  },
  {
    name: "shutdown CPU / SDK",
    row: "6 harness CPU while shutting down",
    ratio: (line) => line.ours / line.sdk,
    bound: 3,
  },
];

/** The hot path's ratios in this run, each against its bound; rows not run are left out. */
function bounds(lines: readonly Line[]): string {
  const out: string[] = [];
  for (const bound of BOUNDS) {
    const line = lines.find((candidate) => candidate.row.startsWith(bound.row));
    const ratio = line === undefined ? undefined : bound.ratio(line);
    if (ratio === undefined || !Number.isFinite(ratio)) continue;
    const met = bound.atLeast === true ? ratio >= bound.bound : ratio <= bound.bound;
    const limit = `${bound.atLeast === true ? "≥" : "≤"} ${bound.bound}`;
    out.push(`${bound.name} ${ratio.toFixed(2)} (${limit}${met ? "" : ", not met"})`);
  }
  return out.length === 0 ? "" : `\nhot path, ratios in this run: ${out.join("; ")}`;
}

/**
 * What the design's least costs against rows 2 and 6's bounds, in this run:
 * sixteen workers that do nothing but spawn their servers detached, against
 * sixteen empty ones; and tearing down sixteen empty workers, against the
 * SDK's whole shutdown. A bound below its least is out of reach of any
 * client with a worker per server that owns its child.
 */
function ceilings(lines: readonly Line[]): string {
  const out: string[] = [];
  const connect = lines.find((line) => line.row.startsWith("2 harness CPU"));
  if (connect?.floor !== undefined && connect.workerFloor !== undefined) {
    out.push(
      `workers that only spawn their servers detached: ${
        (connect.floor / connect.workerFloor).toFixed(2)
      }× empty workers' CPU (row 2's bound: 1.3)`,
    );
  }
  const shutdown = lines.find((line) => line.row.startsWith("6 harness CPU"));
  if (shutdown?.workerFloor !== undefined && shutdown.sdk > 0) {
    out.push(
      `tearing down one empty worker per server: ${
        (shutdown.workerFloor / shutdown.sdk).toFixed(2)
      }× the SDK's whole shutdown (row 6's bound: 3)`,
    );
  }
  return out.length === 0 ? "" : `\nthe design's least, in this run: ${out.join("; ")}`;
}

async function main(): Promise<void> {
  const quick = Deno.args.includes("--quick");
  const plan = quick ? QUICK : FULL;
  const onlyFlag = flag("--only");
  if (onlyFlag !== undefined && onlyFlag !== "ours" && onlyFlag !== "sdk") {
    throw new TypeError(`Cannot run only ${JSON.stringify(onlyFlag)}: say "ours" or "sdk"`);
  }
  const only = onlyFlag as ClientKind | undefined;
  const rows = new Set((flag("--rows") ?? "1,2,3,4,5,6").split(","));
  const dir = await Deno.makeTempDir({ prefix: "sdk_bench_" });
  const lines: Line[] = [];
  let costs: { plain: WorkerCost; detached: WorkerCost } | undefined;
  const say = (text: string) => console.error(`[sdk_bench] ${text}`);
  const started = now();
  try {
    if (rows.has("1")) {
      say("row 1: connect + initialize + tools/list");
      lines.push(
        await rowConnect(
          "1 connect+list, echo",
          () => echoTarget("echo"),
          plan.connectRounds,
          only,
        ),
      );
      let serial = 0;
      lines.push(
        await rowConnect(
          "1 connect+list, memory",
          () => memoryTarget(`memory${serial++}`, dir),
          plan.memoryConnectRounds,
          only,
        ),
      );
    }
    if (rows.has("1") || rows.has("2")) {
      say("what one worker costs: boot, spawn detached or not");
      costs = await workerCosts(plan.connectRounds);
    }
    if (rows.has("2") || rows.has("6")) {
      const count = quick ? QUICK_FLEET : FLEET;
      say(`rows 2 and 6: ${count} servers, one subprocess per client and round`);
      lines.push(...await rowsFleet(plan.fleetRounds, count, only));
    }
    if (rows.has("3") || rows.has("4") || rows.has("5")) {
      say("rows 3 to 5: calls to the echo server");
      const sessions: Partial<Record<ClientKind, Session>> = {};
      const pipe = new Pipe(echoTarget("pipe"));
      const workerPipe = await WorkerPipe.open(echoTarget("worker_pipe"));
      try {
        for (const kind of order(0, only)) sessions[kind] = await open(kind, [echoTarget(kind)]);
        await pipe.initialize();
        const callers: Partial<Callers> = {};
        for (const kind of order(0, only)) {
          const session = sessions[kind];
          if (session !== undefined) callers[kind] = () => session.call(0, "echo", ECHO_ARGS);
        }
        const floors = {
          pipe: () => pipe.request("tools/call", ECHO_PARAMS),
          worker: () => workerPipe.request(ECHO_PARAMS),
        };
        for (const call of [...Object.values(callers), floors.pipe, floors.worker]) {
          for (let index = 0; index < plan.warmup; index++) await call();
        }
        if (rows.has("3") || rows.has("4")) {
          lines.push(
            ...await rowsCalls("echo", callers, floors, {
              calls: plan.sequentialCalls,
              blocks: plan.sequentialBlocks,
              throughputCalls: plan.throughputCalls,
              throughputRounds: plan.throughputRounds,
            }, only),
          );
        }
        if (rows.has("5")) lines.push(...await rowsBig(plan, only));
      } finally {
        for (const session of Object.values(sessions)) await session.close();
        await pipe.close();
        await workerPipe.close();
      }
      say("rows 3 and 4: calls to the memory server");
      const memory: Partial<Record<ClientKind, Session>> = {};
      const memoryPipe = new Pipe(memoryTarget("memory_pipe", dir));
      const memoryWorkerPipe = await WorkerPipe.open(memoryTarget("memory_worker_pipe", dir));
      try {
        for (const kind of order(0, only)) {
          memory[kind] = await open(kind, [memoryTarget(`memory_${kind}`, dir)]);
        }
        await memoryPipe.initialize();
        const callers: Partial<Callers> = {};
        for (const kind of order(0, only)) {
          const session = memory[kind];
          if (session !== undefined) callers[kind] = () => session.call(0, "read_graph", {});
        }
        const floors = {
          pipe: () => memoryPipe.request("tools/call", READ_GRAPH_PARAMS),
          worker: () => memoryWorkerPipe.request(READ_GRAPH_PARAMS),
        };
        for (const call of [...Object.values(callers), floors.pipe, floors.worker]) {
          for (let index = 0; index < plan.memoryWarmup; index++) await call();
        }
        if (rows.has("3") || rows.has("4")) {
          lines.push(
            ...await rowsCalls("memory", callers, floors, {
              calls: plan.memoryCalls,
              blocks: plan.sequentialBlocks,
              throughputCalls: plan.throughputCalls / 2,
              throughputRounds: plan.throughputRounds,
            }, only),
          );
        }
      } finally {
        for (const session of Object.values(memory)) await session.close();
        await memoryPipe.close();
        await memoryWorkerPipe.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const seconds = ((now() - started) / 1000).toFixed(0);
  console.log(table(lines));
  const hot = bounds(lines);
  if (hot !== "") console.log(hot);
  const least = ceilings(lines);
  if (least !== "") console.log(least);
  if (costs !== undefined) {
    const { plain, detached } = costs;
    const ms = (value: number) => value.toFixed(1);
    console.log(
      `\nwhat one worker costs (medians): boot ${ms(plain.bootMs)} ms wall, ` +
        `${ms(plain.bootCpuMs)} ms CPU; spawning one child from it: detached ` +
        `${ms(detached.spawnMs)} ms wall, ${ms(detached.spawnCpuMs)} ms CPU; not detached ` +
        `${ms(plain.spawnMs)} ms wall, ${ms(plain.spawnCpuMs)} ms CPU`,
    );
  }
  console.log(
    `\nmedians; ratio ours/SDK (" !" where ours does not lead); ` +
      `floor: a bare pipe (row 2: the harness's RSS before connecting, and one worker ` +
      `per server that only spawns its server detached); ` +
      `worker floor: the same behind one worker hop (row 1: one empty worker's boot; ` +
      `rows 2 and 6: one empty worker per server, no server, started and terminated); ` +
      `CPU: this process's, every thread (servers not counted; row 6 until every ` +
      `worker thread has ended); ` +
      `${quick ? "--quick, " : ""}${seconds} s`,
  );
}

if (import.meta.main) {
  const fleet = flag("--fleet");
  const big = flag("--big");
  if (big === "ours" || big === "sdk") {
    await bigChild(big, Number(Deno.args[Deno.args.indexOf("--big") + 2] ?? 3));
  } else if (fleet === "ours" || fleet === "sdk" || fleet === "workers" || fleet === "spawners") {
    const count = Number(Deno.args[Deno.args.indexOf("--fleet") + 2] ?? FLEET);
    await fleetChild(fleet, count);
  } else {
    await main();
  }
}
