// Remote servers over Streamable HTTP, measured on loopback against the SDK
// v2 server of tests/fixtures/sdk_v2_http.ts (both eras at one endpoint):
// connect time by era, and call latency, sequential and 32 at a time; the
// official SDK v2 client over the same endpoint, in the same two modes, as
// the reference.
// `deno run -A bench/http_bench.ts` prints one line per figure.

import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client } from "../client/client.ts";
import type { EraMode } from "../settings/mod.ts";
import { serveFixture } from "../tests/client/_http_servers.ts";

const CONNECTS = 15;
const CALLS = 300;
const PARALLEL = 32;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

const server = await serveFixture("sdk_v2_http.ts");
const url = `${server.origin}/mcp`;
try {
  for (const era of ["auto", "legacy"] as EraMode[]) {
    const connects: number[] = [];
    for (let i = 0; i < CONNECTS; i++) {
      const client = new Client({ name: "bench", url, headers: {}, era });
      const started = performance.now();
      const outcome = await client.connect();
      connects.push(performance.now() - started);
      if (!outcome.ok) throw new Error(outcome.error.message);
      await client.retire();
    }
    const client = new Client({ name: "bench", url, headers: {}, era });
    const info = await client.connect();
    if (!info.ok) throw new Error(info.error.message);
    const calls: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      const called = await client.callTool("echo", { text: `call ${i}` });
      calls.push(performance.now() - started);
      if (!called.ok) throw new Error(called.error.message);
    }
    const started = performance.now();
    for (let round = 0; round < CALLS / PARALLEL; round++) {
      const batch = Array.from(
        { length: PARALLEL },
        (_, i) => client.callTool("add", { a: i, b: round }),
      );
      for (const called of await Promise.all(batch)) {
        if (!called.ok) throw new Error(called.error.message);
      }
    }
    const perSecond = (Math.floor(CALLS / PARALLEL) * PARALLEL) /
      ((performance.now() - started) / 1000);
    await client.retire();
    console.log(
      `${era} (${info.value.era} ${info.value.protocolVersion}): connect p50 ${
        percentile(connects, 0.5).toFixed(1)
      } ms ` +
        `(first ${connects[0]?.toFixed(1)} ms), call p50 ${percentile(calls, 0.5).toFixed(2)} ms ` +
        `p95 ${percentile(calls, 0.95).toFixed(2)} ms, ${PARALLEL} at a time ${
          perSecond.toFixed(0)
        } calls/s`,
    );
  }
  for (const mode of ["auto", "legacy"] as const) {
    const connects: number[] = [];
    let sdk: SdkClient | undefined;
    for (let i = 0; i <= CONNECTS; i++) {
      await sdk?.close();
      sdk = new SdkClient({ name: "bench", version: "1" }, { versionNegotiation: { mode } });
      const started = performance.now();
      await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
      connects.push(performance.now() - started);
    }
    const client = sdk as SdkClient;
    const calls: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await client.callTool({ name: "echo", arguments: { text: `call ${i}` } });
      calls.push(performance.now() - started);
    }
    const started = performance.now();
    for (let round = 0; round < CALLS / PARALLEL; round++) {
      await Promise.all(
        Array.from(
          { length: PARALLEL },
          (_, i) => client.callTool({ name: "add", arguments: { a: i, b: round } }),
        ),
      );
    }
    const perSecond = (Math.floor(CALLS / PARALLEL) * PARALLEL) /
      ((performance.now() - started) / 1000);
    console.log(
      `SDK v2 client, ${mode} (${client.getProtocolEra()}): connect p50 ` +
        `${percentile(connects, 0.5).toFixed(1)} ms, call p50 ${
          percentile(calls, 0.5).toFixed(2)
        } ms ` +
        `p95 ${percentile(calls, 0.95).toFixed(2)} ms, ${PARALLEL} at a time ${
          perSecond.toFixed(0)
        } calls/s`,
    );
    await client.close();
  }
} finally {
  await server.close();
}
