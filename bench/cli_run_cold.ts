// `loom-mcp run` of a one-call program, cold: the whole command's wall time
// (boot of the server, the checker's process, the check, the sandbox, the
// call, retirement), against the echo fixture started at once and against
// the same server started after a second (as a server from npx starts),
// beside a bare `deno run` of an empty module in the same rounds. With
// `--against DIR`, another checkout's command line takes turns with this
// one, round by round.
//
//   deno run -A bench/cli_run_cold.ts [rounds] [--against DIR]     (default 7)

import { parseArgs } from "node:util";
import { median } from "./_mcp_clients.ts";
import { HERE, inTurn, treesAgainst } from "./_trees.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" } },
  allowPositionals: true,
});
const ROUNDS = Number(positionals[0] ?? 7);
const DENO = Deno.execPath();
const TREES = treesAgainst(values.against);
const ECHO = `${HERE}tests/fixtures/echo_server.ts`;
const SERVERS: [string, string[]][] = [
  ["echo, started at once", [DENO, "run", "--quiet", "--no-lock", ECHO]],
  ["echo, started after 1 s", ["sh", "-c", `sleep 1; exec ${DENO} run --quiet --no-lock ${ECHO}`]],
];

const dir = await Deno.makeTempDir({ prefix: "loom-run-cold-" });
const program = `${dir}/program.ts`;
await Deno.writeTextFile(
  program,
  'import { echo } from "./mcp/echo.ts";\nexport default (await echo({ text: "hi" })).text;\n',
);
// One catalog a server, each naming it echo.
const catalogs = await Promise.all(SERVERS.map(async ([, [command, ...args]], index) => {
  const path = `${dir}/loom_${index}.toml`;
  await Deno.writeTextFile(
    path,
    `[mcp.echo]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n`,
  );
  return path;
}));
const empty = `${dir}/empty.ts`;
await Deno.writeTextFile(empty, "");

async function timed(args: string[]): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(DENO, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const elapsed = performance.now() - started;
  if (!out.success) {
    throw new Error(`deno ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return elapsed;
}

const samples = new Map<string, number[]>();
const keep = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value]);
try {
  for (let round = 0; round < ROUNDS; round++) {
    keep("bare", await timed(["run", "--quiet", "--no-lock", empty]));
    const trees = inTurn(TREES, round);
    for (const [index, [name]] of SERVERS.entries()) {
      for (const tree of trees) {
        const cli = `${tree}cli/main.ts`;
        const args = ["run", "-A", "--quiet", "--no-lock", cli, "run", program, catalogs[index]!];
        keep(`${name}|${tree}`, await timed(args));
      }
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

console.log(
  `Deno ${Deno.version.deno}, load ${Deno.loadavg().join(" ")}, ${ROUNDS} rounds, p50 ms`,
);
console.log(`\n| \`loom-mcp run\`, one call | ${TREES.join(" | ")} |`);
console.log(`| --- | ${TREES.map(() => "---:").join(" | ")} |`);
console.log(
  `| bare \`deno run\` of an empty module | ${median(samples.get("bare") ?? []).toFixed(0)} |`,
);
for (const [name] of SERVERS) {
  const cells = TREES.map((tree) => median(samples.get(`${name}|${tree}`) ?? []).toFixed(0));
  console.log(`| ${name} | ${cells.join(" | ")} |`);
}
