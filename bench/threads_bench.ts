// Our client against the worker floor on the echo fixture, alternating in
// one process, with the CPU each thread of this process spent per call
// (read from /proc/self/task/*/schedstat, in nanoseconds, so Linux only): where a call's cost
// lands, main thread, client worker or the runtime's garbage collector.
//
//   deno run -A bench/threads_bench.ts [seq|flight] [rounds]
//
// seq: blocks of 2,000 sequential calls; flight: rounds of 20,000 calls with
// 64 in flight. Every caller first runs as many calls uncounted.

import { echoTarget, median, openOurs, WorkerPipe } from "./_mcp_clients.ts";

const mode = Deno.args[0] === "flight" ? "flight" : "seq";
const rounds = Number(Deno.args[1] ?? 5);
const CALLS = mode === "seq" ? 2_000 : 20_000;
const IN_FLIGHT = 64;
const ECHO_PARAMS = '{"name":"echo","arguments":{"text":"hello"}}';
/** CPU of each thread of this process so far, in µs, by "name#tid" (schedstat: nanoseconds). */
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of Deno.readDirSync("/proc/self/task")) {
    try {
      const task = `/proc/self/task/${entry.name}`;
      const name = Deno.readTextFileSync(`${task}/comm`).trim();
      const ran = Number(Deno.readTextFileSync(`${task}/schedstat`).split(" ")[0]);
      out.set(`${name}#${entry.name}`, ran / 1000);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Which role a thread plays, by its id and name. */
function role(key: string): string {
  const cut = key.indexOf("#");
  const name = key.slice(0, cut);
  // The main thread's id is the process's (its name is the command's, which
  // `deno bench` sets otherwise).
  if (key.slice(cut + 1) === String(Deno.pid)) return "main";
  if (name.startsWith("worker-")) return "worker";
  if (name.startsWith("V8 ")) return "gc/platform";
  return "other";
}

async function run(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  if (mode === "seq") {
    const times: number[] = [];
    for (let index = 0; index < CALLS; index++) {
      const at = performance.now();
      await call();
      times.push((performance.now() - at) * 1000);
    }
    return median(times);
  }
  let issued = 0;
  const lane = async () => {
    while (issued < CALLS) {
      issued++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return CALLS / ((performance.now() - started) / 1000);
}

const ours = await openOurs([echoTarget("ours")]);
const floor = await WorkerPipe.open(echoTarget("floor"));
const callers: [string, () => Promise<unknown>][] = [
  ["ours", () => ours.call(0, "echo", { text: "hello" })],
  ["worker floor", () => floor.request(ECHO_PARAMS)],
];
try {
  for (const [, call] of callers) await run(call);
  const figures = new Map<string, number[]>();
  const cpu = new Map<string, Map<string, number[]>>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of round % 2 === 0 ? callers : [...callers].reverse()) {
      const before = threads();
      figures.set(name, [...figures.get(name) ?? [], await run(call)]);
      const roles = new Map<string, number>();
      for (const [key, spent] of threads()) {
        const used = spent - (before.get(key) ?? 0);
        roles.set(role(key), (roles.get(role(key)) ?? 0) + used / CALLS);
      }
      const mine = cpu.get(name) ?? new Map<string, number[]>();
      for (const [key, value] of roles) mine.set(key, [...mine.get(key) ?? [], value]);
      cpu.set(name, mine);
    }
  }
  const unit = mode === "seq" ? "µs median round trip" : "calls/s";
  for (const [name] of callers) {
    const parts = [...cpu.get(name) ?? []].map(([key, values]) =>
      `${key} ${median(values).toFixed(1)}`
    );
    console.log(
      `${name}: ${median(figures.get(name) ?? []).toFixed(0)} ${unit}; ` +
        `CPU µs per call by thread: ${parts.join(", ")}`,
    );
  }
  const ratio = median(figures.get("ours") ?? []) / median(figures.get("worker floor") ?? []);
  console.log(`ours / worker floor: ${ratio.toFixed(2)} (${mode}, ${rounds} rounds alternating)`);
} finally {
  await ours.close();
  await floor.close();
}
