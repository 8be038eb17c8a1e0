// The conformance suite's authorization scenarios (`auth/*`) against the
// oauth/ room, over HTTP, under Deno: `deno run -A tests/interop/conformance_auth.ts`
// runs every one of the 33 at the spec versions it applies to (the 14 that
// apply at both 2025-11-25 and 2026-07-28 at both: 47 runs), with
// tests/interop/conformance_auth_client.ts as the client under test, and
// prints one line per run and a summary. With `--library`, the client under
// test is the library's own (conformance_auth_library.ts: a census whose
// least-privilege worker sends only the headers the main thread's sign-in
// gives it) instead of the plain-fetch one. Like conformance.ts, every server
// involved is the suite's own, on this machine's loopback interface: nothing
// leaves the machine. Pass scenario names (`auth/dpop`) to run only those.
// It exits 0 when every run passed.

import { runScenario, type ScenarioRun } from "./conformance.ts";

const CLIENT = new URL("./conformance_auth_client.ts", import.meta.url).pathname;
const LIBRARY = new URL("./conformance_auth_library.ts", import.meta.url).pathname;

/** The scenarios that apply at both 2025-11-25 and 2026-07-28. */
const BOTH = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
];

/** The scenarios of 2025-03-26 alone. */
const MARCH = [
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
];

/** The scenarios of 2026-07-28 alone. */
const DRAFT = [
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/authorization-server-migration",
  "auth/iss-supported",
  "auth/iss-not-advertised",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
];

/** The extensions, run at the suite's default version. */
const EXTENSIONS = [
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
  "auth/enterprise-managed-authorization",
  "auth/dpop",
  "auth/dpop-nonce",
  "auth/wif-jwt-bearer",
];

function at(scenario: string, version?: string): ScenarioRun {
  const run: ScenarioRun = { suite: "0.2.0-alpha.12", scenario };
  if (version !== undefined) run.flags = ["--spec-version", version];
  return run;
}

/** Every run: 47. */
export const AUTH_RUNS: readonly ScenarioRun[] = [
  ...BOTH.flatMap((scenario) => [at(scenario, "2025-11-25"), at(scenario, "2026-07-28")]),
  ...MARCH.map((scenario) => at(scenario, "2025-03-26")),
  ...DRAFT.map((scenario) => at(scenario, "2026-07-28")),
  ...EXTENSIONS.map((scenario) => at(scenario)),
];

/**
 * Runs one authorization scenario with the oauth/ room's plain client, or,
 * with `library`, with the library's own client under least privilege.
 */
export function runAuthScenario(run: ScenarioRun, options: { library?: boolean } = {}) {
  return options.library
    ? runScenario(run, LIBRARY, ["--unstable-worker-options"])
    : runScenario(run, CLIENT);
}

if (import.meta.main) {
  const library = Deno.args.includes("--library");
  const only = new Set(Deno.args.filter((arg) => arg !== "--library"));
  const runs = AUTH_RUNS.filter((run) => only.size === 0 || only.has(run.scenario));
  let failed = 0;
  for (const run of runs) {
    const started = performance.now();
    const outcome = await runAuthScenario(run, { library });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const name = `${run.scenario}${run.flags ? ` ${run.flags.join(" ")}` : ""}`;
    console.log(
      `${(outcome.overall ? "PASSED" : "FAILED").padEnd(7)} ${name.padEnd(64)} ` +
        `${outcome.passed}/${outcome.total} checks, ${seconds} s`,
    );
    if (!outcome.overall) {
      failed++;
      for (const failure of outcome.failures) console.log(`  ${failure}`);
    }
  }
  console.log(`${runs.length - failed} of ${runs.length} runs passed`);
  Deno.exit(failed === 0 ? 0 : 1);
}
