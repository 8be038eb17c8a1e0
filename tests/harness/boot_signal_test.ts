import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { isLive } from "../_proc.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const ECHO = new URL("../fixtures/echo_server.ts", import.meta.url).pathname;

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "boot() with an aborted signal retires the servers still starting, and keeps the booted ones",
  OPENS_CUSTODIAN,
  async () => {
    const controller = new AbortController();
    const harness = await boot([
      { name: "echo", command: Deno.execPath(), args: ["run", "--quiet", "--no-lock", ECHO] },
      // Never answers, and ignores SIGTERM: only the escalation's SIGKILL ends it.
      { name: "hang", command: "sh", args: ["-c", "trap '' TERM; exec sleep 300"] },
    ], {
      onServer: (report) => {
        if (report.name === "echo") controller.abort();
      },
      signal: controller.signal,
    });
    try {
      assert.equal(harness.reports.get("echo")?.state, "ready");
      const hang = harness.reports.get("hang");
      assert.equal(hang?.state, "failed");
      assert.match(hang?.message ?? "", /^Client "hang" was retired before answering /);
      assert.equal(harness.census.clients.get("hang")?.state, "retired");
    } finally {
      const retired = await harness.retire();
      const hang = retired.clients.get("hang");
      assert.ok(hang?.ok && hang.value.kind === "exited", JSON.stringify(hang));
      assert.equal(hang.value.escalation, "sigkill");
      assert.equal(isLive(hang.value.pid), false);
      assert.ok(retired.confirmed);
    }
  },
);
