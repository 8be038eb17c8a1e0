// Connect time by protocol era, measured side by side:
//   deno run -A bench/era_bench.ts [rounds]
//
// Two views. "Whole connect" times `Client.connect()` from the call to the
// resolved start (worker boot, spawn, server start-up, the session start);
// on a shared machine its noise is tens of milliseconds. "Session start on a
// server already up" isolates what the era decides: the machine runs on the
// main thread, the server is spawned and given time to start and block on
// stdin, and only then are the start's requests sent and timed (the probe
// and its fallback, or the handshake alone, or the probe alone).
//
// Each pair connects the same server twice, alternating which goes first:
// a legacy-era server (an official npm server) through the era probe and
// its fallback (`era: "auto"`) against the direct handshake (`era:
// "legacy"`), and dual-era servers (ours, and one on the SDK v2) in the
// modern era (`auto` finds 2026-07-28) against the legacy era.
// `connect()` is timed from the call to the resolved start (worker boot,
// spawn, and the session start); every client is retired between rounds.

import { Client } from "../client/client.ts";
import type { EraMode, ResolvedStdioSpec } from "../settings/mod.ts";
import { drainGroup, signalGroup } from "../client/custody/process_group.ts";
import { ClientMachine } from "../client/worker/machine.ts";
import { CommandTransport } from "../client/transport/stdio/command_transport.ts";
import type { Transport, TransportSink } from "../client/transport/transport.ts";
import { childEnv } from "../client/_worker_launch.ts";

const ROUNDS = Number(Deno.args[0] ?? 8);
const root = new URL("../", import.meta.url).pathname;
const scratch = await Deno.makeTempDir({ prefix: "loom-era-bench-" });

function spec(name: string, args: string[], cwd?: string): ResolvedStdioSpec {
  return {
    name,
    command: Deno.execPath(),
    args,
    env: {},
    inheritEnv: ["DENO_DIR"],
    stderr: "tail",
    connectTimeoutMs: 120_000,
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** How long a server is given to start before its session start is timed. */
const SETTLE_MS = { deno: 1_500, npm: 4_000 } as const;

/** A transport whose `open` resolves once the server has had time to start. */
class SettledTransport implements Transport {
  #inner: CommandTransport;
  #settleMs: number;
  openedAt = 0;
  constructor(inner: CommandTransport, settleMs: number) {
    this.#inner = inner;
    this.#settleMs = settleMs;
  }
  get control() {
    return this.#inner.control;
  }
  async open(sink: TransportSink) {
    const opened = await this.#inner.open(sink);
    await new Promise((resolve) => setTimeout(resolve, this.#settleMs));
    this.openedAt = performance.now();
    return opened;
  }
  write(data: string | Uint8Array) {
    this.#inner.write(data);
  }
  dispose() {
    return this.#inner.dispose();
  }
}

/** Milliseconds from a started server's readiness to its session's start, in `era`. */
async function sessionStartMs(
  base: ResolvedStdioSpec,
  era: EraMode,
  settleMs: number,
): Promise<number> {
  const transport = new SettledTransport(
    new CommandTransport({
      name: base.name,
      command: base.command,
      args: base.args,
      // What our client gives its servers: DENO_DIR and the CA files among it.
      env: childEnv(base),
      ...(base.cwd === undefined ? {} : { cwd: base.cwd }),
      group: { signal: signalGroup, drain: drainGroup },
    }),
    settleMs,
  );
  const machine = new ClientMachine(transport, { name: base.name, era });
  const started = await machine.connect();
  const elapsed = performance.now() - transport.openedAt;
  const retired = await machine.retire();
  if (!started.ok) throw new Error(`${base.name} (${era}) did not start: ${started.error.message}`);
  if (!retired.ok) throw new Error(`${base.name} (${era}) was not retired`);
  return elapsed;
}

const SERVERS: {
  label: string;
  spec: ResolvedStdioSpec;
  a: EraMode;
  b: EraMode;
  rounds: number;
  settleMs: number;
}[] = [
  {
    label: "era_peer fixture refusing the probe with -32601 (legacy era, starts fast)",
    spec: spec("peer", [
      "run",
      "--quiet",
      "--no-lock",
      `${root}tests/fixtures/era_peer.ts`,
      "refuse",
    ]),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS * 3,
    settleMs: SETTLE_MS.deno,
  },
  {
    label: "official server-sequential-thinking (legacy era)",
    spec: spec(
      "thinking",
      ["run", "-A", "npm:@modelcontextprotocol/server-sequential-thinking@2026.8.31"],
      scratch,
    ),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS,
    settleMs: SETTLE_MS.npm,
  },
  {
    label: "serve() echo fixture (dual era)",
    spec: spec("echo", ["run", "--quiet", "--no-lock", `${root}tests/fixtures/echo_server.ts`]),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS,
    settleMs: SETTLE_MS.deno,
  },
  {
    label: "SDK v2 serveStdio (dual era)",
    spec: spec("sdkv2", ["run", "--quiet", "-A", `${root}tests/fixtures/sdk_v2_server.ts`]),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS,
    settleMs: SETTLE_MS.npm,
  },
];

async function connectMs(base: ResolvedStdioSpec, era: EraMode): Promise<[number, string]> {
  const client = new Client({ ...base, era });
  const start = performance.now();
  const started = await client.connect();
  const elapsed = performance.now() - start;
  const retired = await client.retire();
  if (!started.ok) throw new Error(`${base.name} (${era}) did not start: ${started.error.message}`);
  if (!retired.ok) throw new Error(`${base.name} (${era}) was not retired`);
  return [elapsed, `${started.value.era} ${started.value.protocolVersion}`];
}

function quantile(values: number[], q: number): number {
  const sorted = values.toSorted((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

console.log(
  `era_bench: Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
);
function report(
  label: string,
  aName: string,
  bName: string,
  a: number[],
  b: number[],
  digits: number,
): void {
  const median = (v: number[]) => quantile(v, 0.5);
  const delta = median(a) - median(b);
  // Each round ran both, one after the other: their difference cancels the
  // load that both saw, which the medians alone do not.
  const paired = a.map((ms, i) => ms - (b[i] ?? NaN));
  const sign = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;
  console.log(`  ${label}`);
  console.log(
    `    ${aName}: median ${median(a).toFixed(digits)} ms, p90 ${
      quantile(a, 0.9).toFixed(digits)
    } ms`,
  );
  console.log(
    `    ${bName}: median ${median(b).toFixed(digits)} ms, p90 ${
      quantile(b, 0.9).toFixed(digits)
    } ms`,
  );
  console.log(
    `    difference of medians ${sign(delta)} ms (${sign((delta / median(b)) * 100)}%); ` +
      `paired per round: median ${sign(median(paired))} ms, middle half ` +
      `${sign(quantile(paired, 0.25))} to ${sign(quantile(paired, 0.75))} ms (${a.length} rounds)`,
  );
}

try {
  for (const server of SERVERS) {
    await connectMs(server.spec, server.b); // warm the module and npm caches
    const whole: Record<"a" | "b", number[]> = { a: [], b: [] };
    const session: Record<"a" | "b", number[]> = { a: [], b: [] };
    const said = { a: "", b: "" };
    for (let round = 0; round < server.rounds; round++) {
      const order = round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
      for (const which of order) {
        const [ms, era] = await connectMs(server.spec, server[which]);
        whole[which].push(ms);
        said[which] = era;
      }
    }
    const sessionRounds = Math.max(4, Math.ceil(server.rounds / 2));
    for (let round = 0; round < sessionRounds; round++) {
      const order = round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
      for (const which of order) {
        session[which].push(await sessionStartMs(server.spec, server[which], server.settleMs));
      }
    }
    const aName = `era "${server.a}" -> ${said.a}`;
    const bName = `era "${server.b}" -> ${said.b}`;
    console.log(`\n${server.label}`);
    report("whole connect", aName, bName, whole.a, whole.b, 1);
    report("session start on a server already up", aName, bName, session.a, session.b, 2);
  }
} finally {
  await Deno.remove(scratch, { recursive: true });
}
