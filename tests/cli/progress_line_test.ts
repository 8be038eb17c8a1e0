// The progress line: a report in a few words; on a terminal one line redrawn
// in place at most every PROGRESS_REDRAW_MS and erased before other output;
// off one, a plain line per call at most every PROGRESS_LINE_EVERY_MS, a
// task's change of status always said.

import assert from "node:assert/strict";
import { Output } from "../../cli/_output.ts";
import {
  PROGRESS_LINE_EVERY_MS,
  PROGRESS_REDRAW_MS,
  ProgressLine,
  progressText,
} from "../../cli/_progress_line.ts";

function streams(terminal: boolean) {
  const written = { out: "", err: "" };
  const decoder = new TextDecoder();
  const stream = (key: "out" | "err") => ({
    writeSync(bytes: Uint8Array) {
      written[key] += decoder.decode(bytes);
      return bytes.length;
    },
    isTerminal: () => terminal,
  });
  return { written, streams: { stdout: stream("out"), stderr: stream("err"), columns: () => 40 } };
}

Deno.test("progressText() says a report in a few words, its message on one line", () => {
  assert.equal(progressText({ kind: "progress", progress: 2, total: 5 }), "2 of 5 (40%)");
  assert.equal(progressText({ kind: "progress", progress: 0.333333 }), "0.33");
  assert.equal(
    progressText({ kind: "progress", progress: 1, total: 0, message: "a\nb\u001b[2J" }),
    progressText({ kind: "progress", progress: 1, total: 0, message: "a b\u001b[2J" }),
  );
  assert.ok(
    !progressText({ kind: "progress", progress: 1, message: "x\u001b[2Jy" }).includes("\u001b"),
  );
  assert.equal(
    progressText({ kind: "task", taskId: "t-1", status: "working", message: "stage 2" }),
    "task t-1 working: stage 2",
  );
});

Deno.test("off a terminal: a plain line per call at most every second, a task's new status always", () => {
  const { written, streams: given } = streams(false);
  let now = 0;
  const line = new ProgressLine(new Output({ streams: given }), { now: () => now });
  for (let step = 1; step <= 20; step++) {
    now = step * 100;
    line.report("long.progress", { kind: "progress", progress: step, total: 20 });
  }
  const lines = written.err.split("\n").filter((text) => text !== "");
  // Two seconds of reports: the first, then one a second.
  assert.equal(lines.length, 1 + Math.floor((2_000 - 100) / PROGRESS_LINE_EVERY_MS), written.err);
  line.report("t", { kind: "task", taskId: "a", status: "working" });
  line.report("t", { kind: "task", taskId: "a", status: "completed" });
  assert.match(written.err, /t: task a working\nt: task a completed\n$/);
  line.end();
  assert.doesNotMatch(written.err, /\r/);
});

Deno.test("on a terminal: one line redrawn in place, cut to the width, erased before a result", () => {
  const { written, streams: given } = streams(true);
  let now = 0;
  const output = new Output({ streams: given });
  const line = new ProgressLine(output, { now: () => now });
  for (let step = 0; step < 10; step++) {
    now = step * (PROGRESS_REDRAW_MS / 2);
    line.report("c", { kind: "progress", progress: step, message: "x".repeat(100) });
  }
  const draws = written.err.split("\r\u001b[2K").filter((text) => text !== "");
  assert.equal(draws.length, 5, JSON.stringify(written.err));
  for (const draw of draws) assert.ok([...draw].length < 40, draw);
  assert.doesNotMatch(written.err, /\n/);
  output.result("done");
  assert.ok(written.err.endsWith("\r\u001b[2K"), "erased before the result");
  assert.equal(written.out, "done\n");
});
