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
  type ClientKind,
  echoTarget,
  median,
  memoryTarget,
  open,
  Pipe,
  type Session,
  type Target,
  WorkerPipe,
} from "./_mcp_clients.ts";
import {
  cpuMicros,
  ECHO_ARGS,
  ECHO_PARAMS,
  flag,
  FLEET,
  FULL,
  type Line,
  now,
  order,
  QUICK,
  QUICK_FLEET,
  READ_GRAPH_PARAMS,
  samples,
} from "./_sdk_common.ts";
import { bareWorkers, fleetChild, rowsFleet } from "./_sdk_fleet.ts";
import { bigChild, type Callers, rowsBig, rowsCalls } from "./_sdk_calls.ts";
import { bounds, ceilings, table } from "./_sdk_table.ts";

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
