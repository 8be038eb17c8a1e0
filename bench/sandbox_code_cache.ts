// What a V8 code cache would save a cold sandbox, measured before building
// it: the sandbox's own files (`prelude.js`, `cap.js`, `tools.js`, as
// `deno task generate` makes them) loaded in a Worker of a process started
// with the sandbox's flags, in alternating rounds:
//
// - a process and one empty Worker (the floor of a sandbox);
// - the same Worker loading the prelude, code cache off (as the runner starts it);
// - the same with Deno's V8 code cache on, its `DENO_DIR` a fresh copy per
//   start of a template written once by a trusted warm-up start (so that no
//   start ever writes what the next one reads), the copy's time counted;
// - the same reading the template itself, which each start may also write
//   (what a cache saves at most; not something the runner could do).
//
// Deno keys its code cache by module URL, so the files sit at one path for
// every start here; the runner gives each sandbox a build root of its own,
// which a cache would need changed (a shared folder of the trusted files).
//
//   deno run -A bench/sandbox_code_cache.ts [rounds]     (default 21)

import { CAP_SCRIPT, PRELUDE_SCRIPT, TOOLS_SCRIPT } from "../_generated/sandbox_sources.ts";
import { median } from "./_mcp_clients.ts";
import { sandboxEnv, sandboxFlags } from "../runner/host/_sandbox.ts";

const ROUNDS = Number(Deno.args[0] ?? 21);
const DENO = Deno.execPath();
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-cache-bench-" }));
const root = `${base}/root/`;

/** The runner's sandbox flags, with the code cache left on when `cache`. */
function flags(cache: boolean): string[] {
  const all = sandboxFlags(root, { importMap: `${base}/import_map.json`, memoryMb: 256 });
  return cache ? all.filter((flag) => flag !== "--no-code-cache") : all;
}

/** A main module that starts `worker` and exits at its first message. */
function starter(worker: string): string {
  return `const w = new Worker(new URL("./${worker}", import.meta.url), { type: "module" });\n` +
    "w.onmessage = () => Deno.exit(0);\n";
}

async function spawn(args: string[], denoDir: string): Promise<void> {
  const out = await new Deno.Command(DENO, {
    args,
    env: sandboxEnv(denoDir),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

try {
  await Deno.mkdir(root, { recursive: true });
  await Deno.mkdir(`${base}/template`);
  await Deno.writeTextFile(`${base}/sealed`, "");
  await Promise.all([
    Deno.writeTextFile(`${root}cap.js`, CAP_SCRIPT),
    Deno.writeTextFile(`${root}prelude.js`, PRELUDE_SCRIPT),
    Deno.writeTextFile(`${root}tools.js`, TOOLS_SCRIPT),
    Deno.writeTextFile(`${root}empty.js`, 'postMessage({ kind: "ready" });\n'),
    Deno.writeTextFile(`${root}start_empty.js`, starter("empty.js")),
    Deno.writeTextFile(`${root}start_prelude.js`, starter("prelude.js")),
    Deno.writeTextFile(
      `${base}/import_map.json`,
      JSON.stringify({ imports: { "@loom/mcp/cap": `file://${root}cap.js` } }),
    ),
  ]);
  // The trusted warm-up: the only start that writes the template.
  await spawn([...flags(true), `${root}start_prelude.js`], `${base}/template`);
  const cacheFiles = [...Deno.readDirSync(`${base}/template`)]
    .filter((entry) => entry.isFile && entry.name.startsWith("v8_code_cache"))
    .map((entry) => entry.name);
  let copies = 0;
  const sealed = `${base}/sealed/deno_dir`;
  const variants: Record<string, () => Promise<void>> = {
    "a process and one empty Worker (the floor)": () =>
      spawn([...flags(false), `${root}start_empty.js`], sealed),
    "the Worker loading the prelude, code cache off (now)": () =>
      spawn([...flags(false), `${root}start_prelude.js`], sealed),
    "the same, code cache read from a fresh copy of the template": async () => {
      const dir = `${base}/copy${copies++}`;
      await Deno.mkdir(dir);
      await Promise.all(
        cacheFiles.map((name) => Deno.copyFile(`${base}/template/${name}`, `${dir}/${name}`)),
      );
      await spawn([...flags(true), `${root}start_prelude.js`], dir);
    },
    // What a cache could save at most: every start opens the template itself,
    // which it may also write, so the runner could not do this.
    "the same, the template itself (writable: the most a cache saves)": () =>
      spawn([...flags(true), `${root}start_prelude.js`], `${base}/template`),
  };
  const times = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(variants);
    // Alternate which goes first.
    if (round % 2 === 1) names.reverse();
    for (const name of names) {
      const started = performance.now();
      await variants[name]!();
      const list = times.get(name) ?? [];
      list.push(performance.now() - started);
      times.set(name, list);
    }
  }
  const floor = median(times.get("a process and one empty Worker (the floor)")!);
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  console.log(`Deno ${Deno.version.deno}, load ${load}, ${ROUNDS} rounds, medians\n`);
  console.log("| spawn to the Worker's first message | p50 ms | above the floor, ms |");
  console.log("| --- | ---: | ---: |");
  for (const [name, list] of times) {
    const p50 = median(list);
    console.log(`| ${name} | ${p50.toFixed(1)} | ${(p50 - floor).toFixed(1)} |`);
  }
} finally {
  await Deno.remove(base, { recursive: true });
}
