import assert from "node:assert/strict";
import { awaitGone, isLive } from "./_fixtures.ts";

const HARNESS = new URL("../fixtures/exit_harness.ts", import.meta.url).pathname;

type Ending = { mode: string; signal?: Deno.Signal; code: number };

async function endHarness(ending: Ending): Promise<{ code: number; pids: number[] }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", HARNESS, ending.mode],
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
  const status = await child.status;
  await reader.cancel();
  await writer.close().catch(() => {});
  return { code: status.code, pids };
}

Deno.test("when the harness ends, no server and no descendant survives", async (t) => {
  const endings: Ending[] = [
    { mode: "exit", code: 0 },
    { mode: "throw", code: 1 },
    { mode: "reject", code: 1 },
    { mode: "signal", signal: "SIGINT", code: 130 },
    { mode: "signal", signal: "SIGTERM", code: 143 },
  ];
  for (const ending of endings) {
    await t.step(`${ending.mode} ${ending.signal ?? ""}`.trim(), async () => {
      const { code, pids } = await endHarness(ending);
      assert.equal(code, ending.code);
      assert.deepEqual(await awaitGone(pids), []);
    });
  }
});
