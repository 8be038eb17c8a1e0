// A smoke run of the SDK comparison benchmark: a few iterations of every
// row, asserting only that it completes and prints its table. Figures are
// not checked here; `deno task bench` is where they are read.

import assert from "node:assert/strict";

const BENCH = new URL("../../bench/sdk_bench.ts", import.meta.url).pathname;

/** Where this Deno keeps its cache, whether `DENO_DIR` says so or the default does. */
async function denoDir(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdin: "null",
    stderr: "null",
  }).output();
  return (JSON.parse(new TextDecoder().decode(output.stdout)) as { denoDir: string }).denoDir;
}

Deno.test("sdk_bench --quick completes every row and prints the table, its cache in DENO_DIR", async () => {
  // The run's HOME holds a file named .cache, so a server started with the
  // default cache (one that was not given DENO_DIR) cannot make one and fails
  // at once: both clients' servers must find their packages in DENO_DIR.
  const home = await Deno.makeTempDir({ prefix: "sdk_bench_home_" });
  let output: Deno.CommandOutput;
  try {
    await Deno.writeTextFile(`${home}/.cache`, "");
    output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-lock", BENCH, "--quick"],
      env: { HOME: home, DENO_DIR: await denoDir() },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `the benchmark failed:\n${stdout}\n${stderr}`);
  for (const row of ["1 connect+list, echo", "2 peak RSS", "3 echo round trip", "4 memory"]) {
    assert.ok(stdout.includes(row), `no row ${JSON.stringify(row)} in:\n${stdout}`);
  }
  for (const row of ["5 one 8 MiB text result", "6 shutdown"]) {
    assert.ok(stdout.includes(row), `no row ${JSON.stringify(row)} in:\n${stdout}`);
  }
  // Each of the hot path's six bounds is found and given its ratio.
  const hot = stdout.split("\n").find((line) => line.startsWith("hot path, ratios in this run: "));
  assert.ok(hot !== undefined, `no hot-path line in:\n${stdout}`);
  assert.equal(hot.match(/ \d+\.\d\d \([≥≤] /g)?.length, 6, hot);
  // So are the design's own least costs against rows 2 and 6's bounds.
  const least = stdout.split("\n").find((line) =>
    line.startsWith("the design's least, in this run: ")
  );
  assert.ok(least !== undefined, `no line of the design's least costs in:\n${stdout}`);
  assert.equal(least.match(/ \d+\.\d\d× /g)?.length, 2, least);
});

Deno.test("every module of deno bench that registers benches loads", async () => {
  // Their top-level code runs when `deno bench` loads them (their figures,
  // their inputs); a filter no bench matches runs none of the benches.
  const dir = new URL("../../bench/", import.meta.url).pathname;
  const modules: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith("_bench.ts")) continue;
    if (Deno.readTextFileSync(`${dir}${entry.name}`).includes("Deno.bench(")) {
      modules.push(`${dir}${entry.name}`);
    }
  }
  assert.ok(modules.length >= 5, `found only ${modules.join(", ")}`);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["bench", "-A", "--no-lock", "--filter", "^no bench has this name$", ...modules.sort()],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `a bench module failed to load:\n${text}`);
});
