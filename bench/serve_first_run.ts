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

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" } },
  allowPositionals: true,
});
const ROUNDS = Number(positionals[0] ?? 7);
// The model's turn between what it learned and the program it sends.
const THINK_MS = 1_000;
const DENO = Deno.execPath();
const HERE = new URL("../", import.meta.url).pathname;
const TREES = values.against === undefined
  ? [HERE]
  : [HERE, values.against.endsWith("/") ? values.against : `${values.against}/`];
const ECHO = `${HERE}tests/fixtures/echo_server.ts`;
const PROGRAM = 'import { echo } from "./mcp/echo.ts";\n' +
  'export default (await echo({ text: "hi" })).text;\n';
const FLOWS = ["search_tools first", "run_program first"] as const;

// A serve spoken to line by line, as a host does.
class Served {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<string>;
  #held = "";
  #id = 0;

  constructor(tree: string, catalog: string) {
    this.#child = new Deno.Command(DENO, {
      args: [
        "run",
        "-A",
        "--quiet",
        "--no-lock",
        `${tree}cli/main.ts`,
        "--catalog",
        catalog,
        "serve",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = this.#child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  async notify(method: string): Promise<void> {
    const line = JSON.stringify({ jsonrpc: "2.0", method }) + "\n";
    await this.#writer.write(new TextEncoder().encode(line));
  }

  async request(method: string, params: unknown): Promise<{ isError?: boolean }> {
    const id = this.#id++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    await this.#writer.write(new TextEncoder().encode(line));
    for (;;) {
      const newline = this.#held.indexOf("\n");
      if (newline >= 0) {
        const message = JSON.parse(this.#held.slice(0, newline));
        this.#held = this.#held.slice(newline + 1);
        if (message.id !== id) continue;
        if (message.error !== undefined) throw new Error(JSON.stringify(message.error));
        return message.result;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("the served command line closed its stdout");
      this.#held += value;
    }
  }

  async close(): Promise<void> {
    await this.#writer.close();
    await this.#reader.cancel();
    await this.#child.status;
  }
}

// One fresh serve: the host's opening, the flow, the program timed.
async function firstRun(tree: string, catalog: string, flow: typeof FLOWS[number]) {
  const served = new Served(tree, catalog);
  try {
    await served.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    await served.notify("notifications/initialized");
    await served.request("tools/list", {});
    if (flow === "search_tools first") {
      await served.request("tools/call", { name: "search_tools", arguments: { query: "echo" } });
    }
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
    const started = performance.now();
    const result = await served.request("tools/call", {
      name: "run_program",
      arguments: { code: PROGRAM },
    });
    const elapsed = performance.now() - started;
    if (result.isError) throw new Error(JSON.stringify(result));
    return elapsed;
  } finally {
    await served.close();
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
    const trees = round % 2 === 0 ? TREES : [...TREES].reverse();
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
