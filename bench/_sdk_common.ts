// Private to the SDK bench (`sdk_bench.ts`): its plans, the shape of a printed line,
// the helpers every row uses, and how it runs itself in a subprocess.

import type { ClientKind } from "./_mcp_clients.ts";
import type { JsonObject } from "../codec/json.ts";
import process from "node:process";
/** The bench script, which runs itself in subprocesses for rows 2, 5 and 6. */
export const SELF = new URL("./sdk_bench.ts", import.meta.url).pathname;
export const MIB = 1024 * 1024;
export const FLEET = 16;
export const QUICK_FLEET = 4;
export const IN_FLIGHT = 64;

export type Plan = {
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

export const FULL: Plan = {
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

export const QUICK: Plan = {
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
export type Line = {
  row: string;
  unit: string;
  ours: number;
  sdk: number;
  floor?: number;
  /** What any worker-hosted client spends at least: the same work behind one worker hop. */
  workerFloor?: number;
  /** What any client that hands back the answer as a value spends at least: the floor, parsing. */
  parsedFloor?: number;
  higherIsBetter?: boolean;
};

export type FleetReport = {
  connectMs: number;
  shutdownMs: number;
  hwmKib: number;
  baseKib: number;
  /** CPU time of the harness process (every thread) while connecting, in ms. */
  connectCpuMs: number;
  /** The same while shutting down. */
  shutdownCpuMs: number;
};

export function flag(name: string): string | undefined {
  const index = Deno.args.indexOf(name);
  return index === -1 ? undefined : Deno.args[index + 1];
}

export function now(): number {
  return performance.now();
}

/** Both kinds, the first alternating by round. */
export function order(round: number, only: ClientKind | undefined): ClientKind[] {
  const both: ClientKind[] = round % 2 === 0 ? ["ours", "sdk"] : ["sdk", "ours"];
  return only === undefined ? both : [only];
}

export function samples(): Record<ClientKind, number[]> {
  return { ours: [], sdk: [] };
}

export const ECHO_ARGS: JsonObject = { text: "hello" };
export const ECHO_PARAMS = '{"name":"echo","arguments":{"text":"hello"}}';
export const READ_GRAPH_PARAMS = '{"name":"read_graph","arguments":{}}';

/** Runs this script in a process of its own with `args`; returns the JSON of its last line. */
export async function childReport<T>(args: string[], what: string): Promise<T> {
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

/** CPU time of this process so far (every thread: the main one, workers, the runtime's), in µs. */
export function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}
