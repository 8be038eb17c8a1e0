// The checker's idle warm-up: its programs are what they claim (every one
// but the last checks clean, in full and vouched, and the last is refused,
// so a change of the cap or the convention cannot leave it warming nothing),
// and its steps run one at a time, only while nothing is asked.

import assert from "node:assert/strict";
import { ClosedWorldCompiler } from "../../../runner/checker/_compiler.ts";
import {
  IdleWarmup,
  WARM_IDLE_MS,
  WARM_PROGRAMS,
  warmCheck,
} from "../../../runner/checker/_warm.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("every warm-up program but the last checks clean; the last is refused", () => {
  const compiler = new ClosedWorldCompiler();
  const last = WARM_PROGRAMS.length - 1;
  for (const [index, program] of WARM_PROGRAMS.entries()) {
    const { files, vouched } = warmCheck(program);
    for (const trusted of [vouched, []]) {
      const diagnostics = compiler.check(files, [], trusted);
      const messages = diagnostics.map((each) => `${each.file}:${each.line} ${each.message}`);
      if (index < last) assert.deepEqual(messages, [], `program ${index}`);
      else {
        // Its errors are the program's own: an argument, an excess property, a possibly undefined.
        assert.ok(messages.length >= 3, messages.join("\n"));
        assert.ok(messages.every((message) => message.startsWith("program.ts:")));
      }
    }
  }
});

Deno.test("the warm-up checks once each, one step per idle spell, never after busy()", async () => {
  const ran: string[] = [];
  const warmup = new IdleWarmup((program) => void ran.push(program), ["a", "b", "c"]);
  warmup.idle();
  warmup.busy();
  await pause(WARM_IDLE_MS * 3);
  assert.deepEqual(ran, [], "a request that came first holds every step back");
  warmup.idle();
  warmup.idle();
  for (let tries = 0; tries < 200 && ran.length === 0; tries++) await pause(5);
  assert.deepEqual(ran, ["a"], "one step, however often idle() was said");
  warmup.busy();
  await pause(WARM_IDLE_MS * 3);
  assert.deepEqual(ran, ["a"]);
  warmup.idle();
  for (let tries = 0; tries < 400 && ran.length < 3; tries++) await pause(5);
  assert.deepEqual(ran, ["a", "b", "c"]);
  assert.equal(warmup.left, 0);
  warmup.idle();
  await pause(WARM_IDLE_MS * 2);
  assert.deepEqual(ran, ["a", "b", "c"], "nothing is checked twice");
});

Deno.test("a warm-up step that throws does not stop the next", async () => {
  const ran: string[] = [];
  const warmup = new IdleWarmup((program) => {
    ran.push(program);
    if (program === "a") throw new Error("the compiler failed");
  }, ["a", "b"]);
  warmup.idle();
  for (let tries = 0; tries < 400 && ran.length < 2; tries++) await pause(5);
  assert.deepEqual(ran, ["a", "b"]);
});
