/**
 * The whole check of the project, in the order a failure is cheapest to see:
 * formatting, lint, types, documentation, tests, and a publish dry run.
 * `deno task test` runs it; `.ci/run` runs exactly that.
 *
 * Run with `deno task test`; pass `--quick` to skip the publish dry run.
 */

// Every export entry of deno.json, so a new entry is linted without a second list.
const ENTRY_POINTS: string[] = Object.values(
  (JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url))) as {
    exports: Record<string, string>;
  }).exports,
).map((path) => path.replace(/^\.\//, ""));

const CHECKED = [
  "mod.ts",
  "limits.ts",
  "codec/",
  "codegen/",
  "settings/",
  "client/",
  "harness/",
  "catalog/",
  "oauth/",
  "runner/",
  "cli/",
  "server/",
  "gateway/",
  "telemetry/",
  "scripts/",
  "bench/",
  "tests/",
  "examples/demo.ts",
  "examples/echo_server.ts",
];

// npm packages the suite runs as real peers; fetched before the clock of any
// test starts, so a first download never looks like a hang.
const NPM_PEERS = [
  "npm:@modelcontextprotocol/server-everything@2026.8.31",
  "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
  "npm:@modelcontextprotocol/server-memory@2026.8.31",
  "npm:@modelcontextprotocol/server-sequential-thinking@2026.8.31",
];

type Step = { name: string; args: string[]; env?: Record<string, string>; shown?: string };

// Test files run at once: one more than the cores. Most of a test waits on
// the processes it started (servers, checkers, sandboxes), so a file per
// core leaves cores idle; on two cores, three at a time took the test step
// from 610.9 to 549.3 s (fresh clones, one run each). DENO_JOBS, when set, wins.
const TEST_JOBS = Deno.env.get("DENO_JOBS") ?? String(navigator.hardwareConcurrency + 1);

// The test files that take longest, measured (a whole run's JUnit report,
// each file's own time; bench/smoke 87 s, runner_load 78 s, gateway 78 s,
// serve_http 75 s, runner/host/limits 70 s, the rest below 55 s): run first,
// so that no long file is started last and runs alone at the end while the
// short ones are done. Deno runs the files in the order given.
const LONGEST_FIRST = [
  "tests/bench/smoke_test.ts",
  "tests/runner/host/runner_load_test.ts",
  "tests/gateway/gateway_test.ts",
  "tests/cli/serve_http_test.ts",
  "tests/runner/host/limits_test.ts",
  "tests/runner/host/runner_test.ts",
  "tests/readme_test.ts",
  "tests/runner/host/checker_test.ts",
  "tests/cli/serve_test.ts",
  "tests/cli/via_test.ts",
  "tests/runner/host/budget_test.ts",
];

/** Every test file under `tests/` (Deno's own pattern), the longest first, then by path. */
function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && /(?:^|[_.])test\.(?:ts|tsx|mts|js|mjs|jsx)$/.test(entry.name)) {
        found.push(path);
      }
    }
  };
  walk("tests");
  found.sort();
  const first = LONGEST_FIRST.filter((path) => found.includes(path));
  return [...first, ...found.filter((path) => !first.includes(path))];
}

const quick = Deno.args.includes("--quick");

const steps: Step[] = [
  { name: "fmt", args: ["fmt", "--check"] },
  { name: "lint", args: ["lint"] },
  // examples/program.ts imports modules that exist only in a run's build
  // root; the demo's own test runs it, type check included.
  { name: "check", args: ["check", ...CHECKED] },
  // Each entry alone: together, one entry's exports would hide a type another
  // names but does not export.
  ...ENTRY_POINTS.map((entry) => ({ name: `doc ${entry}`, args: ["doc", "--lint", entry] })),
  { name: "cache", args: ["cache", ...NPM_PEERS] },
  // A server started from another folder (a test's temporary catalog) has no
  // lockfile, so Deno resolves it from every dependency's registry listing,
  // which the locked cache above never fetches: fetched here too, so that no
  // test's server downloads while it starts.
  { name: "cache unlocked", args: ["cache", "--no-lock", ...NPM_PEERS] },
  // This Deno leaves the op and resource sanitizers off unless asked; the
  // house rule is that they are on. What the library keeps for the life of
  // the process is opted out in the one test that opens it (tests/_lifetime.ts).
  // The check step has type-checked every test file: checking them again
  // here took 13.6 s of a fresh clone's test step, before any test ran.
  {
    name: "test",
    env: { DENO_JOBS: TEST_JOBS },
    shown:
      "test -A --no-check --parallel --sanitize-ops --sanitize-resources <every file of tests/>",
    args: [
      "test",
      "-A",
      "--no-check",
      "--parallel",
      "--sanitize-ops",
      "--sanitize-resources",
      ...testFiles(),
    ],
  },
];
if (!quick) {
  steps.push({ name: "publish", args: ["publish", "--dry-run", "--allow-dirty"] });
}

const summary: string[] = [];
let failed = 0;
let testLine = "";
for (const step of steps) {
  const started = performance.now();
  console.log(`\n=== ${step.name}: deno ${step.shown ?? step.args.join(" ")}`);
  const command = new Deno.Command(Deno.execPath(), {
    args: step.args,
    stdin: "null",
    stdout: step.name === "test" ? "piped" : "inherit",
    stderr: "inherit",
    env: { NO_COLOR: "1", ...step.env },
  });
  let code: number;
  if (step.name === "test") {
    const child = command.spawn();
    const decoder = new TextDecoder();
    let tail = "";
    for await (const chunk of child.stdout) {
      const text = decoder.decode(chunk, { stream: true });
      await Deno.stdout.write(chunk);
      tail = (tail + text).slice(-4096);
    }
    code = (await child.status).code;
    const match = /(\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed/.exec(tail);
    if (match) testLine = `tests: ${match[1]} passed, ${match[3]} failed`;
  } else {
    code = (await command.output()).code;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  summary.push(
    `${step.name.padEnd(28)} ${code === 0 ? "ok" : `FAILED (exit ${code})`}  ${seconds} s`,
  );
  if (code !== 0) failed++;
}

console.log("\n=== summary");
for (const line of summary) console.log(line);
if (testLine !== "") console.log(testLine);
console.log(`steps: ${steps.length - failed} passed, ${failed} failed`);
Deno.exit(failed === 0 ? 0 : 1);
