// harness.run() is bounded by its deadline: the calls a run leaves in flight
// are cancelled through the client (the server is told), and runs beyond the
// harness's sandbox cap wait their turn within their own deadline.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { fixture, survivors } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "harness.run() ends at its deadline and cancels the calls it left in flight",
  OPENS_CUSTODIAN,
  async () => {
    const harness = await boot([fixture("echo", "echo_server.ts")], { retirementTimeoutMs: 5_000 });
    try {
      const started = performance.now();
      const report = await harness.run(
        'import { sleep } from "./mcp/echo.ts";\n' +
          "await Promise.all(Array.from({ length: 20 }, () => sleep({ ms: 30_000 })));",
        { timeoutMs: 1_500, typeCheck: false },
      );
      const elapsed = performance.now() - started;
      assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "timeout");
      // Far below the calls' own 30 s: the run did not wait for them.
      assert.ok(elapsed < 30_000, `${elapsed} ms`);
      assert.equal(report.calls.length, 20);
      for (const call of report.calls) {
        assert.ok(!call.outcome.ok, JSON.stringify(call.outcome));
        assert.ok(
          ["call_timed_out", "call_abandoned"].includes(call.outcome.error.kind),
          call.outcome.error.kind,
        );
      }
      // The server was told: its running sleep was cancelled and its queue
      // dropped, so a new call is answered at once, not after 30 s.
      const after = await harness.call("echo", "sleep", { ms: 0 }, { timeoutMs: 10_000 });
      assert.ok(after.ok, JSON.stringify(after));
    } finally {
      const retired = await harness.retire();
      assert.ok(retired.confirmed);
      for (const outcome of retired.clients.values()) {
        if (outcome.ok && outcome.value.kind === "exited") {
          assert.deepEqual(survivors(outcome.value.pid), []);
        }
      }
    }
  },
);

Deno.test("harness.run() after retire() is refused as a value, as harness.call() is", async () => {
  const harness = await boot([fixture("echo", "echo_server.ts")], { retirementTimeoutMs: 5_000 });
  const retired = await harness.retire();
  assert.ok(retired.confirmed);
  const report = await harness.run("export default 1;", { typeCheck: false });
  assert.equal(report.outcome.kind, "refused");
  assert.ok(report.outcome.kind === "refused" && report.outcome.reason === "retired");
  assert.match(report.outcome.message, /retired; boot a new harness/);
  assert.deepEqual(report.calls, []);
  const call = await harness.call("echo", "echo", { text: "x" });
  assert.equal(!call.ok && call.error.kind, "unavailable");
});
