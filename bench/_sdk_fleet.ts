// Private to the SDK bench (`sdk_bench.ts`): rows 2 and 6, a fleet of servers
// connected and shut down by each client in a subprocess of its own, beside
// bare workers that do nothing or only spawn.

import {
  allGone,
  type ClientKind,
  echoTarget,
  median,
  open,
  procStatusKib,
  type Session,
  type Target,
} from "./_mcp_clients.ts";
import { childReport, cpuMicros, type FleetReport, type Line, now, order } from "./_sdk_common.ts";

export type FleetKind = ClientKind | "workers" | "spawners";

/**
 * Workers and no client: empty ones, or ones that each spawn a server of
 * `targets` detached, as a client's worker spawns its server, and do nothing
 * more (what a worker per server costs at least when it owns its child).
 * Closing terminates them, which closes each server's stdin.
 */
export async function bareWorkers(
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

export async function fleetChild(kind: FleetKind, count: number): Promise<void> {
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
export function workerThreads(): Set<string> {
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
export async function workerThreadsGone(limitMs = 10_000): Promise<void> {
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

export function fleetRun(kind: FleetKind, count: number): Promise<FleetReport> {
  return childReport(["--fleet", kind, String(count)], `${kind} fleet run`);
}

export async function rowsFleet(
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
