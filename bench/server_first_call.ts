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

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" } },
  allowPositionals: true,
});
const ROUNDS = Number(positionals[0] ?? 9);
const CALLS = 3;
const HERE = new URL("../", import.meta.url).pathname;
const TREES = values.against === undefined
  ? [HERE]
  : [HERE, values.against.endsWith("/") ? values.against : `${values.against}/`];
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
const encoder = new TextEncoder();

// One fresh server: initialized, listed, then each call's round trip in ms.
async function calls(server: Server): Promise<number[]> {
  const args = server.args;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let held = "";
  const request = async (id: number, method: string, params: unknown) => {
    await writer.write(
      encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
    );
    for (;;) {
      const newline = held.indexOf("\n");
      if (newline >= 0) {
        const message = JSON.parse(held.slice(0, newline));
        held = held.slice(newline + 1);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`the server ${args.join(" ")} closed its stdout`);
      held += value;
    }
  };
  try {
    await request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    await writer.write(
      encoder.encode(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n",
      ),
    );
    await request(1, "tools/list", {});
    const times: number[] = [];
    for (let index = 0; index < CALLS; index++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      const answer = await request(2 + index, "tools/call", {
        name: server.tool,
        arguments: server.arguments,
      });
      times.push(performance.now() - started);
      if (answer.result === undefined) throw new Error(JSON.stringify(answer));
    }
    return times;
  } finally {
    await writer.close();
    await reader.cancel();
    await child.status;
  }
}

const samples = new Map<string, number[][]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const server of round % 2 === 0 ? SERVERS : [...SERVERS].reverse()) {
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
