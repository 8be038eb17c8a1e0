// The command line beside its peers, in one run, on the same tasks against
// the same local servers: `loom-mcp` (this checkout, under `deno run`),
// mcporter 0.12.3 (`npx -y mcporter@0.12.3`) and the MCP Inspector's CLI
// 2.12.0 (`npx -y @modelcontextprotocol/inspector@2.12.0 --cli`). Each task
// is run `--runs` times per tool (3 by default), the tools taking turns, after
// one warm-up each so that npx's first download is not timed; the table gives
// each median wall time and the exit status. It exits 1 when loom-mcp is not
// the fastest on every task.
//
//   deno run -A bench/cli_peers.ts            three runs of every task
//   deno run -A bench/cli_peers.ts --runs 7
//
// The tasks: list the tools of a server, call one, read a broken config
// (its one entry has a number for a command), start a failing server (it
// exits at once with an error on stderr). The servers are this repository's
// fixtures, started by Deno, for every tool alike.

import { parseArgs } from "node:util";

const ROOT = new URL("../", import.meta.url).pathname;
const DENO = Deno.execPath();
const FIXTURES = `${ROOT}tests/fixtures/`;
const ECHO = [DENO, "run", "--quiet", "--no-lock", `${FIXTURES}echo_server.ts`];
const FAILING = [DENO, "run", "--quiet", "--no-lock", `${FIXTURES}exit_at_start.ts`];

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? "3");

type Task = "list tools" | "call one tool" | "broken config" | "failing server";
type Tool = { name: string; argv: (task: Task, broken: string) => string[] };

const LOOM = [DENO, "run", "-A", "--quiet", "--no-lock", `${ROOT}cli/main.ts`];
const MCPORTER = ["npx", "-y", "mcporter@0.12.3"];
const INSPECTOR = ["npx", "-y", "@modelcontextprotocol/inspector@2.12.0", "--cli"];

const TOOLS: Tool[] = [
  {
    name: "loom-mcp",
    argv: (task, broken) => {
      switch (task) {
        case "list tools":
          return [...LOOM, "--stdio", ECHO.join(" "), "tools"];
        case "call one tool":
          return [...LOOM, "--stdio", ECHO.join(" "), "call", "echo", "echo", "text=hi"];
        case "broken config":
          return [...LOOM, "check", broken];
        case "failing server":
          return [...LOOM, "--stdio", FAILING.join(" "), "check"];
      }
    },
  },
  {
    name: "mcporter 0.12.3",
    argv: (task, broken) => {
      const echo = ["--stdio", ECHO.join(" "), "--name", "echo"];
      switch (task) {
        case "list tools":
          return [...MCPORTER, "list", ...echo, "--schema"];
        case "call one tool":
          return [...MCPORTER, "call", "--server", "echo", "--tool", "echo", "text=hi", ...echo];
        case "broken config":
          return [...MCPORTER, "--config", broken, "list"];
        case "failing server":
          return [...MCPORTER, "list", "--stdio", FAILING.join(" "), "--name", "failing"];
      }
    },
  },
  {
    name: "inspector 2.12.0",
    argv: (task, broken) => {
      switch (task) {
        case "list tools":
          return [...INSPECTOR, ...ECHO, "--method", "tools/list"];
        case "call one tool":
          return [
            ...INSPECTOR,
            ...ECHO,
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=hi",
          ];
        case "broken config":
          return [...INSPECTOR, "--config", broken, "--server", "broken", "--method", "tools/list"];
        case "failing server":
          return [...INSPECTOR, ...FAILING, "--method", "tools/list"];
      }
    },
  },
];

const TASKS: Task[] = ["list tools", "call one tool", "broken config", "failing server"];

async function time(argv: string[], cwd: string): Promise<{ ms: number; code: number }> {
  const [command, ...args] = argv;
  const started = performance.now();
  const output = await new Deno.Command(command as string, {
    args,
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    env: { NO_COLOR: "1", npm_config_loglevel: "silent" },
  }).output();
  return { ms: performance.now() - started, code: output.code };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const dir = await Deno.makeTempDir({ prefix: "cli_peers_" });
try {
  const broken = `${dir}/broken.json`;
  await Deno.writeTextFile(broken, JSON.stringify({ mcpServers: { broken: { command: 42 } } }));
  // Warm-up: npx fetches each peer once, Deno compiles the command line once.
  for (const tool of TOOLS) await time(tool.argv("list tools", broken), dir);
  const results = new Map<string, { ms: number[]; codes: Set<number> }>();
  for (const task of TASKS) {
    for (let run = 0; run < RUNS; run++) {
      // The tools take turns, the first one changing from run to run.
      for (let i = 0; i < TOOLS.length; i++) {
        const tool = TOOLS[(i + run) % TOOLS.length] as Tool;
        const key = `${task}\u0000${tool.name}`;
        const { ms, code } = await time(tool.argv(task, broken), dir);
        const entry = results.get(key) ?? { ms: [], codes: new Set<number>() };
        entry.ms.push(ms);
        entry.codes.add(code);
        results.set(key, entry);
      }
    }
  }
  const header = ["task", ...TOOLS.map((tool) => tool.name)];
  const rows: string[][] = [header];
  let fastest = true;
  for (const task of TASKS) {
    const medians = TOOLS.map((tool) => median(results.get(`${task}\u0000${tool.name}`)!.ms));
    if (medians.some((ms, index) => index > 0 && ms <= (medians[0] as number))) fastest = false;
    rows.push([
      task,
      ...TOOLS.map((tool, index) => {
        const codes = [...results.get(`${task}\u0000${tool.name}`)!.codes].join("/");
        return `${((medians[index] as number) / 1000).toFixed(2)} s (exit ${codes})`;
      }),
    ]);
  }
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  console.log(`median wall time of ${RUNS} runs each, on ${navigator.hardwareConcurrency} cores\n`);
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
  console.log(`\nloom-mcp fastest on every task: ${fastest ? "yes" : "NO"}`);
  if (!fastest) Deno.exitCode = 1;
} finally {
  await Deno.remove(dir, { recursive: true });
}
