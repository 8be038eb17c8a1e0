// The MCP conformance suite's client scenarios against this library, over
// HTTP, no bridge: `deno run -A tests/interop/conformance.ts` runs every
// scenario that needs no OAuth, under Deno, with tests/interop/
// conformance_client.ts as the client under test, and prints one line per
// scenario and a summary. It exits 0 when every scenario expected to pass
// passed; the scenarios out of this library's scope are run too and shown
// with the reason. tests/interop/conformance_test.ts runs a fast subset.

/** A conformance package, as Deno runs it. */
export const SUITES = {
  "0.1.16": "npm:@modelcontextprotocol/conformance@0.1.16",
  "0.2.0-alpha.12": "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12",
} as const;

/** One run: the suite, the scenario, extra flags, and why it cannot pass if it cannot. */
export type ScenarioRun = {
  suite: keyof typeof SUITES;
  scenario: string;
  flags?: string[];
  outOfScope?: string;
};

/** What a run came to. */
export type ScenarioOutcome = {
  passed: number;
  total: number;
  overall: boolean;
  failures: string[];
  output: string;
};

const CLIENT = new URL("./conformance_client.ts", import.meta.url).pathname;

/** Every scenario run by the script: the client scenarios that need no OAuth. */
export const RUNS: readonly ScenarioRun[] = [
  { suite: "0.1.16", scenario: "initialize" },
  { suite: "0.1.16", scenario: "tools_call" },
  { suite: "0.1.16", scenario: "elicitation-sep1034-client-defaults" },
  { suite: "0.2.0-alpha.12", scenario: "initialize" },
  { suite: "0.2.0-alpha.12", scenario: "tools_call" },
  { suite: "0.2.0-alpha.12", scenario: "tools_call", flags: ["--spec-version", "2026-07-28"] },
  { suite: "0.2.0-alpha.12", scenario: "sse-retry" },
  { suite: "0.2.0-alpha.12", scenario: "request-metadata" },
  { suite: "0.2.0-alpha.12", scenario: "http-standard-headers" },
  { suite: "0.2.0-alpha.12", scenario: "http-custom-headers" },
  { suite: "0.2.0-alpha.12", scenario: "http-invalid-tool-headers" },
  { suite: "0.2.0-alpha.12", scenario: "json-schema-ref-no-deref" },
  { suite: "0.2.0-alpha.12", scenario: "json-schema-2020-12-preservation" },
  { suite: "0.2.0-alpha.12", scenario: "sep-2322-client-request-state" },
  { suite: "0.2.0-alpha.12", scenario: "elicitation-sep1034-client-defaults" },
];

// deno-lint-ignore no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Runs one scenario with a client of this library (`client`, the path of its
 * script; conformance_client.ts by default; `denoFlags` go before it, such as
 * `--unstable-worker-options`); never throws on a failing scenario.
 */
export async function runScenario(
  run: ScenarioRun,
  client = CLIENT,
  denoFlags: readonly string[] = [],
): Promise<ScenarioOutcome> {
  const flags = denoFlags.length === 0 ? "" : ` ${denoFlags.join(" ")}`;
  const command = `${Deno.execPath()} run -A --quiet --no-lock${flags} ${client}`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      SUITES[run.suite],
      "client",
      "--command",
      command,
      "--scenario",
      run.scenario,
      ...(run.flags ?? []),
    ],
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const text = (new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr))
    .replace(ANSI, "");
  const summary = /Passed: (\d+)\/(\d+)/.exec(text);
  const failures = text.split("\n").filter((line) => /\b(FAILURE|WARNING)\b/.test(line))
    .map((line) => line.replace(/^\S+Z\s*/, "").trim());
  return {
    passed: Number(summary?.[1] ?? 0),
    total: Number(summary?.[2] ?? 0),
    overall: /OVERALL: PASSED/.test(text),
    failures,
    output: text,
  };
}

if (import.meta.main) {
  let unexpected = 0;
  for (const run of RUNS) {
    const started = performance.now();
    const outcome = await runScenario(run);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const name = `${run.suite} ${run.scenario}${run.flags ? ` ${run.flags.join(" ")}` : ""}`;
    const verdict = outcome.overall
      ? "PASSED"
      : run.outOfScope
      ? "FAILED (out of scope)"
      : "FAILED";
    console.log(
      `${verdict.padEnd(22)} ${
        name.padEnd(64)
      } ${outcome.passed}/${outcome.total} checks, ${seconds} s`,
    );
    if (!outcome.overall && run.outOfScope !== undefined) console.log(`  why: ${run.outOfScope}`);
    if (!outcome.overall) { for (const failure of outcome.failures) console.log(`  ${failure}`); }
    if (!outcome.overall && run.outOfScope === undefined) unexpected++;
  }
  console.log(
    unexpected === 0 ? "every scenario in scope passed" : `${unexpected} in scope failed`,
  );
  Deno.exit(unexpected === 0 ? 0 : 1);
}
