// A fast subset of the conformance suite's authorization scenarios against
// the oauth/ room: one of each family (discovery, registration, token
// endpoint authentication, step-up, iss checks, migration, the 2025-03-26
// fallback, and each headless extension); `deno run -A
// tests/interop/conformance_auth.ts` runs all 47.

import assert from "node:assert/strict";
import { AUTH_RUNS, runAuthScenario } from "./conformance_auth.ts";

const FAST = [
  "auth/metadata-var3 --spec-version 2026-07-28",
  "auth/token-endpoint-auth-basic --spec-version 2025-11-25",
  "auth/scope-step-up --spec-version 2026-07-28",
  "auth/scope-retry-limit --spec-version 2025-11-25",
  "auth/iss-normalized --spec-version 2026-07-28",
  "auth/authorization-server-migration --spec-version 2026-07-28",
  "auth/2025-03-26-oauth-endpoint-fallback --spec-version 2025-03-26",
  "auth/client-credentials-jwt",
  "auth/enterprise-managed-authorization",
  "auth/dpop-nonce",
];

Deno.test("the conformance suite's authorization scenarios pass with the oauth/ room (fast subset)", async (t) => {
  const runs = AUTH_RUNS.filter((run) =>
    FAST.includes(`${run.scenario}${run.flags ? ` ${run.flags.join(" ")}` : ""}`)
  );
  assert.equal(runs.length, FAST.length);
  for (const run of runs) {
    await t.step(`${run.scenario} ${run.flags?.join(" ") ?? ""}`.trim(), async () => {
      const outcome = await runAuthScenario(run);
      assert.ok(outcome.overall, outcome.output);
      assert.equal(outcome.passed, outcome.total);
    });
  }
});

const LIBRARY_FAST = [
  "auth/metadata-var3 --spec-version 2026-07-28",
  "auth/scope-step-up --spec-version 2025-11-25",
  "auth/2025-03-26-oauth-endpoint-fallback --spec-version 2025-03-26",
  "auth/client-credentials-jwt",
  "auth/dpop-nonce",
];

Deno.test("the conformance suite's authorization scenarios pass with the library's own client under least privilege (fast subset)", async (t) => {
  const runs = AUTH_RUNS.filter((run) =>
    LIBRARY_FAST.includes(`${run.scenario}${run.flags ? ` ${run.flags.join(" ")}` : ""}`)
  );
  assert.equal(runs.length, LIBRARY_FAST.length);
  for (const run of runs) {
    await t.step(`${run.scenario} ${run.flags?.join(" ") ?? ""}`.trim(), async () => {
      const outcome = await runAuthScenario(run, { library: true });
      assert.ok(outcome.overall, outcome.output);
      assert.equal(outcome.passed, outcome.total);
    });
  }
});
