// A fast subset of the conformance suite's client scenarios, natively over
// HTTP; `deno run -A tests/interop/conformance.ts` runs them all.

import assert from "node:assert/strict";
import { runScenario, type ScenarioRun } from "./conformance.ts";

const FAST: readonly ScenarioRun[] = [
  { suite: "0.2.0-alpha.12", scenario: "tools_call" },
  { suite: "0.2.0-alpha.12", scenario: "tools_call", flags: ["--spec-version", "2026-07-28"] },
  { suite: "0.2.0-alpha.12", scenario: "request-metadata" },
  { suite: "0.2.0-alpha.12", scenario: "sse-retry" },
  { suite: "0.2.0-alpha.12", scenario: "http-standard-headers" },
  { suite: "0.2.0-alpha.12", scenario: "http-custom-headers" },
  { suite: "0.2.0-alpha.12", scenario: "http-invalid-tool-headers" },
  { suite: "0.2.0-alpha.12", scenario: "sep-2322-client-request-state" },
  { suite: "0.2.0-alpha.12", scenario: "elicitation-sep1034-client-defaults" },
  { suite: "0.1.16", scenario: "elicitation-sep1034-client-defaults" },
  { suite: "0.2.0-alpha.12", scenario: "sep-2640-client-no-prefetch" },
  { suite: "0.2.0-alpha.12", scenario: "sep-2640-client-verify-digest" },
  { suite: "0.2.0-alpha.12", scenario: "sep-2640-client-verify-size" },
  { suite: "0.2.0-alpha.12", scenario: "sep-2640-client-verify-frontmatter" },
];

Deno.test("the conformance suite's client scenarios pass over HTTP (fast subset)", async (t) => {
  for (const run of FAST) {
    await t.step(`${run.scenario} ${run.flags?.join(" ") ?? ""}`.trim(), async () => {
      const outcome = await runScenario(run);
      assert.ok(outcome.overall, outcome.output);
      assert.equal(outcome.passed, outcome.total);
    });
  }
});
