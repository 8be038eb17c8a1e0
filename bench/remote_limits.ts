// What a hostile remote server can take from a harness, measured: the
// memory a long listing makes the harness grow by (64 pages of 15 tools with
// 1 MB descriptions), and the descriptors 300 cancelled calls leave open
// against a legacy-era server that answers neither calls nor
// cancellations (right after the calls, once the aborted sockets are closed,
// and after NOTIFICATION_TIMEOUT_MS). Each against the loopback servers of
// the tests (tests/fixtures/http_peer.ts). Run with
// `deno run -A bench/remote_limits.ts`; it prints one line per figure.

import { Client } from "../client/client.ts";
import { serveFixture } from "../tests/client/_http_servers.ts";

const MIB = 1024 * 1024;

function descriptors(): number {
  return [...Deno.readDirSync("/proc/self/fd")].length;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function listingGrowth(): Promise<void> {
  const peer = await serveFixture("http_peer.ts", ["long_listing"]);
  try {
    const client = new Client({ name: "long", url: `${peer.origin}/mcp`, callTimeoutMs: 60_000 });
    await client.connect();
    const before = Deno.memoryUsage().rss;
    const started = performance.now();
    const listed = await client.listTools();
    const grown = Deno.memoryUsage().rss - before;
    const outcome = listed.ok ? `${listed.value.length} tools` : listed.error.kind;
    console.log(
      `listing of 64 pages x 15 tools x 1 MB: ${outcome} after ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s, RSS grew ${
          (grown / MIB).toFixed(0)
        } MiB`,
    );
    await client.retire();
  } finally {
    await peer.close();
  }
}

async function cancelledCalls(): Promise<void> {
  const peer = await serveFixture("http_peer.ts", ["silent_calls"]);
  try {
    const client = new Client({ name: "silent", url: `${peer.origin}/mcp`, callTimeoutMs: 60_000 });
    await client.connect();
    await client.listTools();
    const before = descriptors();
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 30 }, () => client.callTool("go", {}, { timeoutMs: 100 })),
      );
    }
    const right = descriptors() - before;
    await sleep(1_000);
    const soon = descriptors() - before;
    await sleep(5_500);
    const later = descriptors() - before;
    console.log(
      `descriptors after 300 cancelled calls: +${right} at once, +${soon} after 1 s, ` +
        `+${later} after 6.5 s`,
    );
    await client.retire();
  } finally {
    await peer.close();
  }
}

await listingGrowth();
await cancelledCalls();
