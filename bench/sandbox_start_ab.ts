// What a sandbox costs to start, from spawn to its program's result, beside a
// bare `deno run` of an empty module, in one run: a build root made by the
// runner (`startSandbox`), then its command run by hand twice per round, with
// the transpile cache disabled (`DENO_EMIT_CACHE_MODE=disable`, as the runner
// runs it) and enabled. The sandbox's DENO_DIR lies below a regular file, so
// an enabled cache fails to save each transpiled module, and Deno retries.
//
//   deno run -A bench/sandbox_start_ab.ts [rounds]     (default 15)

import { startSandbox } from "../runner/host/_sandbox.ts";
import { CAP_SPECIFIER } from "../runner/host/run.ts";
import { median, quantile } from "./_mcp_clients.ts";

const ROUNDS = Number(Deno.args[0] ?? 15);
const NONCE = "0123456789abcdef0123456789abcdef";

async function bare(empty: string): Promise<number> {
  const started = performance.now();
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--no-lock", "--quiet", empty],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return performance.now() - started;
}

/** Spawn to the first frame of `export default 1`, as the runner starts a sandbox. */
async function sandbox(base: string, emitCache: boolean): Promise<number> {
  const root = `${base}/root/`;
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--no-remote",
      "--no-npm",
      "--no-config",
      "--no-lock",
      "--quiet",
      "--no-code-cache",
      `--allow-read=${root}`,
      `--import-map=${base}/import_map.json`,
      "--v8-flags=--disallow-code-generation-from-strings,--max-old-space-size=256",
      `${root}bootstrap.ts`,
    ],
    env: {
      DENO_DIR: `${base}/sealed/deno_dir`,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      ...(emitCache ? {} : { DENO_EMIT_CACHE_MODE: "disable" }),
    },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`${NONCE}\n`));
  const decoder = new TextDecoder();
  let seen = "";
  for await (const chunk of child.stdout) {
    seen += decoder.decode(chunk, { stream: true });
    if (seen.includes(`${NONCE} `)) break;
  }
  const elapsed = performance.now() - started;
  await writer.close().catch(() => {});
  await child.status;
  if (!seen.includes('"kind":"done"')) throw new Error(`the sandbox said: ${seen}`);
  return elapsed;
}

function row(name: string, samples: number[], floor: number): string {
  const p50 = median(samples);
  return `| ${name} | ${p50.toFixed(1)} | ${quantile(samples, 0.9).toFixed(1)} | ${
    (p50 / floor).toFixed(2)
  }x |`;
}

if (import.meta.main) {
  const empty = await Deno.makeTempFile({ suffix: ".ts" });
  const made = await startSandbox({
    deno: Deno.execPath(),
    memoryMb: 256,
    capSpecifier: CAP_SPECIFIER,
    tempDir: undefined,
  });
  // Its root is what is needed; its own process is not.
  const base = made.rootPath.replace(/\/root\/$/, "");
  const copy = await Deno.makeTempDir({ prefix: "loom-start-ab-" });
  try {
    await new Deno.Command("cp", { args: ["-r", `${base}/.`, copy] }).output();
    await made.dispose();
    await Deno.writeTextFile(`${copy}/root/program.ts`, "export default 1;\n");
    await Deno.writeTextFile(
      `${copy}/import_map.json`,
      JSON.stringify({ imports: { [CAP_SPECIFIER]: `file://${copy}/root/cap.ts` } }),
    );
    const samples = { bare: [] as number[], off: [] as number[], on: [] as number[] };
    for (let round = 0; round < ROUNDS + 2; round++) {
      const b = await bare(empty);
      const off = await sandbox(copy, false);
      const on = await sandbox(copy, true);
      if (round < 2) continue;
      samples.bare.push(b);
      samples.off.push(off);
      samples.on.push(on);
    }
    const floor = median(samples.bare);
    console.log(
      [
        `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load ${
          Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")
        }, ${ROUNDS} rounds`,
        "",
        "| spawn to result | p50 ms | p90 ms | p50 / bare |",
        "| --- | ---: | ---: | ---: |",
        row("bare `deno run` of an empty module", samples.bare, floor),
        row("a sandbox, emit cache disabled (as the runner starts it)", samples.off, floor),
        row("a sandbox, emit cache enabled (before)", samples.on, floor),
      ].join("\n"),
    );
  } finally {
    await Deno.remove(copy, { recursive: true });
    await Deno.remove(empty);
  }
}
