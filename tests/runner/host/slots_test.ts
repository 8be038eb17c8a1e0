// A run waits for a sandbox slot within its deadline, and a run that ends
// gives up on calls that ignore their cancellation after RUN_GRACE_MS.

import assert from "node:assert/strict";
import { ok, type Result } from "../../../codec/result.ts";
import type { CallToolResult } from "../../../codec/protocol.ts";
import type { RunModule, RunOptions } from "../../../runner/host/run.ts";
import { Runner, runProgram } from "../../../runner/host/runner.ts";
import { SandboxSlots } from "../../../runner/host/slots.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type JsonValue, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { [key: string]: JsonValue }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
};

function options(extra: Partial<RunOptions>): RunOptions {
  return {
    modules: new Map([["echo", ECHO]]),
    call: () => Promise.resolve(ok({ content: [], isError: false })),
    typeCheck: false,
    ...extra,
  };
}

Deno.test("SandboxSlots grants in order, times out, aborts and releases once", async () => {
  const slots = new SandboxSlots(1);
  const first = await slots.acquire(1_000);
  assert.equal(first.kind, "granted");
  const second = slots.acquire(60_000);
  const timedOut = await slots.acquire(10);
  assert.equal(timedOut.kind, "timed_out");
  const controller = new AbortController();
  const aborted = slots.acquire(60_000, controller.signal);
  controller.abort();
  assert.equal((await aborted).kind, "aborted");
  assert.equal(slots.waiting, 1);
  if (first.kind === "granted") {
    first.release();
    first.release();
  }
  const granted = await second;
  assert.equal(granted.kind, "granted");
  assert.equal(slots.active, 1);
  if (granted.kind === "granted") granted.release();
  assert.equal(slots.active, 0);
  assert.throws(() => new SandboxSlots(0), RangeError);
});

Deno.test("a run waits for a slot within its deadline, and spawns nothing when it runs out", async () => {
  let release: (value: Result<CallToolResult, { kind: string; message: string }>) => void =
    () => {};
  let entered: () => void = () => {};
  const inside = new Promise<void>((resolve) => entered = resolve);
  const calls: string[] = [];
  const runner = new Runner({
    modules: new Map([["echo", ECHO]]),
    warm: false,
    maxSandboxes: 1,
    // The first call holds its run, and so the only slot, until it is answered.
    call: (_server, _tool, args) => {
      calls.push(String((args as { who?: string }).who));
      if ((args as { who?: string }).who !== "first") {
        return Promise.resolve(ok({ content: [], isError: false }));
      }
      entered();
      return new Promise((resolve) => release = resolve);
    },
  });
  try {
    const holder = runner.run(
      'import { echo } from "./mcp/echo.ts";\nawait echo({ who: "first" });\nexport default "first";',
      { typeCheck: false },
    );
    await inside;
    const queued = await runner.run(
      'import { echo } from "./mcp/echo.ts";\nawait echo({ who: "second" });',
      { typeCheck: false, timeoutMs: 200 },
    );
    assert.equal(queued.outcome.kind === "killed" && queued.outcome.reason, "timeout");
    assert.match(queued.outcome.kind === "killed" ? queued.outcome.message : "", /sandbox slot/);
    assert.deepEqual(queued.limits.hit, ["timeout"]);
    assert.deepEqual(calls, ["first"]);
    // A run queued behind it gets the slot once it is free.
    const next = runner.run("export default 2;", { typeCheck: false });
    release(ok({ content: [], isError: false }));
    assert.deepEqual((await holder).outcome, { kind: "returned", value: "first" });
    assert.deepEqual((await next).outcome, { kind: "returned", value: 2 });
  } finally {
    await runner.retire();
  }
});

Deno.test("a call that ignores its cancellation is abandoned after the grace", async () => {
  let signal: AbortSignal | undefined;
  const report = await runProgram(
    'import { echo } from "./mcp/echo.ts";\nawait echo({});',
    options({
      timeoutMs: 1_000,
      call: (_server, _tool, _args, callOptions) => {
        signal = callOptions?.signal;
        return new Promise(() => {});
      },
    }),
  );
  assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "timeout");
  assert.equal(signal?.aborted, true);
  const outcome = report.calls[0]?.outcome;
  assert.ok(outcome !== undefined && !outcome.ok && outcome.error.kind === "call_abandoned");
});
