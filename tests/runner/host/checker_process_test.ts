// The resident checker runs its compiler in a process of its own, so that a
// check stopped at its deadline, or by an abort or a retirement, leaves
// nothing computing behind: the process is killed, not asked to stop.

import assert from "node:assert/strict";
import { CAP_SOURCE } from "../../../_generated/sandbox_sources.ts";
import { checkerArgs } from "../../../runner/host/_checker_process.ts";
import { type ProcessCustody, ResidentChecker } from "../../../runner/host/checker.ts";
import { isLive } from "../../_proc.ts";
import { ENDLESS_PROGRAM } from "./_endless.ts";

const ENDLESS: [string, string][] = [["program.ts", ENDLESS_PROGRAM], ["cap.ts", CAP_SOURCE]];
const SIMPLE: [string, string][] = [
  ["program.ts", "const n: number = 1;\nexport default n;\n"],
  ["cap.ts", CAP_SOURCE],
];

/** A custody that records every pid and lets a test wait for one's exit. */
function recorder(): ProcessCustody & { pids: number[]; exit(pid: number): Promise<void> } {
  const pids: number[] = [];
  const exits = new Map<number, PromiseWithResolvers<void>>();
  const waiter = (pid: number) => {
    let entry = exits.get(pid);
    if (entry === undefined) {
      entry = Promise.withResolvers<void>();
      exits.set(pid, entry);
    }
    return entry;
  };
  return {
    pids,
    started: (pid) => void pids.push(pid),
    exited: (pid) => waiter(pid).resolve(),
    exit: (pid) => waiter(pid).promise,
  };
}

Deno.test("a check past its deadline kills its checker process, and the next check gets a new one", async () => {
  const custody = recorder();
  const checker = new ResidentChecker({ custody });
  try {
    assert.deepEqual(await checker.check(SIMPLE, { timeoutMs: 120_000 }), { kind: "passed" });
    const first = checker.stats().pid;
    assert.ok(first !== undefined && isLive(first));
    assert.deepEqual(await checker.check(ENDLESS, { timeoutMs: 300 }), { kind: "timed_out" });
    await custody.exit(first);
    assert.equal(isLive(first), false);
    assert.equal(checker.stats().replaced, 1);
    assert.deepEqual(await checker.check(SIMPLE, { timeoutMs: 120_000 }), { kind: "passed" });
    assert.notEqual(checker.stats().pid, first);
    assert.equal(custody.pids.length, 2);
  } finally {
    await checker.retire();
  }
  assert.deepEqual(custody.pids.filter(isLive), []);
});

Deno.test("an abort mid-check kills the checker process", async () => {
  const custody = recorder();
  const checker = new ResidentChecker({ custody });
  const stop = new AbortController();
  try {
    assert.deepEqual(await checker.check(SIMPLE, { timeoutMs: 120_000 }), { kind: "passed" });
    const pid = checker.stats().pid;
    assert.ok(pid !== undefined);
    const checking = checker.check(ENDLESS, { timeoutMs: 600_000, signal: stop.signal });
    // Let the request reach the process (an abort before that kills it too).
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop.abort();
    assert.deepEqual(await checking, { kind: "aborted" });
    await custody.exit(pid);
    assert.equal(isLive(pid), false);
  } finally {
    await checker.retire();
  }
});

Deno.test("retire() kills a checker process busy with a check and waits for its exit", async () => {
  const custody = recorder();
  const checker = new ResidentChecker({ custody });
  assert.deepEqual(await checker.check(SIMPLE, { timeoutMs: 120_000 }), { kind: "passed" });
  const pid = checker.stats().pid;
  assert.ok(pid !== undefined);
  const checking = checker.check(ENDLESS, { timeoutMs: 600_000 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await checker.retire();
  assert.deepEqual(await checking, { kind: "unavailable", message: "The checker was retired" });
  assert.equal(isLive(pid), false);
  assert.equal(checker.stats().state, "retired");
  assert.equal(checker.stats().pid, undefined);
});

Deno.test("the checker process is started with no permission and no remote import but its own host", () => {
  const local = checkerArgs(new URL("file:///lib/runner/compiler/entry.ts"), 512);
  assert.ok(local.includes("--no-remote"));
  assert.ok(local.includes("--no-prompt"));
  assert.ok(local.includes("--v8-flags=--max-old-space-size=512,--max-semi-space-size=1"));
  assert.equal(local.at(-1), "file:///lib/runner/compiler/entry.ts");
  const remote = checkerArgs(
    new URL("https://jsr.io/@loom/mcp/0.1.0/runner/compiler/entry.ts"),
    512,
  );
  assert.ok(remote.includes("--allow-import=jsr.io"));
  assert.ok(!remote.includes("--no-remote"));
  for (const args of [local, remote]) {
    assert.deepEqual(args.filter((arg) => /^--allow-(?!import=)|^-A$/.test(arg)), []);
  }
});

Deno.test("retire() while the checker process starts fails the waiting check as retired", async () => {
  const custody = recorder();
  const checker = new ResidentChecker({ custody });
  const checking = checker.check(SIMPLE, { timeoutMs: 120_000 });
  await checker.retire();
  assert.deepEqual(await checking, { kind: "unavailable", message: "The checker was retired" });
  assert.deepEqual(custody.pids.filter(isLive), []);
});
