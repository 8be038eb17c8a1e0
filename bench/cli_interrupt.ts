// How long the command line takes to end after Ctrl-C while servers start:
// `loom-mcp check` of a server that never answers, once one that exits on
// SIGTERM and once one that ignores it (only SIGKILL ends it), SIGINT sent
// to the command as soon as its boot table's header is out. Prints the
// median of `--runs` (5 by default) for each, from SIGINT to the command's
// exit, and the exit status.
//
//   deno run -A bench/cli_interrupt.ts
//   deno run -A bench/cli_interrupt.ts --runs 9

import { parseArgs } from "node:util";

const CLI = new URL("../cli/main.ts", import.meta.url).pathname;
const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? "5");

const SERVERS: [string, string][] = [
  ["hung, exits on SIGTERM", "sleep 300"],
  ["hung, ignores SIGTERM", `sh -c "trap '' TERM INT; exec sleep 300"`],
];

async function once(server: string): Promise<{ ms: number; code: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", CLI, "--stdio", server, "--name", "hang", "check"],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let shown = "";
  while (!shown.includes("server info")) {
    const { done, value } = await reader.read();
    if (done) break;
    shown += value;
  }
  const sent = performance.now();
  child.kill("SIGINT");
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
  }
  const status = await child.status;
  return { ms: performance.now() - sent, code: status.code };
}

for (const [label, server] of SERVERS) {
  const times: number[] = [];
  const codes = new Set<number>();
  for (let run = 0; run < RUNS; run++) {
    const { ms, code } = await once(server);
    times.push(ms);
    codes.add(code);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? NaN;
  console.log(
    `${label.padEnd(24)} Ctrl-C to exit: median ${(median / 1000).toFixed(2)} s, ` +
      `max ${((times.at(-1) ?? NaN) / 1000).toFixed(2)} s (exit ${[...codes].join("/")})`,
  );
}
