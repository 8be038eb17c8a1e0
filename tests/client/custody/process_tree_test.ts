// Custody follows a server's process tree: descendants that left its process
// group or its session are found, signalled, drained and guarded at the
// harness's exit like the server itself, and a drain that cannot place one
// says so; an orphan adopted before any look is the server's by the marker
// in its environment. Real processes throughout. A server that leaves a descendant in a
// session of its own is retired in a harness process of its own
// (tests/fixtures/retire_harness.ts): orphaned, such a descendant becomes
// the child of the process that holds custody, and in this one (the test
// files of `deno test --parallel` share it) no other file's drain could
// place it.

import assert from "node:assert/strict";
import { Client } from "../../../client/client.ts";
import { TREE_SNAPSHOT_MS } from "../../../client/custody/tree_watch.ts";
import { awaitGone, fixture, isLive, survivors } from "../_fixtures.ts";
import { OPENS_CUSTODIAN } from "../../_lifetime.ts";

type Family = { server: number; escaped: number; orphaned: number; shell: number };

type Retiring = {
  server: number;
  tail: string;
  /** Retires the server; its outcome and the stderr tail then. */
  retire(): Promise<{ outcome: unknown; tail: string }>;
  /** Ends the harness, once the test killed whatever survived. */
  close(): Promise<void>;
};

/** Starts tests/fixtures/retire_harness.ts on `file` and waits until it says the fixture is ready. */
async function retiring(file: string, ready: string, flags: string[]): Promise<Retiring> {
  const harness = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      new URL("../../fixtures/retire_harness.ts", import.meta.url).pathname,
      file,
      ready,
      ...flags,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = harness.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const writer = harness.stdin.getWriter();
  let text = "";
  const line = async (): Promise<string> => {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`The harness ended early: ${text}`);
      text += value;
    }
    const first = text.slice(0, text.indexOf("\n"));
    text = text.slice(first.length + 1);
    return first;
  };
  const report = JSON.parse(await line()) as { server: number; tail: string };
  return {
    ...report,
    async retire() {
      await writer.write(new TextEncoder().encode("retire\n"));
      return JSON.parse(await line());
    },
    async close() {
      await writer.close();
      while (!(await reader.read()).done) { /* drain */ }
      assert.equal((await harness.status).code, 0);
    },
  };
}

/** Kills what a failed test left behind. */
function kill(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
}

/** The parent, process group and session of a live process. */
function placeOf(pid: number): { ppid: number; pgid: number; sid: number } {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const [ppid, pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").slice(1, 4);
  return { ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid) };
}

function pgidOf(pid: number): number {
  return placeOf(pid).pgid;
}

/** Connects `client` and waits for the pid its fixture reports on stderr after `word`. */
async function reported(client: Client, word: string): Promise<number> {
  const started = await client.connect();
  assert.ok(started.ok, JSON.stringify(started));
  for (let i = 0; i < 500; i++) {
    const found = new RegExp(`${word} (\\d+)`).exec(client.stderrTail());
    if (found !== null) return Number(found[1]);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`The fixture did not report "${word}": ${client.stderrTail()}`);
}

Deno.test({
  name: "descendants that called setsid do not survive retirement, and the drain counts them",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const harness = await retiring(
      "escaping_children.ts",
      "orphaned \\d+ of \\d+",
      ["--allow-run=setsid,sh"],
    );
    const orphaned = /orphaned (\d+) of (\d+)/.exec(harness.tail);
    const pids = [Number(/escaped (\d+)/.exec(harness.tail)?.[1]), Number(orphaned?.[1])];
    try {
      assert.deepEqual(await awaitGone([Number(orphaned?.[2])]), [], "the orphan's shell exits");
      // They left the group: a group signal would not reach them.
      assert.ok(pids.every(isLive));
      for (const pid of pids) assert.notEqual(pgidOf(pid), harness.server);
      const { outcome } = await harness.retire();
      const evidence = (outcome as { value?: { kind?: string; drained?: unknown } }).value;
      assert.equal(evidence?.kind, "exited", JSON.stringify(outcome));
      assert.equal(evidence?.drained, true);
      assert.deepEqual(pids.filter(isLive), []);
      assert.deepEqual(survivors(harness.server), []);
    } finally {
      kill(pids);
      await harness.close();
    }
  },
});

Deno.test({
  name: "when the harness exits, descendants that called setsid die with it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const harness = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--no-lock",
        new URL("../../fixtures/escape_harness.ts", import.meta.url).pathname,
      ],
      stdin: "piped",
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
    const pids = JSON.parse(text) as Family;
    assert.ok([pids.server, pids.escaped, pids.orphaned].every(isLive));
    const writer = harness.stdin.getWriter();
    await writer.write(new TextEncoder().encode("exit\n"));
    await writer.close();
    while (!(await reader.read()).done) { /* drain */ }
    const status = await harness.status;
    assert.equal(status.code, 0);
    assert.deepEqual(await awaitGone([pids.server, pids.escaped, pids.orphaned]), []);
  },
});

Deno.test({
  name:
    "a descendant left in the session but out of the group before the first look does not survive",
  ignore: Deno.build.os !== "linux",
  // The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
  ...OPENS_CUSTODIAN,
  fn: async () => {
    // bash's job control put it in a group of its own and bash exited at
    // once: neither the group nor the parent links lead to it, the session does.
    const client = new Client(
      fixture("early_job", "early_job.ts", { flags: ["--allow-run=bash"] }),
      { retirementTimeoutMs: 5_000 },
    );
    const job = await reported(client, "job");
    const server = client.pid ?? -1;
    try {
      const place = placeOf(job);
      assert.notEqual(place.ppid, server);
      assert.notEqual(place.pgid, server);
      assert.equal(place.sid, server);
      const outcome = await client.shutdown();
      assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
      assert.equal(outcome.value.drained, true);
      assert.deepEqual([job].filter(isLive), []);
      assert.deepEqual(survivors(server), []);
    } finally {
      if (isLive(job)) Deno.kill(job, "SIGKILL");
    }
  },
});

Deno.test({
  name:
    "a descendant that left the session before the first look is found by its marker and killed",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // In a session of its own, its parent gone before custody looked: only
    // the marker the server was spawned with, inherited, says whose it is.
    const harness = await retiring("early_setsid.ts", "orphaned \\d+", ["--allow-run=sh"]);
    const orphan = Number(/orphaned (\d+)/.exec(harness.tail)?.[1]);
    try {
      const place = placeOf(orphan);
      assert.notEqual(place.ppid, harness.server);
      assert.notEqual(place.sid, harness.server);
      const { outcome } = await harness.retire();
      const evidence =
        (outcome as { value?: { kind?: string; drained?: unknown; found?: unknown } })
          .value;
      assert.equal(evidence?.kind, "exited", JSON.stringify(outcome));
      assert.equal(evidence?.drained, true);
      assert.deepEqual(evidence?.found, [{ pid: orphan, by: "marker" }]);
      assert.deepEqual([orphan].filter(isLive), []);
      assert.deepEqual(survivors(harness.server), []);
    } finally {
      kill([orphan]);
      assert.deepEqual(await awaitGone([orphan]), []);
      await harness.close();
    }
  },
});

Deno.test({
  name: "when the harness exits, a descendant it adopted before the first look dies by its marker",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const harness = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--no-lock",
        new URL("../../fixtures/early_setsid_harness.ts", import.meta.url).pathname,
      ],
      stdin: "piped",
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
    const pids = JSON.parse(text) as { server: number; orphan: number };
    try {
      assert.ok(isLive(pids.orphan));
      assert.notEqual(placeOf(pids.orphan).sid, pids.server);
      const writer = harness.stdin.getWriter();
      await writer.write(new TextEncoder().encode("exit\n"));
      await writer.close();
      while (!(await reader.read()).done) { /* drain */ }
      assert.equal((await harness.status).code, 0);
      assert.deepEqual(await awaitGone([pids.server, pids.orphan]), []);
    } finally {
      kill([pids.orphan]);
    }
  },
});

Deno.test({
  name:
    "a descendant that left the session before the first look and cleared its marker makes the drain unknown",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // Nothing links it to the server: the evidence must not claim it was drained.
    const harness = await retiring("early_setsid_unmarked.ts", "orphaned \\d+", [
      "--allow-run=sh",
    ]);
    const orphan = Number(/orphaned (\d+)/.exec(harness.tail)?.[1]);
    try {
      const { outcome } = await harness.retire();
      const evidence = (outcome as { value?: { kind?: string; drained?: unknown } }).value;
      assert.equal(evidence?.kind, "exited", JSON.stringify(outcome));
      assert.equal(evidence?.drained, "unknown");
      assert.deepEqual(survivors(harness.server), []);
      // Not signalled: nothing tells it from one of the harness's own.
      assert.ok(isLive(orphan));
    } finally {
      kill([orphan]);
      assert.deepEqual(await awaitGone([orphan]), []);
      await harness.close();
    }
  },
});

/**
 * Read calls this thread has made, as `/proc/thread-self/io` counts them: the
 * tree is walked on the thread that runs this file's tests (its own, under
 * `deno test --parallel`), and the server's pipes are read by its worker's.
 */
function readCalls(): number {
  return Number(/^syscr: (\d+)$/m.exec(Deno.readTextFileSync("/proc/thread-self/io"))?.[1]);
}

Deno.test({
  name:
    "watching a server with 500 idle children makes fewer read calls per tick than it has children",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // Reading every descendant on every tick cost the main thread a share of
    // a core that grew with the tree (BENCHMARKS.md, "Custody's cost"); the
    // walk reads a bounded number of files per tick instead.
    const count = 500;
    const client = new Client(
      fixture("many", "many_children.ts", { flags: ["--allow-run=sleep"] }),
      { retirementTimeoutMs: 10_000 },
    );
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    let children: number[] = [];
    try {
      for (let i = 0; i < 1_000 && children.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const line = /children ([\d ]+)/.exec(client.stderrTail());
        if (line !== null) children = (line[1] ?? "").trim().split(" ").map(Number);
      }
      assert.equal(children.length, count);
      const ticks = 8;
      const before = readCalls();
      await new Promise((resolve) => setTimeout(resolve, ticks * TREE_SNAPSHOT_MS));
      const perTick = (readCalls() - before) / ticks;
      assert.ok(perTick < count, `${perTick} read calls per tick`);
      const outcome = await client.shutdown();
      assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
      assert.equal(outcome.value.drained, true);
      assert.deepEqual(await awaitGone(children), [], "every child is gone");
    } finally {
      const left = children.filter(isLive);
      for (const pid of left) Deno.kill(pid, "SIGKILL");
      assert.deepEqual(await awaitGone(left), []);
    }
  },
});

Deno.test({
  name: "when the harness ends, a descendant left in the session but out of the group dies with it",
  ignore: Deno.build.os !== "linux",
  fn: async (t) => {
    // Found by neither group nor parent links: the in-process exit path and
    // the custodian (the harness killed) find it by its session.
    for (const ending of ["exit", "SIGKILL"] as const) {
      await t.step(ending, async () => {
        const harness = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--quiet",
            "--no-lock",
            new URL("../../fixtures/early_job_harness.ts", import.meta.url).pathname,
          ],
          stdin: "piped",
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
        const pids = JSON.parse(text) as { server: number; job: number };
        try {
          assert.ok(isLive(pids.server) && isLive(pids.job));
          assert.notEqual(pgidOf(pids.job), pids.server);
          const writer = harness.stdin.getWriter();
          if (ending === "exit") await writer.write(new TextEncoder().encode("exit\n"));
          else harness.kill("SIGKILL");
          await writer.close().catch(() => {});
          while (!(await reader.read()).done) { /* drain */ }
          await harness.status;
          assert.deepEqual(await awaitGone([pids.server, pids.job]), []);
        } finally {
          for (const pid of [pids.job, -pids.server]) {
            try {
              Deno.kill(pid, "SIGKILL");
            } catch {
              // Gone, as it should be.
            }
          }
        }
      });
    }
  },
});
