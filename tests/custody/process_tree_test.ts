// Custody follows a server's process tree: descendants that left its process
// group (setsid) are found, signalled, drained and guarded at the harness's
// exit like the server itself. Real processes throughout.

import assert from "node:assert/strict";
import { Client } from "../../client/client.ts";
import { TREE_SNAPSHOT_MS } from "../../custody/process_tree.ts";
import { awaitGone, fixture, isLive, survivors } from "../client/_fixtures.ts";

const ESCAPING = fixture("escaping", "escaping_children.ts", {
  flags: ["--allow-run=setsid,sh"],
});

type Family = { server: number; escaped: number; orphaned: number; shell: number };

/** Waits until the fixture reported its descendants and the orphan's shell has exited. */
async function family(client: Client): Promise<Family> {
  for (let i = 0; i < 500; i++) {
    const tail = client.stderrTail();
    const escaped = /escaped (\d+)/.exec(tail);
    const orphaned = /orphaned (\d+) of (\d+)/.exec(tail);
    if (escaped !== null && orphaned !== null) {
      const shell = Number(orphaned[2]);
      assert.deepEqual(await awaitGone([shell]), [], "the orphan's shell exits");
      return {
        server: client.pid ?? -1,
        escaped: Number(escaped[1]),
        orphaned: Number(orphaned[1]),
        shell,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`The fixture did not report its descendants: ${client.stderrTail()}`);
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
    const client = new Client(ESCAPING, { retirementTimeoutMs: 5_000 });
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    const pids = await family(client);
    // They left the group: a group signal would not reach them.
    assert.ok(isLive(pids.escaped) && isLive(pids.orphaned));
    assert.notEqual(pgidOf(pids.escaped), pids.server);
    assert.notEqual(pgidOf(pids.orphaned), pids.server);
    const outcome = await client.shutdown();
    assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
    assert.equal(outcome.value.drained, true);
    assert.deepEqual([pids.escaped, pids.orphaned].filter(isLive), []);
    assert.deepEqual(survivors(pids.server), []);
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
        new URL("../fixtures/escape_harness.ts", import.meta.url).pathname,
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
    "a descendant that left the session before the first look makes the drain unknown, never true",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // In a session of its own, its parent gone before custody looked: nothing
    // links it to the server, so the evidence must not claim it was drained.
    const client = new Client(
      fixture("early_setsid", "early_setsid.ts", { flags: ["--allow-run=sh"] }),
      { retirementTimeoutMs: 5_000 },
    );
    const orphan = await reported(client, "orphaned");
    const server = client.pid ?? -1;
    try {
      const place = placeOf(orphan);
      assert.notEqual(place.ppid, server);
      assert.notEqual(place.sid, server);
      const outcome = await client.shutdown();
      assert.ok(outcome.ok && outcome.value.kind === "exited", JSON.stringify(outcome));
      assert.equal(outcome.value.drained, "unknown");
      assert.deepEqual(survivors(server), []);
    } finally {
      if (isLive(orphan)) Deno.kill(orphan, "SIGKILL");
      assert.deepEqual(await awaitGone([orphan]), []);
    }
  },
});

/** Read calls this process has made (all its threads), as `/proc/self/io` counts them. */
function readCalls(): number {
  return Number(/^syscr: (\d+)$/m.exec(Deno.readTextFileSync("/proc/self/io"))?.[1]);
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
            new URL("../fixtures/early_job_harness.ts", import.meta.url).pathname,
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
