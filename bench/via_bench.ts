// A warm call through a running code-mode gateway against a cold call, in
// one run, taking turns: `loom-mcp --via <url> call echo echo text=x` (the
// gateway, `loom-mcp serve --http 127.0.0.1:0` in front of the echo fixture
// server, keeps it and the code-mode runner warm; the call goes through
// run_program) against
// `loom-mcp --stdio "<echo server>" call echo echo text=x` (boots, calls,
// retires). Each is a fresh command-line process, as a person runs it; the
// table gives the median and the spread of the wall times, beside the
// command line's own start (`--version`) and a `--via` listing with no
// program, which say where the warm call's time goes.
//
//   deno run -A bench/via_bench.ts            10 rounds after 2 warm-ups
//   deno run -A bench/via_bench.ts --runs 20

import { parseArgs } from "node:util";

const ROOT = new URL("../", import.meta.url).pathname;
const DENO = Deno.execPath();
const CLI = [DENO, "run", "-A", "--quiet", "--no-lock", `${ROOT}cli/main.ts`];
const ECHO = `${DENO} run --quiet --no-lock ${ROOT}tests/fixtures/echo_server.ts`;
const TOKEN = crypto.randomUUID();

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? "10");

const [serveCommand, ...serveArgs] = [
  ...CLI,
  "serve",
  "--stdio",
  ECHO,
  "--name",
  "echo",
  "--http",
  "127.0.0.1:0",
];
const gateway = new Deno.Command(serveCommand as string, {
  args: serveArgs,
  stdin: "null",
  stdout: "null",
  stderr: "piped",
  env: { LOOM_MCP_TOKEN: TOKEN, NO_COLOR: "1" },
}).spawn();
const reader = gateway.stderr.pipeThrough(new TextDecoderStream()).getReader();
let said = "";
while (!/listening on \S+\n/.test(said)) {
  const read = await reader.read();
  if (read.done) {
    throw new Error(`Cannot start serve --http: it ended before saying its URL\n${said}`);
  }
  said += read.value;
}
const url = /listening on (\S+)\n/.exec(said)?.[1] ?? "";
// Its stderr is read to the end, so that it never blocks on a full pipe.
const drained = (async () => {
  for (;;) if ((await reader.read()).done) return;
})();

async function timed(args: string[]): Promise<number> {
  const [command, ...rest] = [...CLI, ...args];
  const start = performance.now();
  const output = await new Deno.Command(command as string, {
    args: rest,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { LOOM_MCP_TOKEN: TOKEN, NO_COLOR: "1" },
  }).output();
  const elapsed = performance.now() - start;
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (output.code !== 0 || (args.includes("call") && stdout !== "x")) {
    throw new Error(
      `Cannot time ${args.join(" ")}: exit ${output.code}, stdout ${JSON.stringify(stdout)}, ` +
        new TextDecoder().decode(output.stderr),
    );
  }
  return elapsed;
}

const rows = {
  "warm: --via, through run_program": ["--via", url, "call", "echo", "echo", "text=x"],
  "cold: --stdio, boot + call + retire": ["--stdio", ECHO, "call", "echo", "echo", "text=x"],
  "floor: --version (the command line's own start)": ["--version"],
  "warm: --via tools (connect and list, no program)": ["--via", url, "tools"],
};
const times: Record<string, number[]> = {};
for (const name of Object.keys(rows)) times[name] = [];
for (let round = -2; round < RUNS; round++) {
  for (const [name, args] of Object.entries(rows)) {
    const ms = await timed(args);
    if (round >= 0) times[name]!.push(ms);
  }
}

gateway.kill("SIGTERM");
await drained;
await gateway.status;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0];
console.log(`| command (${RUNS} rounds, alternating, load ${load}) | median | min | p90 |`);
console.log("| --- | ---: | ---: | ---: |");
for (const [name, list] of Object.entries(times)) {
  const sorted = [...list].sort((a, b) => a - b);
  const cells = [quantile(sorted, 0.5), sorted[0] ?? NaN, quantile(sorted, 0.9)]
    .map((ms) => `${(ms / 1000).toFixed(2)} s`);
  console.log(`| ${name} | ${cells.join(" | ")} |`);
}
