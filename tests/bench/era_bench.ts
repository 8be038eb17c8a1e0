// Connect time by protocol era, measured side by side:
//   deno run -A tests/bench/era_bench.ts [rounds]
//
// Each pair connects the same server twice, alternating which goes first:
// a handshake-era server (an official npm server) through the era probe and
// its fallback (`era: "auto"`) against the direct handshake (`era:
// "legacy"`), and dual-era servers (ours, and one on the SDK v2) in the
// stateless era (`auto` finds 2026-07-28) against the handshake era.
// `connect()` is timed from the call to the resolved start (worker boot,
// spawn, and the session start); every client is retired between rounds.

import { Client } from "../../client/client.ts";
import type { EraMode, ServerSpec } from "../../client/spec.ts";

const ROUNDS = Number(Deno.args[0] ?? 8);
const root = new URL("../../", import.meta.url).pathname;
const scratch = await Deno.makeTempDir({ prefix: "loom-era-bench-" });

function spec(name: string, args: string[], cwd?: string): ServerSpec {
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

const SERVERS: { label: string; spec: ServerSpec; a: EraMode; b: EraMode; rounds: number }[] = [
  {
    label: "era_peer fixture refusing the probe with -32601 (handshake era, starts fast)",
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
  },
  {
    label: "official server-sequential-thinking (handshake era)",
    spec: spec(
      "thinking",
      ["run", "-A", "npm:@modelcontextprotocol/server-sequential-thinking@2026.8.31"],
      scratch,
    ),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS,
  },
  {
    label: "serve() echo fixture (dual era)",
    spec: spec("echo", ["run", "--quiet", "--no-lock", `${root}tests/fixtures/echo_server.ts`]),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS,
  },
  {
    label: "SDK v2 serveStdio (dual era)",
    spec: spec("sdkv2", ["run", "--quiet", "-A", `${root}tests/fixtures/sdk_v2_server.ts`]),
    a: "auto",
    b: "legacy",
    rounds: ROUNDS,
  },
];

async function connectMs(base: ServerSpec, era: EraMode): Promise<[number, string]> {
  const client = new Client({ ...base, era });
  const start = performance.now();
  const started = await client.connect();
  const elapsed = performance.now() - start;
  const retired = await client.shutdown();
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
try {
  for (const server of SERVERS) {
    await connectMs(server.spec, server.b); // warm the module and npm caches
    const times: Record<string, number[]> = { a: [], b: [] };
    let said = { a: "", b: "" };
    for (let round = 0; round < server.rounds; round++) {
      const order = round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
      for (const which of order) {
        const [ms, era] = await connectMs(server.spec, server[which]);
        times[which]?.push(ms);
        said = { ...said, [which]: era };
      }
    }
    const a = times.a ?? [];
    const b = times.b ?? [];
    const median = (v: number[]) => quantile(v, 0.5);
    const delta = median(a) - median(b);
    // Each round ran both, one after the other: their difference cancels the
    // load that both saw, which the medians alone do not.
    const paired = a.map((ms, i) => ms - (b[i] ?? NaN));
    console.log(`\n${server.label}`);
    console.log(
      `  era "${server.a}" -> ${said.a}: median ${median(a).toFixed(1)} ms, ` +
        `p90 ${quantile(a, 0.9).toFixed(1)} ms`,
    );
    console.log(
      `  era "${server.b}" -> ${said.b}: median ${median(b).toFixed(1)} ms, ` +
        `p90 ${quantile(b, 0.9).toFixed(1)} ms`,
    );
    const sign = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
    console.log(
      `  difference of medians: ${sign(delta)} ms (${sign((delta / median(b)) * 100)}%); ` +
        `paired per round: median ${sign(median(paired))} ms, ` +
        `middle half ${sign(quantile(paired, 0.25))} to ${sign(quantile(paired, 0.75))} ms ` +
        `(${server.rounds} rounds)`,
    );
  }
} finally {
  await Deno.remove(scratch, { recursive: true });
}
