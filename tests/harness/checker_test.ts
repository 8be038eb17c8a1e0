// What a harness's code mode leaves behind when the compiler is made to work
// without end: after a check stopped at its deadline, nothing of it computes
// and the harness still ends at its end; when the harness dies in the middle
// of such a check, the checker's process dies with it.

import assert from "node:assert/strict";
import { awaitGone, isLive } from "../client/_fixtures.ts";

const HARNESS = new URL("../fixtures/checker_harness.ts", import.meta.url).pathname;
/**
 * How long a harness may take to end after its last line before the test
 * calls it hung: generous for a loaded machine, where ending takes well under
 * a second (a compiler left computing in the harness kept it a minute here).
 */
const HANG_MS = 30_000;

type Harness = {
  lines: () => Promise<string | undefined>;
  /** Writes one line to the harness's stdin. */
  say: (line: string) => Promise<void>;
  child: Deno.ChildProcess;
  /** Kills the harness if it still runs, and closes its output. */
  close: () => Promise<void>;
};

function start(mode: string): Harness {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", HARNESS, mode],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const lines = async (): Promise<string | undefined> => {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      text += value;
    }
    const line = text.slice(0, text.indexOf("\n"));
    text = text.slice(text.indexOf("\n") + 1);
    return line;
  };
  const writer = child.stdin.getWriter();
  const say = (line: string) => writer.write(new TextEncoder().encode(`${line}\n`));
  const close = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // It has ended.
    }
    await child.status;
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
  };
  return { lines, say, child, close };
}

/** The harness's exit status, or "hung" when it has not ended within {@linkcode HANG_MS}. */
async function ended(child: Deno.ChildProcess): Promise<Deno.CommandStatus | "hung"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => timer = setTimeout(() => resolve("hung"), HANG_MS));
  const status = await Promise.race([child.status, hung]);
  clearTimeout(timer);
  if (status === "hung") {
    child.kill("SIGKILL");
    await child.status;
  }
  return status;
}

Deno.test("after a check of an endless program times out, the harness spends no CPU on it and exits at its end", async () => {
  const { lines, child, close } = start("timeout");
  try {
    const { pid } = JSON.parse(await lines() ?? "{}") as { pid: number };
    assert.ok(Number.isSafeInteger(pid), "the harness reported its checker's pid");
    const report = JSON.parse(await lines() ?? "{}") as {
      outcome: unknown;
      cpuMs: number;
      wallMs: number;
    };
    assert.deepEqual(report.outcome, {
      kind: "rejected",
      diagnostics: [{
        file: "program.ts",
        line: 1,
        column: 1,
        message: "Cannot type-check the program: it ran past 500 ms",
      }],
    });
    // A compiler still at work in the harness took 420 ms of that second here,
    // on a loaded machine; nothing at work takes none.
    assert.ok(report.cpuMs < report.wallMs / 10, JSON.stringify(report));
    assert.equal(isLive(pid), false);
    const status = await ended(child);
    assert.notEqual(status, "hung", "the harness did not exit after its end");
    assert.equal(status !== "hung" && status.code, 0);
  } finally {
    await close();
  }
});

Deno.test("a harness that dies in the middle of an endless check leaves no checker process", async (t) => {
  for (const mode of ["exit", "kill"]) {
    await t.step(mode, async () => {
      const { lines, say, child, close } = start(mode);
      try {
        const first = JSON.parse(await lines() ?? "{}") as { pid: number };
        assert.ok(Number.isSafeInteger(first.pid), "the harness reported its checker's pid");
        // The checker in the middle of the endless check.
        const { checking, pid } = JSON.parse(await lines() ?? "{}") as {
          checking: boolean;
          pid: number;
        };
        assert.equal(checking, true);
        assert.ok(Number.isSafeInteger(pid) && isLive(pid), "the checker is checking");
        // The harness ends only now, so that its end cannot come before the look above.
        if (mode === "kill") child.kill("SIGKILL");
        else await say("exit");
        const status = await ended(child);
        assert.notEqual(status, "hung", "the harness did not end");
        assert.deepEqual(await awaitGone([pid], 30_000), []);
      } finally {
        await close();
      }
    });
  }
});
