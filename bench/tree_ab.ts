// Two checkouts of this library against each other and the worker floor, in
// one process, alternating which goes first: how a change to the hot path
// is measured on a machine whose load moves absolute figures by 2x.
//
//   deno run -A bench/tree_ab.ts <checkout A> <checkout B> [blocks] [rounds] [big]
//
// Each checkout is loaded from its own folder (its client, its worker bundle,
// its echo fixture), so run `deno task generate` in both first. Prints, per
// checkout and for the worker floor (bench/_mcp_clients.ts), medians of
// the sequential round trip (blocks of 250 calls), of 64 calls kept in flight
// (rounds of 4,000) and of one 8 MiB result (big rounds, against the pipe
// floor), with the CPU time of this process per call.

import process from "node:process";
import { echoTarget, median, Pipe, WorkerPipe } from "./_mcp_clients.ts";

const [treeA, treeB, blocksText = "6", roundsText = "5", bigText = "6"] = Deno.args;
if (treeA === undefined || treeB === undefined) {
  throw new TypeError("Cannot compare: name two checkouts, e.g. /work/main /work/wt/mine");
}
const MIB = 1024 * 1024;
const ECHO = '{"name":"echo","arguments":{"text":"hello"}}';
const BIG = `{"name":"big","arguments":{"bytes":${8 * MIB}}}`;

type Caller = { echo: () => Promise<unknown>; big: () => Promise<unknown>; close(): Promise<void> };

async function checkout(root: string, name: string): Promise<Caller> {
  const url = new URL(`${root.replace(/\/$/, "")}/client/census.ts`, "file:///");
  const { Census } = await import(url.href);
  const census = Census.prepare([{
    name,
    command: Deno.execPath(),
    args: ["run", "--no-lock", `${root}/tests/fixtures/echo_server.ts`],
    env: {},
    inheritEnv: [],
    stderr: "tail",
  }]);
  await census.connectAll();
  const client = census.clients.get(name);
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await client.callTool(tool, args);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
  };
  return {
    echo: () => call("echo", { text: "hello" }),
    big: () => call("big", { bytes: 8 * MIB }),
    close: async () => void await census.retire(),
  };
}

function cpu(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

const a = await checkout(treeA, "a");
const b = await checkout(treeB, "b");
const floor = await WorkerPipe.open(echoTarget("worker_floor"));
const pipe = new Pipe(echoTarget("pipe_floor"));
await pipe.initialize();
const echo: Record<string, () => Promise<unknown>> = {
  A: a.echo,
  B: b.echo,
  floor: () => floor.request(ECHO),
};
const big: Record<string, () => Promise<unknown>> = {
  A: a.big,
  B: b.big,
  floor: () => pipe.request("tools/call", BIG),
};
const names = ["A", "B", "floor"];
const turn = (index: number) => index % 2 === 0 ? names : [...names].reverse();
const figures: Record<string, Record<string, number[]>> = {};
const add = (what: string, name: string, value: number) => {
  ((figures[what] ??= {})[name] ??= []).push(value);
};
for (const name of names) for (let index = 0; index < 300; index++) await echo[name]?.();
for (let block = 0; block < Number(blocksText); block++) {
  for (const name of turn(block)) {
    const started = cpu();
    for (let index = 0; index < 250; index++) {
      const at = performance.now();
      await echo[name]?.();
      add("sequential round trip, µs", name, (performance.now() - at) * 1000);
    }
    add("sequential CPU per call, µs", name, (cpu() - started) / 250);
  }
}
for (let round = 0; round < Number(roundsText); round++) {
  for (const name of turn(round)) {
    let issued = 0;
    const lane = async () => {
      while (issued < 4_000) {
        issued++;
        await echo[name]?.();
      }
    };
    const started = cpu();
    const at = performance.now();
    await Promise.all(Array.from({ length: 64 }, lane));
    add("64 in flight, calls/s", name, 4_000 / ((performance.now() - at) / 1000));
    add("64 in flight CPU per call, µs", name, (cpu() - started) / 4_000);
  }
}
for (let round = 0; round < Number(bigText); round++) {
  for (const name of turn(round)) {
    const at = performance.now();
    await big[name]?.();
    add("one 8 MiB result, ms (floor: the bare pipe)", name, performance.now() - at);
  }
}
await a.close();
await b.close();
await floor.close();
await pipe.close();
for (const [what, byName] of Object.entries(figures)) {
  const m = (name: string) => median(byName[name] ?? []);
  const ratio = (name: string) => (m(name) / m("floor")).toFixed(2);
  console.log(
    `${what}: A ${m("A").toFixed(1)}, B ${m("B").toFixed(1)}, floor ${m("floor").toFixed(1)}; ` +
      `A/floor ${ratio("A")}, B/floor ${ratio("B")}`,
  );
}
