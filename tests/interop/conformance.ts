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

/** One run of a scenario at a protocol version (`--spec-version`), or unversioned (an extension's). */
function at(suite: keyof typeof SUITES, scenario: string, version?: string): ScenarioRun {
  return version === undefined ? { suite, scenario } : {
    suite,
    scenario,
    flags: ["--spec-version", version],
  };
}

/**
 * Every scenario run by the script: each client scenario of both suites that
 * needs no OAuth, at each version the suite's `list` gives it; an extension's
 * scenarios (`[extension]`) run once, at the suite's default version.
 */
export const RUNS: readonly ScenarioRun[] = [
  at("0.1.16", "initialize", "2025-06-18"),
  at("0.1.16", "initialize", "2025-11-25"),
  at("0.1.16", "tools_call", "2025-06-18"),
  at("0.1.16", "tools_call", "2025-11-25"),
  at("0.1.16", "elicitation-sep1034-client-defaults", "2025-11-25"),
  at("0.1.16", "sse-retry", "2025-11-25"),
  at("0.2.0-alpha.12", "initialize", "2025-06-18"),
  at("0.2.0-alpha.12", "initialize", "2025-11-25"),
  at("0.2.0-alpha.12", "tools_call", "2025-06-18"),
  at("0.2.0-alpha.12", "tools_call", "2025-11-25"),
  at("0.2.0-alpha.12", "tools_call", "2026-07-28"),
  at("0.2.0-alpha.12", "elicitation-sep1034-client-defaults", "2025-11-25"),
  at("0.2.0-alpha.12", "sse-retry", "2025-11-25"),
  at("0.2.0-alpha.12", "request-metadata", "2026-07-28"),
  at("0.2.0-alpha.12", "sep-2322-client-request-state", "2026-07-28"),
  at("0.2.0-alpha.12", "http-standard-headers", "2026-07-28"),
  at("0.2.0-alpha.12", "http-custom-headers", "2026-07-28"),
  at("0.2.0-alpha.12", "http-invalid-tool-headers", "2026-07-28"),
  at("0.2.0-alpha.12", "json-schema-ref-no-deref", "2026-07-28"),
  at("0.2.0-alpha.12", "json-schema-2020-12-preservation", "2025-11-25"),
  at("0.2.0-alpha.12", "json-schema-2020-12-preservation", "2026-07-28"),
  at("0.2.0-alpha.12", "sep-2640-client-no-prefetch"),
  at("0.2.0-alpha.12", "sep-2640-client-verify-digest"),
  at("0.2.0-alpha.12", "sep-2640-client-verify-size"),
  at("0.2.0-alpha.12", "sep-2640-client-verify-frontmatter"),
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
  // The older suite tells the client no version: the client reads it from the environment it inherits.
  const at = run.flags?.indexOf("--spec-version") ?? -1;
  const version = at === -1 ? undefined : run.flags?.[at + 1];
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
    env: version === undefined
      ? { NO_COLOR: "1" }
      : { NO_COLOR: "1", MCP_CONFORMANCE_PROTOCOL_VERSION: version },
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
