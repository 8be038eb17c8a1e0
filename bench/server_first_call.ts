// A fresh server's first tool calls: a server built on `serve` (this tree's,
// and another checkout's with `--against DIR`) beside one built on the
// official SDK's McpServer (the echo fixture, and `server_bench.ts`'s
// one-tool server), each with no permission and with -A, taking turns in fresh
// processes round by round. Each is initialized and its tools listed, then
// called three times 100 ms apart; prints the p50 of each call's round trip.
//
//   deno run -A bench/server_first_call.ts [rounds] [--against DIR]   (default 9)

import { parseArgs } from "node:util";
import { median } from "./_mcp_clients.ts";
import { LinePeer } from "./_line_peer.ts";
import { HERE, inTurn, treesAgainst } from "./_trees.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" } },
  allowPositionals: true,
});
const ROUNDS = Number(positionals[0] ?? 9);
const CALLS = 3;
const TREES = treesAgainst(values.against);
type Server = { name: string; args: string[]; tool: string; arguments: Record<string, string> };
// Ours: the echo fixture, which imports the server module alone; the SDK's: server_bench.ts's.
const BUILT: Server[] = [
  ...TREES.map((tree) => ({
    name: `serve, ${tree}`,
    args: [`${tree}tests/fixtures/echo_server.ts`],
    tool: "echo",
    arguments: { text: "hi" },
  })),
  {
    name: "the SDK's McpServer",
    args: [`${HERE}bench/server_bench.ts`, "--serve", "sdk"],
    tool: "noop",
    arguments: {},
  },
];
// Each with no permission and with -A (stderr then captured through FFI, whose library loads at
// the first call).
const SERVERS: Server[] = BUILT.flatMap((server) => [
  { ...server, name: `${server.name}, no permission` },
  { ...server, name: `${server.name}, -A`, args: ["-A", ...server.args] },
]);

// One fresh server: initialized, listed, then each call's round trip in ms.
async function calls(server: Server): Promise<number[]> {
  const peer = new LinePeer(["run", "--quiet", ...server.args]);
  try {
    await peer.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    await peer.notify("notifications/initialized");
    await peer.request("tools/list", {});
    const times: number[] = [];
    for (let index = 0; index < CALLS; index++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      const answer = await peer.request("tools/call", {
        name: server.tool,
        arguments: server.arguments,
      });
      times.push(performance.now() - started);
      if (answer.result === undefined) throw new Error(JSON.stringify(answer));
    }
    return times;
  } finally {
    await peer.close();
  }
}

const samples = new Map<string, number[][]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const server of inTurn(SERVERS, round)) {
    samples.set(server.name, [...(samples.get(server.name) ?? []), await calls(server)]);
  }
}
console.log(
  `Deno ${Deno.version.deno}, load ${Deno.loadavg().join(" ")}, ${ROUNDS} rounds, p50 ms`,
);
console.log(
  `\n| a fresh server | ${Array.from({ length: CALLS }, (_, i) => `call ${i + 1}`).join(" | ")} |`,
);
console.log(`| --- | ${Array.from({ length: CALLS }, () => "---:").join(" | ")} |`);
for (const { name } of SERVERS) {
  const rows = samples.get(name) ?? [];
  const cells = Array.from(
    { length: CALLS },
    (_, i) => median(rows.map((row) => row[i] ?? 0)).toFixed(1),
  );
  console.log(`| ${name} | ${cells.join(" | ")} |`);
}
