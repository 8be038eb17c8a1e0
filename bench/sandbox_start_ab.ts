// What a cold sandbox costs, from spawn to its program's result, beside its
// peers in one run, in alternating rounds:
//
// - a bare `deno run` of an empty module (the unit of every ratio);
// - a process whose main module starts one empty Worker and exits at its first
//   message, with the sandbox's flags: the floor of a sandbox, whose program
//   must run in a Worker (a main module may import any file, whatever the
//   read permission; DESIGN.md, "The code-mode runner");
// - a sandbox as the runner starts it (`startSandbox`: the room's files as
//   the JavaScript `deno task generate` makes);
// - the same sandbox with the room's TypeScript sources instead (before),
//   which the sandbox transpiles at every start, its emit cache being off.
//
//   deno run -A bench/sandbox_start_ab.ts [rounds]     (default 15)

import { sandboxEnv, sandboxFlags, startSandbox } from "../runner/host/_sandbox.ts";
import { CAP_SPECIFIER } from "../runner/host/run.ts";
import { median, quantile } from "./_mcp_clients.ts";

const ROUNDS = Number(Deno.args[0] ?? 15);
const NONCE = "0123456789abcdef0123456789abcdef";
const HEAP_MB = 256;

function flags(root: string, importMap: string | undefined): string[] {
  return sandboxFlags(root, {
    ...(importMap === undefined ? {} : { importMap }),
    memoryMb: HEAP_MB,
  });
}

function sealed(base: string): Record<string, string> {
  return sandboxEnv(`${base}/sealed/deno_dir`);
}

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

/** Spawn to the exit of a process that starts one empty Worker, with the sandbox's flags. */
async function emptyWorker(base: string): Promise<number> {
  const started = performance.now();
  const result = await new Deno.Command(Deno.execPath(), {
    args: [...flags(`${base}/`, undefined), `${base}/main.js`],
    env: sealed(base),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
  return elapsed;
}

/** Spawn to the first frame of `export default 1`, as the runner starts a sandbox. */
async function sandbox(base: string, main: string): Promise<number> {
  const root = `${base}/root/`;
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...flags(root, `${base}/import_map.json`), `${root}${main}`],
    env: sealed(base),
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

/** A copy of a build root the runner made, its program written, its own process gone. */
async function copyRoot(): Promise<string> {
  const made = await startSandbox({
    deno: Deno.execPath(),
    memoryMb: HEAP_MB,
    capSpecifier: CAP_SPECIFIER,
    tempDir: undefined,
  });
  const base = made.rootPath.replace(/\/root\/$/, "");
  const copy = await Deno.makeTempDir({ prefix: "loom-start-ab-" });
  await new Deno.Command("cp", { args: ["-r", `${base}/.`, copy] }).output();
  await made.dispose();
  await Deno.writeTextFile(`${copy}/root/program.ts`, "export default 1;\n");
  const map = await Deno.readTextFile(`${copy}/import_map.json`);
  await Deno.writeTextFile(`${copy}/import_map.json`, map.replaceAll(base, copy));
  return copy;
}

/** The same root with the room's TypeScript sources, as the runner wrote them before. */
async function typescriptRoot(): Promise<string> {
  const copy = await Deno.makeTempDir({ prefix: "loom-start-ts-" });
  const root = `${copy}/root/`;
  await Deno.mkdir(`${root}mcp`, { recursive: true });
  for (const name of ["bootstrap", "prelude", "cap", "tags", "tools"]) {
    await Deno.copyFile(
      new URL(`../runner/sandbox/${name}.ts`, import.meta.url),
      `${root}${name}.ts`,
    );
  }
  await Deno.writeTextFile(`${copy}/sealed`, "");
  await Deno.writeTextFile(`${root}program.ts`, "export default 1;\n");
  await Deno.writeTextFile(
    `${copy}/import_map.json`,
    JSON.stringify({ imports: { [CAP_SPECIFIER]: `file://${root}cap.ts` } }),
  );
  return copy;
}

async function emptyWorkerRoot(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "loom-start-worker-" });
  await Deno.writeTextFile(`${dir}/sealed`, "");
  await Deno.writeTextFile(
    `${dir}/main.js`,
    'new Worker(new URL("./worker.js", import.meta.url), { type: "module" }).onmessage = () => Deno.exit(0);\n',
  );
  await Deno.writeTextFile(`${dir}/worker.js`, "self.postMessage(1);\n");
  return dir;
}

if (import.meta.main) {
  const empty = await Deno.makeTempFile({ suffix: ".ts" });
  const javascript = await copyRoot();
  const typescript = await typescriptRoot();
  const worker = await emptyWorkerRoot();
  try {
    const samples = {
      bare: [] as number[],
      worker: [] as number[],
      js: [] as number[],
      ts: [] as number[],
    };
    for (let round = 0; round < ROUNDS + 2; round++) {
      const b = await bare(empty);
      const w = await emptyWorker(worker);
      const js = await sandbox(javascript, "bootstrap.js");
      const ts = await sandbox(typescript, "bootstrap.ts");
      if (round < 2) continue;
      samples.bare.push(b);
      samples.worker.push(w);
      samples.js.push(js);
      samples.ts.push(ts);
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
        row("a process and one empty Worker (the floor)", samples.worker, floor),
        row("a sandbox, its files as JavaScript (as the runner starts it)", samples.js, floor),
        row("a sandbox, its files as TypeScript (before)", samples.ts, floor),
      ].join("\n"),
    );
  } finally {
    for (const dir of [javascript, typescript, worker]) await Deno.remove(dir, { recursive: true });
    await Deno.remove(empty);
  }
}
