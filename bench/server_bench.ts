// Requests per second through `serve` over real stdio, next to a server built
// on the official SDK's McpServer with StdioServerTransport, in one run.
//
//   deno run -A bench/server_bench.ts          prints the figures
//   deno bench -A bench/server_bench.ts        the same work as benches (each
//                                                    iteration includes spawn and initialize)
//
// A raw pipelined client writes N requests at once and reads N replies. With
// `--serve loom` or `--serve sdk` this file is the server being measured.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { serve } from "../server/mod.ts";

const REQUESTS = 4000;
const ROUNDS = 3;
const SELF = new URL(import.meta.url).pathname;

type Kind = "loom" | "sdk";
type Method = "ping" | "tools/call";

async function runServer(kind: Kind): Promise<void> {
  if (kind === "loom") {
    await serve({
      name: "bench",
      version: "1.0.0",
      tools: [{
        name: "noop",
        description: "Answers ok.",
        inputSchema: { type: "object" },
        run: () => "ok",
      }],
    });
    return;
  }
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool(
    "noop",
    { description: "Answers ok." },
    () => ({ content: [{ type: "text" as const, text: "ok" }] }),
  );
  await server.connect(new StdioServerTransport());
}

// One spawned server, initialized, measured over `rounds` pipelined bursts.
async function measure(
  kind: Kind,
  method: Method,
  requests: number,
  rounds: number,
): Promise<number[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SELF, "--serve", kind],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  const encoder = new TextEncoder();
  let pending = 0;
  // Counts reply lines until `count` have arrived.
  const replies = async (count: number): Promise<void> => {
    while (pending < count) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`The ${kind} server closed its stdout after ${pending} replies`);
      for (const byte of value) if (byte === 0x0a) pending++;
    }
    pending -= count;
  };
  await writer.write(encoder.encode(
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",' +
      '"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n' +
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
  ));
  await replies(1);
  const body = method === "ping"
    ? '"method":"ping"'
    : '"method":"tools/call","params":{"name":"noop","arguments":{}}';
  const rates: number[] = [];
  let id = 1;
  for (let round = 0; round < rounds; round++) {
    const lines: string[] = [];
    for (let index = 0; index < requests; index++) {
      lines.push(`{"jsonrpc":"2.0","id":${id++},${body}}\n`);
    }
    const burst = encoder.encode(lines.join(""));
    const start = performance.now();
    const written = writer.write(burst);
    await replies(requests);
    await written;
    rates.push(requests / ((performance.now() - start) / 1000));
  }
  await writer.close();
  await reader.cancel();
  await child.status;
  return rates;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const serveIndex = Deno.args.indexOf("--serve");
if (serveIndex >= 0) {
  const kind = Deno.args[serveIndex + 1];
  if (kind !== "loom" && kind !== "sdk") throw new TypeError(`Unknown server kind "${kind}"`);
  await runServer(kind);
} else if (import.meta.main) {
  console.log(
    `${REQUESTS} pipelined requests per round, median of ${ROUNDS} rounds, over real stdio`,
  );
  console.log("method       serve (req/s)  SDK McpServer (req/s)  ratio");
  for (const method of ["ping", "tools/call"] as const) {
    const loom = median(await measure("loom", method, REQUESTS, ROUNDS));
    const sdk = median(await measure("sdk", method, REQUESTS, ROUNDS));
    console.log(
      `${method.padEnd(12)} ${loom.toFixed(0).padStart(13)}  ${sdk.toFixed(0).padStart(21)}  ${
        (loom / sdk).toFixed(2)
      }x`,
    );
  }
} else {
  for (const kind of ["loom", "sdk"] as const) {
    for (const method of ["ping", "tools/call"] as const) {
      Deno.bench({
        name: `${kind} ${method} x${REQUESTS}`,
        group: method,
        baseline: kind === "sdk",
        n: 3,
        warmup: 0,
        async fn(b) {
          b.start();
          await measure(kind, method, REQUESTS, 1);
          b.end();
        },
      });
    }
  }
}
