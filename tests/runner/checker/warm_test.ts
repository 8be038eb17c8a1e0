// The checker's idle warm-up: its programs are what they claim (every one
// but the last checks clean, in full and vouched, and the last is refused,
// so a change of the cap or the convention cannot leave it warming nothing),
// and its checks run one after another once nothing is asked, and stop when
// something is.

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

Deno.test("the warm-up starts after an idle spell, and a request stops it between checks", async () => {
  const ran: string[] = [];
  // A request read while "a" is checked: the checks after it wait for the next idle spell.
  const warmup: IdleWarmup = new IdleWarmup((program) => {
    ran.push(program);
    if (program === "a") warmup.busy();
  }, ["a", "b", "c"]);
  warmup.idle();
  warmup.busy();
  await pause(WARM_IDLE_MS * 3);
  assert.deepEqual(ran, [], "a request that came first holds every check back");
  warmup.idle();
  warmup.idle();
  for (let tries = 0; tries < 200 && ran.length === 0; tries++) await pause(5);
  await pause(WARM_IDLE_MS * 2);
  assert.deepEqual(ran, ["a"], "once, however often idle() was said, and none after busy()");
  assert.equal(warmup.left, 2);
  warmup.idle();
  for (let tries = 0; tries < 400 && ran.length < 3; tries++) await pause(5);
  assert.deepEqual(ran, ["a", "b", "c"], "the rest one after another at the next idle spell");
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
