// The first `run_program` a fresh `loom-mcp serve` answers, as a host's
// model comes to it: the host initializes and lists the tools, then either
// looks a tool up with `search_tools` first or sends the program straight
// away, and the program comes a second after that (the model writing it).
// Each round starts a serve of the echo fixture per flow and per tree and
// times the program's call alone. With `--against DIR`, another checkout's
// command line takes turns with this one, round by round.
//
//   deno run -A bench/serve_first_run.ts [rounds] [--against DIR]   (default 7)

import { parseArgs } from "node:util";
import { median } from "./_mcp_clients.ts";
import { type Answer, LinePeer } from "./_line_peer.ts";
import { HERE, inTurn, treesAgainst } from "./_trees.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" } },
  allowPositionals: true,
});
const ROUNDS = Number(positionals[0] ?? 7);
// The model's turn between what it learned and the program it sends.
const THINK_MS = 1_000;
const DENO = Deno.execPath();
const TREES = treesAgainst(values.against);
const ECHO = `${HERE}tests/fixtures/echo_server.ts`;
const PROGRAM = 'import { echo } from "./mcp/echo.ts";\n' +
  'export default (await echo({ text: "hi" })).text;\n';
const FLOWS = ["search_tools first", "run_program first"] as const;

// A serve spoken to line by line, as a host does.
function served(tree: string, catalog: string): LinePeer {
  return new LinePeer([
    "run",
    "-A",
    "--quiet",
    "--no-lock",
    `${tree}cli/main.ts`,
    "--catalog",
    catalog,
    "serve",
  ]);
}

// The result of an answer; its error thrown.
function resultOf(answer: Answer): NonNullable<Answer["result"]> {
  if (answer.error !== undefined || answer.result === undefined) {
    throw new Error(JSON.stringify(answer.error));
  }
  return answer.result;
}

// One fresh serve: the host's opening, the flow, the program timed.
async function firstRun(tree: string, catalog: string, flow: typeof FLOWS[number]) {
  const peer = served(tree, catalog);
  try {
    resultOf(
      await peer.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      }),
    );
    await peer.notify("notifications/initialized");
    resultOf(await peer.request("tools/list", {}));
    if (flow === "search_tools first") {
      resultOf(
        await peer.request("tools/call", { name: "search_tools", arguments: { query: "echo" } }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
    const started = performance.now();
    const result = resultOf(
      await peer.request("tools/call", { name: "run_program", arguments: { code: PROGRAM } }),
    );
    const elapsed = performance.now() - started;
    if (result.isError) throw new Error(JSON.stringify(result));
    return elapsed;
  } finally {
    await peer.close();
  }
}

const dir = await Deno.makeTempDir({ prefix: "loom-serve-first-" });
const catalog = `${dir}/loom.toml`;
await Deno.writeTextFile(
  catalog,
  `[mcp.echo]\ncommand = ${JSON.stringify(DENO)}\n` +
    `args = ${JSON.stringify(["run", "--quiet", "--no-lock", ECHO])}\n`,
);
const samples = new Map<string, number[]>();
const keep = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value]);
try {
  for (let round = 0; round < ROUNDS; round++) {
    const trees = inTurn(TREES, round);
    for (const flow of FLOWS) {
      for (const tree of trees) keep(`${flow}|${tree}`, await firstRun(tree, catalog, flow));
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

console.log(
  `Deno ${Deno.version.deno}, load ${Deno.loadavg().join(" ")}, ${ROUNDS} rounds, ` +
    `the program ${THINK_MS} ms after the host's last answer, p50 ms`,
);
console.log(`\n| the first \`run_program\` of a serve | ${TREES.join(" | ")} |`);
console.log(`| --- | ${TREES.map(() => "---:").join(" | ")} |`);
for (const flow of FLOWS) {
  const cells = TREES.map((tree) => median(samples.get(`${flow}|${tree}`) ?? []).toFixed(0));
  console.log(`| ${flow} | ${cells.join(" | ")} |`);
}
