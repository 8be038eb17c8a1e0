import assert from "node:assert/strict";
import { awaitGone, isLive } from "./_fixtures.ts";

const HARNESS = new URL("../fixtures/exit_harness.ts", import.meta.url).pathname;

type Ending = { mode: string; signal?: Deno.Signal; code: number; listening?: boolean };
type Ended = { code: number; signal: Deno.Signal | null; pids: number[]; output: string };

async function endHarness(ending: Ending): Promise<Ended> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-lock",
      HARNESS,
      ending.mode,
      ...(ending.listening === true ? ["listening"] : []),
    ],
    stdout: "piped",
    stderr: "null",
    stdin: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  const report = JSON.parse(text.slice(0, text.indexOf("\n"))) as {
    pid: number;
    grandchildren: number[];
  };
  const pids = [report.pid, ...report.grandchildren];
  assert.equal(pids.length, 3, "the server and its two grandchildren were running");
  assert.ok(pids.every(isLive));
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("end\n"));
  if (ending.signal !== undefined) child.kill(ending.signal);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  const status = await child.status;
  await writer.close().catch(() => {});
  return { code: status.code, signal: status.signal, pids, output: text };
}

Deno.test("when the harness ends, no server and no descendant survives", async (t) => {
  const endings: Ending[] = [
    { mode: "normal", code: 0 },
    { mode: "exit", code: 0 },
    { mode: "throw", code: 1 },
    { mode: "reject", code: 1 },
    { mode: "signal", signal: "SIGINT", code: 130 },
    { mode: "signal", signal: "SIGTERM", code: 143 },
    { mode: "signal", signal: "SIGHUP", code: 129 },
    { mode: "signal", signal: "SIGKILL", code: 137 },
    // The custodian killed from outside is replaced, and the replacement acts.
    { mode: "custodian", signal: "SIGKILL", code: 137 },
  ];
  for (const ending of endings) {
    await t.step(`${ending.mode} ${ending.signal ?? ""}`.trim(), async () => {
      const { code, signal, pids } = await endHarness(ending);
      assert.equal(code, ending.code);
      // A default signal still ends the process as Deno's default does: by that signal.
      assert.equal(signal, ending.signal ?? null);
      assert.deepEqual(await awaitGone(pids), []);
    });
  }
});

Deno.test("a harness with signal listeners of its own still leaves nothing behind when it ends", async (t) => {
  const endings: Ending[] = [
    { mode: "exit", code: 0, listening: true },
    { mode: "throw", code: 1, listening: true },
    { mode: "reject", code: 1, listening: true },
    { mode: "signal", signal: "SIGKILL", code: 137, listening: true },
  ];
  for (const ending of endings) {
    await t.step(`${ending.mode} ${ending.signal ?? ""}`.trim(), async () => {
      const { code, pids } = await endHarness(ending);
      assert.equal(code, ending.code);
      assert.deepEqual(await awaitGone(pids), []);
    });
  }
});

Deno.test("a harness with its own signal listener decides, and its finally retires", async (t) => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    await t.step(signal, async () => {
      const ended = await endHarness({ mode: "listen", signal, code: 0 });
      assert.equal(ended.code, 0, ended.output);
      assert.equal(ended.signal, null);
      assert.match(
        ended.output,
        new RegExp(`^cancelled by ${signal}; the server still answers: true$`, "m"),
      );
      assert.match(ended.output, /^retired: true$/m);
      assert.deepEqual(await awaitGone(ended.pids), []);
    });
  }
});
