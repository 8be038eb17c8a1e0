// The drain check of process groups on the main thread: drains asked for
// together share one look at `/proc` and each gets its own answer. Real
// processes; Linux only (elsewhere `/proc` cannot be read and the answer is
// "unknown", which the client tests cover).

import assert from "node:assert/strict";
import { drainGroup } from "../../../client/custody/process_group.ts";
import { runToEnd } from "../_fixtures.ts";

const LINUX = Deno.build.os === "linux";

/** A process group id no process can have: past the largest pid this kernel gives. */
function unusedGroup(offset: number): number {
  const max = Number(Deno.readTextFileSync("/proc/sys/kernel/pid_max").trim());
  return max + 1 + offset;
}

/** A process that sleeps a minute, leading a process group of its own. */
function sleeper(): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "setTimeout(() => {}, 60_000)"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
}

Deno.test({
  name: "drains asked for in one turn each answer for their own group",
  ignore: !LINUX,
  async fn() {
    // A live process leading its own group: its drain must kill it; the
    // others, of groups with no member, answer at once from the same scan.
    const child = sleeper();
    const drains = await Promise.all([
      drainGroup(unusedGroup(0), 5_000),
      drainGroup(child.pid, 5_000),
      drainGroup(unusedGroup(1), 5_000),
    ]);
    assert.deepEqual(drains, [true, true, true]);
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");
  },
});

Deno.test({
  name: "a drain whose group outlives its deadline answers false",
  ignore: !LINUX,
  async fn() {
    // A live member and no time left: the drain answers at once, without
    // waiting for a kill to take effect.
    const child = sleeper();
    try {
      assert.equal(await drainGroup(child.pid, 0), false);
    } finally {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
    }
  },
});

Deno.test({
  name: "the shared scan keeps no process alive once every drain is answered",
  ignore: !LINUX,
  async fn() {
    // Reading /proc needs all permissions in Deno; a message port left open
    // would hold the process until the signal.
    assert.equal(await runToEnd("drain_exit.ts", ["-A"]), "done\n");
  },
});
