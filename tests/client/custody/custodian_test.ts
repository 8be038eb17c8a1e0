// The exit guard's custodian against a server that stops it: a harness
// killed while its custodian is stopped still takes its server along, and a
// stopped custodian is replaced while the harness lives. Real processes: the
// harness is tests/fixtures/custodian_harness.ts, its server
// tests/fixtures/custodian_stopper.ts.

import assert from "node:assert/strict";
import { awaitGone, isLive } from "../_fixtures.ts";

// How long a woken custodian may take to end the server: it reads /proc with
// sh, which under a loaded test run takes seconds, not the usual tens of ms.
const CUSTODIAN_ACTS_MS = 20_000;

const HARNESS = new URL("../../fixtures/custodian_harness.ts", import.meta.url).pathname;

type Report = { server: number; stopped: number[]; replacement: number | null };

/** Runs the harness until it reports, SIGKILLs it, and returns its report. */
async function killedHarness(mode: "once" | "each"): Promise<Report> {
  const harness = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", HARNESS, mode],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = harness.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  harness.kill("SIGKILL");
  while (!(await reader.read()).done) { /* drain */ }
  const status = await harness.status;
  assert.equal(status.signal, "SIGKILL", `the harness ran until killed: ${text}`);
  return JSON.parse(text) as Report;
}

/** Kills what a failed test left: the server's group, and any custodian it stopped. */
function cleanUp(report: Report): void {
  for (const pid of [-report.server, ...report.stopped]) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
}

Deno.test({
  name: "a harness killed while its custodian is stopped still takes its server along",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const report = await killedHarness("each");
    try {
      assert.ok(report.stopped.length > 0);
      assert.deepEqual(await awaitGone([report.server], CUSTODIAN_ACTS_MS), []);
    } finally {
      cleanUp(report);
    }
  },
});

Deno.test({
  name: "a stopped custodian is replaced while the harness lives, and the replacement acts",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const report = await killedHarness("once");
    try {
      assert.notEqual(report.replacement, null, "a custodian runs in place of the stopped one");
      assert.deepEqual(await awaitGone([report.server], CUSTODIAN_ACTS_MS), []);
      assert.deepEqual(report.stopped.filter(isLive), [], "the stopped custodian was ended");
    } finally {
      cleanUp(report);
    }
  },
});
