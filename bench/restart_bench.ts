/**
 * Restart latency of a supervised client: from the SIGKILL of its server to
 * the first call that succeeds on the replacement, median over a bounded
 * loop of deaths. Calls are made back to back while the server is down (each
 * fails at once as `unavailable`, which is what is measured alongside); the
 * figure includes the retirement of the dead generation (the exit witnessed,
 * the group drained), the backoff, a new worker, the spawn and the handshake.
 *
 * Run: deno run -A bench/restart_bench.ts [--rounds 10] [--backoff-ms 500]
 */

import { Census } from "../client/census.ts";
import type { Client } from "../client/client.ts";

const flag = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Number(Deno.args[at + 1]);
};
const ROUNDS = flag("--rounds", 10);
const BACKOFF_MS = flag("--backoff-ms", 500);
const SERVER = new URL("../tests/fixtures/long_server.ts", import.meta.url).pathname;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

// A fresh client each round: each death is then a first attempt, after
// `backoffMs` (a death within RESTART_STABLE_MS of the last would double it).
const latencies: number[] = [];
const refusals: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const census = Census.prepare([{
    name: "long",
    command: Deno.execPath(),
    args: ["run", "--quiet", "--no-lock", SERVER],
    inheritEnv: ["DENO_DIR"],
    restart: { max: 3, backoffMs: BACKOFF_MS },
  }]);
  const client = census.clients.get("long") as Client;
  try {
    const started = await client.connect();
    if (!started.ok) throw new Error(started.error.message);
    const killedAt = performance.now();
    Deno.kill(client.pid as number, "SIGKILL");
    for (;;) {
      const called = performance.now();
      const result = await client.callTool("whoami", {});
      if (result.ok) break;
      refusals.push(performance.now() - called);
      if (performance.now() - killedAt > 60_000) throw new Error("The server did not come back");
      // Back to back, but not a busy loop: the restart's events get their turn.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    latencies.push(performance.now() - killedAt);
  } finally {
    await census.retire();
  }
}
console.log(
  `restart latency, SIGKILL to the first successful call, backoff ${BACKOFF_MS} ms, ` +
    `${ROUNDS} rounds: median ${median(latencies).toFixed(1)} ms ` +
    `(min ${Math.min(...latencies).toFixed(1)}, max ${Math.max(...latencies).toFixed(1)}); ` +
    `a call refused while down: median ${median(refusals).toFixed(3)} ms over ${refusals.length}`,
);
