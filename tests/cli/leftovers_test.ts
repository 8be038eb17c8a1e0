import assert from "node:assert/strict";
import { leftoverAdvice, leftoversAdvice } from "../../cli/_leftovers.ts";
import type { RetirementReport } from "../../client/census.ts";

const LOCAL = { name: "local", command: "deno" };
const REMOTE = { name: "remote", url: "https://mcp.example.com/mcp" };
const TIMED_OUT = {
  ok: false as const,
  error: {
    kind: "retirement_timed_out" as const,
    message: "m",
    timeoutMs: 5,
    escalation: "none" as const,
  },
};

function report(names: string[]): RetirementReport {
  return {
    confirmed: false,
    clients: new Map(names.map((name) => [name, TIMED_OUT])),
    generations: new Map(),
  };
}

Deno.test("the advice about a server not confirmed retired fits where it runs", () => {
  assert.match(leftoverAdvice(LOCAL), /check for a leftover process/);
  assert.doesNotMatch(leftoverAdvice(REMOTE), /process before/);
  assert.match(leftoverAdvice(REMOTE), /may keep its session until it expires it/);
});

Deno.test("a report of remote servers alone does not send anyone looking for processes", () => {
  const specs = [LOCAL, REMOTE];
  assert.doesNotMatch(leftoversAdvice(report(["remote"]), specs), /check for leftover processes/);
  assert.match(leftoversAdvice(report(["remote", "local"]), specs), /check for leftover processes/);
});
