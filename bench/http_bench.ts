// Remote servers over Streamable HTTP, measured on loopback against the
// official SDK v2's own server (tests/fixtures/sdk_v2_http.ts, both eras at
// one endpoint), our client and the SDK v2 client in alternating rounds of
// one run: the connect (a fresh client each), the p50 of sequential calls,
// and the throughput with 128 calls in flight. Ratios are ours over the SDK's.
//
//   deno run -A bench/http_bench.ts [rounds] [era]     (default 5, auto; era: auto | legacy)

import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client } from "../client/client.ts";
import type { EraMode } from "../settings/mod.ts";
import { serveFixture } from "../tests/client/_http_servers.ts";
import { median } from "./_mcp_clients.ts";

const ROUNDS = Number(Deno.args[0] ?? 5);
const ERA = (Deno.args[1] ?? "auto") as EraMode & ("auto" | "legacy");
const CONNECTS = 5;
const CALLS = 200;
const IN_FLIGHT = 128;
const BATCHES = 4;

/** One client under test: how it connects, calls and closes. */
type Peer = {
  connect(): Promise<void>;
  call(name: string, args: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
};

function ours(url: string): Peer {
  const client = new Client({ name: "bench", url, headers: {}, era: ERA });
  return {
    async connect() {
      const outcome = await client.connect();
      if (!outcome.ok) throw new Error(outcome.error.message);
    },
    async call(name, args) {
      const called = await client.callTool(name, args as never);
      if (!called.ok) throw new Error(called.error.message);
    },
    async close() {
      await client.retire();
    },
  };
}

function sdk(url: string): Peer {
  const client = new SdkClient({ name: "bench", version: "1" }, {
    versionNegotiation: { mode: ERA },
  });
  return {
    async connect() {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    },
    async call(name, args) {
      await client.callTool({ name, arguments: args });
    },
    async close() {
      await client.close();
    },
  };
}

type Figures = { connect: number[]; call: number[]; perSecond: number[] };

async function round(make: () => Peer, into: Figures): Promise<void> {
  for (let i = 0; i < CONNECTS; i++) {
    const peer = make();
    const started = performance.now();
    await peer.connect();
    into.connect.push(performance.now() - started);
    await peer.close();
  }
  const peer = make();
  await peer.connect();
  try {
    for (let i = 0; i < 20; i++) await peer.call("echo", { text: `warm ${i}` });
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await peer.call("echo", { text: `call ${i}` });
      into.call.push(performance.now() - started);
    }
    const started = performance.now();
    for (let batch = 0; batch < BATCHES; batch++) {
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, (_, i) => peer.call("add", { a: i, b: batch })),
      );
    }
    into.perSecond.push((BATCHES * IN_FLIGHT) / ((performance.now() - started) / 1000));
  } finally {
    await peer.close();
  }
}

if (import.meta.main) {
  const server = await serveFixture("sdk_v2_http.ts");
  const url = `${server.origin}/mcp`;
  const figures = {
    ours: { connect: [], call: [], perSecond: [] } as Figures,
    sdk: { connect: [], call: [], perSecond: [] } as Figures,
  };
  try {
    // One warm-up round each, then alternating rounds, which of the two goes first alternating too.
    await round(() => ours(url), { connect: [], call: [], perSecond: [] });
    await round(() => sdk(url), { connect: [], call: [], perSecond: [] });
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? ["ours", "sdk"] as const : ["sdk", "ours"] as const;
      for (const who of order) {
        await round(() => who === "ours" ? ours(url) : sdk(url), figures[who]);
      }
    }
  } finally {
    await server.close();
  }
  const row = (name: string, key: keyof Figures, digits: number) => {
    const a = median(figures.ours[key]);
    const b = median(figures.sdk[key]);
    return `| ${name} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${(a / b).toFixed(2)}x |`;
  };
  console.log(
    [
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load ${
        Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")
      }, era ${ERA}, ${ROUNDS} alternating rounds, medians`,
      "",
      "| figure | ours | SDK v2 client | ours / SDK |",
      "| --- | ---: | ---: | ---: |",
      row("connect, ms", "connect", 1),
      row(`one call at a time, p50 ms (${CALLS} a round)`, "call", 3),
      row(`${IN_FLIGHT} calls in flight, calls/s`, "perSecond", 0),
    ].join("\n"),
  );
}
