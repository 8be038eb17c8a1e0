/**
 * Figures of the worker-hosted client against the echo fixture server:
 * tools/call round trip through the worker (and, for scale, the same state
 * machine on the main thread with no worker), calls per second with 64 in
 * flight, 16 servers connecting in parallel against the slowest single
 * start, one retirement against the server's own exit once its stdin
 * closes, and resident memory added per connected client.
 *
 * Run: deno run -A bench/client_bench.ts
 * (Under `deno bench` only the round trip is registered, as a Deno.bench.)
 */

import { Census } from "../client/census.ts";
import { Client } from "../client/client.ts";
import type { ResolvedStdioSpec } from "../settings/mod.ts";
import { drainGroup, signalGroup } from "../client/custody/process_group.ts";
import { CommandTransport } from "../client/transport/stdio/command_transport.ts";
import { ClientMachine } from "../client/worker/machine.ts";
import { callParams } from "../client/_checks.ts";
import { decodeCallResult } from "../client/_results.ts";
import { childEnv } from "../client/_worker_launch.ts";

const ECHO = new URL("../tests/fixtures/echo_server.ts", import.meta.url).pathname;
const ROUND_TRIPS = 3_000;
const IN_FLIGHT = 64;
const PIPELINED = 30_000;
const SERVERS = 16;
const SINGLES = 16;

function spec(name: string): ResolvedStdioSpec {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "--quiet", "--no-lock", ECHO],
    env: {},
    inheritEnv: ["DENO_DIR"],
    stderr: "tail",
  };
}

type Caller = (i: number) => Promise<{ ok: boolean }>;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
}

async function roundTrips(call: Caller): Promise<number[]> {
  for (let i = 0; i < 300; i++) await call(i);
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const start = performance.now();
    const result = await call(i);
    times.push(performance.now() - start);
    if (!result.ok) throw new Error("A call failed during the benchmark");
  }
  return times;
}

async function pipelined(call: Caller): Promise<number> {
  let next = 0;
  const start = performance.now();
  async function lane(): Promise<void> {
    while (next < PIPELINED) {
      const result = await call(next++);
      if (!result.ok) throw new Error("A call failed during the benchmark");
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return PIPELINED / ((performance.now() - start) / 1_000);
}

function mainThreadMachine(): ClientMachine {
  const s = spec("inline");
  return new ClientMachine(
    new CommandTransport({
      name: s.name,
      command: s.command,
      args: s.args,
      // What our client gives its servers: DENO_DIR and the CA files among it.
      env: childEnv(s),
      group: { signal: signalGroup, drain: drainGroup },
    }),
    { name: s.name },
  );
}

/**
 * The floor of a retirement: the echo server spawned as a client's worker
 * spawns it, answering once, then the time from closing its stdin to its
 * exit status.
 */
async function bareExit(): Promise<number> {
  const s = spec("bare");
  const child = new Deno.Command(s.command, {
    args: [...s.args],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    detached: true,
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
  await reader.read();
  const start = performance.now();
  await writer.close();
  await child.status;
  const elapsed = performance.now() - start;
  await reader.cancel();
  return elapsed;
}

function line(label: string, value: string): void {
  console.log(`${label.padEnd(58)} ${value}`);
}

async function figures(): Promise<void> {
  console.log(`client_bench: Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`);

  const client = new Client(spec("echo"));
  const started = await client.connect();
  if (!started.ok) throw new Error(started.error.message);
  const viaWorker: Caller = (i) => client.callTool("echo", { text: `hello ${i}` });
  const workerTimes = await roundTrips(viaWorker);
  line(
    "tools/call round trip via worker, median / p99",
    `${(median(workerTimes) * 1_000).toFixed(0)} µs / ${
      (quantile(workerTimes, 0.99) * 1_000).toFixed(0)
    } µs`,
  );
  line(`calls/s via worker, ${IN_FLIGHT} in flight`, (await pipelined(viaWorker)).toFixed(0));
  await client.retire();

  const machine = mainThreadMachine();
  const inline = await machine.connect();
  if (!inline.ok) throw new Error(inline.error.message);
  // The same path as a call through the worker, without the hop: the
  // arguments rendered once, sent, the raw result decoded once.
  const direct: Caller = (i) =>
    new Promise((resolve) => {
      machine.send("tools/call", callParams("echo", { text: `hello ${i}` }), 60_000, (outcome) => {
        resolve(outcome.ok ? decodeCallResult("inline", outcome.value) : outcome);
      });
    });
  const directTimes = await roundTrips(direct);
  line(
    "tools/call round trip, same machine on main thread, median",
    `${(median(directTimes) * 1_000).toFixed(0)} µs`,
  );
  line(`calls/s on main thread, ${IN_FLIGHT} in flight`, (await pipelined(direct)).toFixed(0));
  await machine.retire();

  const singles: number[] = [];
  const retirements: number[] = [];
  const exits: number[] = [];
  for (let i = 0; i < SINGLES; i++) {
    const one = new Client(spec(`single${i}`));
    const start = performance.now();
    const outcome = await one.connect();
    singles.push(performance.now() - start);
    if (!outcome.ok) throw new Error(outcome.error.message);
    const retiring = performance.now();
    const evidence = await one.retire();
    retirements.push(performance.now() - retiring);
    if (!evidence.ok) throw new Error(evidence.error.message);
    exits.push(await bareExit());
  }
  const rssBefore = Deno.memoryUsage().rss;
  const census = Census.prepare(Array.from({ length: SERVERS }, (_, i) => spec(`s${i}`)));
  const start = performance.now();
  const all = await census.connectAll();
  const parallel = performance.now() - start;
  if (![...all.values()].every((o) => o.ok)) throw new Error("A server failed to start");
  const rssAfter = Deno.memoryUsage().rss;
  line(
    `single start (spawn + handshake), slowest of ${SINGLES}`,
    `${Math.max(...singles).toFixed(0)} ms`,
  );
  line(
    `single retirement to its evidence, median of ${SINGLES}`,
    `${median(retirements).toFixed(1)} ms (the server's own exit: ${median(exits).toFixed(1)} ms)`,
  );
  line(`${SERVERS} servers connecting in parallel`, `${parallel.toFixed(0)} ms`);
  line(
    "resident memory added per connected client (harness only)",
    `${((rssAfter - rssBefore) / SERVERS / 1024 / 1024).toFixed(1)} MiB`,
  );
  const report = await census.retire();
  if (!report.confirmed) throw new Error("A server was not confirmed retired");
}

if (import.meta.main && !Deno.args.includes("--bench")) {
  await figures();
} else {
  const client = new Client(spec("echo"));
  Deno.bench({
    name: "tools/call round trip via worker",
    async fn(b) {
      if (client.state === "parked") await client.connect();
      b.start();
      await client.callTool("echo", { text: "hello" });
      b.end();
    },
  });
  Deno.bench({
    name: "retire the bench client",
    async fn() {
      await client.retire();
    },
    n: 1,
    warmup: 0,
  });
}
