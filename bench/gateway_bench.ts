// A program's round trip through `loom-mcp serve` against the same program
// run by `harness.run` in process, alternated round by round in one run:
// the in-process harness and the served one each boot the echo fixture and
// keep their sandboxes warm; the served one is the real command line, its
// `run_program` sent as a JSON-RPC line on its stdin and its answer read
// from its stdout. Prints p50 and p90 in ms and the ratio of the p50s (the
// issue's target: at most 1.5), then the same for `tools/list`.
//
//   deno run -A bench/gateway_bench.ts            30 rounds after 5
//   deno run -A bench/gateway_bench.ts --quick    5 rounds after 2

import { boot } from "../harness/harness.ts";
import { median, quantile } from "./_mcp_clients.ts";
import { LinePeer } from "./_line_peer.ts";

const QUICK = Deno.args.includes("--quick");
const ROUNDS = QUICK ? 5 : 30;
const WARMUP = QUICK ? 2 : 5;
// The pause before each timed run, standing for the model writing its next program.
const PAUSE_MS = 400;

const FIXTURE = new URL("../tests/fixtures/echo_server.ts", import.meta.url).pathname;
const CLI = new URL("../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;
const PROGRAM = 'import { echo } from "./mcp/echo.ts";\n' +
  'export default (await echo({ text: "hi" })).structuredContent;\n';

const spec = {
  name: "echo",
  command: Deno.execPath(),
  args: ["run", "--quiet", "--no-lock", FIXTURE],
  env: {},
  inheritEnv: ["DENO_DIR"],
  stderr: "tail" as const,
};

const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

// The served command line, spoken to line by line.
function served(catalog: string): LinePeer {
  return new LinePeer([
    "run",
    "-A",
    "--quiet",
    "--no-lock",
    "--config",
    CONFIG,
    CLI,
    "--catalog",
    catalog,
    "serve",
  ]);
}

const dir = await Deno.makeTempDir({ prefix: "gateway_bench_" });
const catalog = `${dir}/loom.toml`;
await Deno.writeTextFile(
  catalog,
  `[mcp.echo]\ncommand = ${JSON.stringify(spec.command)}\nargs = ${JSON.stringify(spec.args)}\n`,
);
const harness = await boot([spec], { prepareRunner: true });
const peer = served(catalog);
try {
  await peer.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  const inProcess: number[] = [];
  const through: number[] = [];
  const listed: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    await pause();
    let started = performance.now();
    const report = await harness.run(PROGRAM);
    const a = performance.now() - started;
    if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
    await pause();
    started = performance.now();
    const result = (await peer.request("tools/call", {
      name: "run_program",
      arguments: { code: PROGRAM },
    })).result;
    const b = performance.now() - started;
    if (result === undefined || result.isError) throw new Error(JSON.stringify(result));
    started = performance.now();
    await peer.request("tools/list", {});
    const c = performance.now() - started;
    if (round >= WARMUP) {
      inProcess.push(a);
      through.push(b);
      listed.push(c);
    }
  }
  const row = (name: string, samples: number[]) =>
    `${name.padEnd(36)}${median(samples).toFixed(1).padStart(8)}${
      quantile(samples, 0.9).toFixed(1).padStart(8)
    }`;
  console.log(`${"".padEnd(36)}${"p50 ms".padStart(8)}${"p90 ms".padStart(8)}`);
  console.log(row("harness.run, in process", inProcess));
  console.log(row("run_program through loom-mcp serve", through));
  console.log(row("tools/list through loom-mcp serve", listed));
  console.log(`ratio of the p50s: ${(median(through) / median(inProcess)).toFixed(2)}`);
  console.log(`(${ROUNDS} rounds after ${WARMUP}, load ${Deno.loadavg()[0]?.toFixed(1)})`);
} finally {
  await peer.close();
  await harness.retire();
  await Deno.remove(dir, { recursive: true });
}
