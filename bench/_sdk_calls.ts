// Private to the SDK bench (`sdk_bench.ts`): rows 3 to 5, calls on one connected
// server (sequential, in flight, one 8 MiB result in a subprocess of its own).

import { type ClientKind, echoTarget, median, open, Pipe, quantile } from "./_mcp_clients.ts";
import type { JsonObject } from "../codec/json.ts";
import {
  childReport,
  cpuMicros,
  IN_FLIGHT,
  type Line,
  MIB,
  now,
  order,
  type Plan,
  samples,
} from "./_sdk_common.ts";

/** Runs `count` calls one after another; returns the CPU time this process spent on them, in µs. */
export async function sequential(
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

export async function throughput(call: () => Promise<number>, count: number): Promise<number> {
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

export type Callers = Record<ClientKind, () => Promise<number>>;

export async function rowsCalls(
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
export const BIG_WARMUP = 3;

/** What one client's subprocess measured for row 5, with the pipe floor beside it. */
export type BigReport = {
  result: number[];
  args: number[];
  floorResult: number[];
  floorArgs: number[];
  /** The pipe floor's result, kept, decoded and parsed as any client must. */
  parsedResult: number[];
};

/**
 * Row 5 for one client, in a process of its own (`--big <kind> <rounds>`):
 * a client's 8 MiB strings are garbage its own heap must collect, and the
 * official client leaves gigabytes of it per call, which a client sharing
 * its heap would be billed for. The pipe floor runs beside it, alternating.
 */
export async function bigChild(kind: ClientKind, rounds: number): Promise<void> {
  const session = await open(kind, [echoTarget(kind)]);
  const pipe = new Pipe(echoTarget("pipe"));
  await pipe.initialize();
  const parsing = new Pipe(echoTarget("pipe"), { parse: true });
  await parsing.initialize();
  const pad = "x".repeat(8 * MIB);
  // `add` ignores the extra key and answers a short sum, so only the
  // arguments are large; echo would send them back (past the line cap).
  const bigArgs: JsonObject = { a: 1, b: 2, pad };
  const bigArgsLine = new TextEncoder().encode(
    `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":` +
      `{"name":"add","arguments":{"a":1,"b":2,"pad":"${pad}"}}}\n`,
  );
  const bigResultParams = `{"name":"big","arguments":{"bytes":${8 * MIB}}}`;
  const report: BigReport = {
    result: [],
    args: [],
    floorResult: [],
    floorArgs: [],
    parsedResult: [],
  };
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
      await time(() => parsing.request("tools/call", bigResultParams), keep(report.parsedResult));
    }
  } finally {
    await session.close();
    await pipe.close();
    await parsing.close();
  }
  console.log(JSON.stringify(report));
}

export function bigRun(kind: ClientKind, rounds: number): Promise<BigReport> {
  return childReport(["--big", kind, String(rounds)], `${kind} run of row 5`);
}

export async function rowsBig(plan: Plan, only: ClientKind | undefined): Promise<Line[]> {
  const result = samples();
  const args = samples();
  const floorResult: number[] = [];
  const floorArgs: number[] = [];
  const parsedResult: number[] = [];
  for (const kind of order(0, only)) {
    const report = await bigRun(kind, kind === "sdk" ? plan.sdkBigRounds : plan.bigRounds);
    result[kind].push(...report.result);
    args[kind].push(...report.args);
    floorResult.push(...report.floorResult);
    floorArgs.push(...report.floorArgs);
    parsedResult.push(...report.parsedResult);
  }
  return [
    {
      row: "5 one 8 MiB text result",
      unit: "ms",
      ours: median(result.ours),
      sdk: median(result.sdk),
      floor: median(floorResult),
      parsedFloor: median(parsedResult),
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
