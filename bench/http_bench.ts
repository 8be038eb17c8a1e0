// Remote servers over Streamable HTTP, measured on loopback against the
// official SDK v2's own server (tests/fixtures/sdk_v2_http.ts, both eras at
// one endpoint), our client and the SDK v2 client in alternating rounds of
// one run: the connect (a fresh client each), the p50 of sequential calls,
// and the throughput with 128 calls in flight. Ratios are ours over the SDK's.
// In either era two floors run in the same rounds: bare `fetch` calls on
// the main thread (the least any client pays), and the same from a Worker
// with one `postMessage` each way per call (the least a client in a worker
// pays).
//
// Each round, per peer: a fresh client connects and makes 200 calls one at a
// time (its first calls, whose code a new Worker has not optimized yet), then
// 300 more untimed, then 200 timed (the p50 of a client in use), then 128 in
// flight four times; it closes, and only then are the five fresh connects
// timed, so no phase runs beside the teardown of another's clients.
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
/** Calls between the fresh client's first calls and the ones timed as a client in use. */
const WARM_CALLS = 300;
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

const RAW_WORKER = `
let url = "";
let headers = {};
self.onmessage = async (event) => {
  if (event.data.url !== undefined) ({ url, headers } = event.data);
  else {
    const name = event.data.name;
    const sent = name === undefined ? headers : { ...headers, "mcp-name": name };
    const response = await fetch(url, { method: "POST", headers: sent, body: event.data.body });
    await response.text();
  }
  self.postMessage(0);
};
`;

/**
 * A session opened by hand, each call a bare `fetch`, here or in a Worker:
 * legacy, an `initialize` and its session id; 2026-07-28, one
 * `server/discover`, then each call its envelope and its headers.
 */
function raw(url: string, inWorker: boolean): Peer {
  return ERA === "legacy" ? rawLegacy(url, inWorker) : rawModern(url, inWorker);
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};

/** A Worker running `RAW_WORKER`; answers come back in any order, each a bare count, so the oldest wait takes it. */
function rawWorker(): { ask(message: unknown): Promise<void>; terminate(): void } {
  const worker = new Worker(
    `data:application/javascript,${encodeURIComponent(RAW_WORKER)}`,
    { type: "module" },
  );
  const waiting: (() => void)[] = [];
  worker.onmessage = () => waiting.shift()?.();
  return {
    ask: (message) =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        worker.postMessage(message);
      }),
    terminate: () => worker.terminate(),
  };
}

function rawModern(url: string, inWorker: boolean): Peer {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
  };
  let id = 1;
  let worker: ReturnType<typeof rawWorker> | undefined;
  return {
    async connect() {
      const discovered = await fetch(url, {
        method: "POST",
        headers: { ...headers, "mcp-method": "server/discover" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "server/discover",
          params: { _meta: ENVELOPE },
        }),
      });
      await discovered.text();
      if (inWorker) {
        worker = rawWorker();
        await worker.ask({ url, headers });
      }
    },
    async call(name, args) {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { _meta: ENVELOPE, name, arguments: args },
      });
      if (worker !== undefined) await worker.ask({ body, name });
      else {
        const sent = { ...headers, "mcp-name": name };
        await (await fetch(url, { method: "POST", headers: sent, body })).text();
      }
    },
    close() {
      worker?.terminate();
      return Promise.resolve();
    },
  };
}

function rawLegacy(url: string, inWorker: boolean): Peer {
  let headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  let id = 1;
  let worker: ReturnType<typeof rawWorker> | undefined;
  const post = async (body: unknown): Promise<Response> =>
    await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  return {
    async connect() {
      const opened = await post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "bench", version: "1" },
        },
      });
      await opened.text();
      headers = {
        ...headers,
        "mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
        "mcp-protocol-version": "2025-11-25",
      };
      await (await post({ jsonrpc: "2.0", method: "notifications/initialized" })).text();
      if (inWorker) {
        worker = rawWorker();
        await worker.ask({ url, headers });
      }
    },
    async call(name, args) {
      const body = {
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { name, arguments: args },
      };
      if (worker !== undefined) await worker.ask({ body: JSON.stringify(body) });
      else await (await post(body)).text();
    },
    async close() {
      worker?.terminate();
      await (await fetch(url, { method: "DELETE", headers })).body?.cancel();
    },
  };
}

type Figures = { connect: number[]; fresh: number[]; call: number[]; perSecond: number[] };

async function timedCalls(peer: Peer, into: number[]): Promise<void> {
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await peer.call("echo", { text: `call ${i}` });
    into.push(performance.now() - started);
  }
}

async function round(make: () => Peer, into: Figures): Promise<void> {
  const peer = make();
  await peer.connect();
  try {
    await timedCalls(peer, into.fresh);
    for (let i = 0; i < WARM_CALLS; i++) await peer.call("echo", { text: `warm ${i}` });
    await timedCalls(peer, into.call);
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
  for (let i = 0; i < CONNECTS; i++) {
    const fresh = make();
    const started = performance.now();
    await fresh.connect();
    into.connect.push(performance.now() - started);
    await fresh.close();
  }
}

if (import.meta.main) {
  const server = await serveFixture("sdk_v2_http.ts");
  const url = `${server.origin}/mcp`;
  const peers: Record<string, () => Peer> = {
    ours: () => ours(url),
    sdk: () => sdk(url),
    raw: () => raw(url, false),
    rawWorker: () => raw(url, true),
  };
  const empty = (): Figures => ({ connect: [], fresh: [], call: [], perSecond: [] });
  const figures: Record<string, Figures> = Object.fromEntries(
    Object.keys(peers).map((name) => [name, empty()]),
  );
  try {
    // One warm-up round each, then rounds in turn, the order reversed every other round.
    for (const make of Object.values(peers)) await round(make, empty());
    for (let i = 0; i < ROUNDS; i++) {
      const order = Object.keys(peers);
      if (i % 2 === 1) order.reverse();
      for (const who of order) await round(peers[who] as () => Peer, figures[who] as Figures);
    }
  } finally {
    await server.close();
  }
  const of = (who: string, key: keyof Figures): number => median(figures[who]?.[key] ?? []);
  const row = (name: string, key: keyof Figures, digits: number) => {
    const a = of("ours", key);
    const b = of("sdk", key);
    const floor = ` ${of("raw", key).toFixed(digits)} | ${of("rawWorker", key).toFixed(digits)} |`;
    return `| ${name} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${
      (a / b).toFixed(2)
    }x |${floor}`;
  };
  console.log(
    [
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load ${
        Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")
      }, era ${ERA}, ${ROUNDS} rounds in turn, medians`,
      "",
      "| figure | ours | SDK v2 client | ours / SDK | bare fetch | bare fetch in a Worker |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      row("connect, ms", "connect", 1),
      row(`a fresh client's first ${CALLS} calls, one at a time, p50 ms`, "fresh", 3),
      row(`one call at a time, p50 ms (${CALLS} a round, after ${CALLS + WARM_CALLS})`, "call", 3),
      row(`${IN_FLIGHT} calls in flight, calls/s`, "perSecond", 0),
    ].join("\n"),
  );
}
