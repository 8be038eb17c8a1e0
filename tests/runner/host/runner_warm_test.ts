// A Runner keeps the next sandbox started ahead: each sandbox serves exactly
// one program, nothing of one run reaches the next, and nothing is left once
// a run returns (but the one waiting sandbox) or the runner is retired.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";
import { sandboxDirs, sandboxProcesses } from "./_children.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type JsonValue, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { [key: string]: JsonValue }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
};
const MODULES = new Map([["echo", ECHO]]);

function echoCall(_server: string, _tool: string, args: unknown) {
  const text = JSON.stringify(args);
  return Promise.resolve(ok({ content: [{ type: "text" as const, text }], isError: false }));
}

Deno.test("a Runner that never runs a program starts nothing", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-runner-test-" });
  const runner = new Runner({ modules: MODULES, call: echoCall, tempDir });
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  assert.equal(runner.stats().checker.state, "idle");
  assert.equal(runner.stats().warm, false);
  await runner.retire();
  await Deno.remove(tempDir);
});

Deno.test("a Runner's next run finds a sandbox waiting, and no run sees another's", async (t) => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-runner-test-" });
  // One sandbox ahead at most, so that what lives between runs is exactly it.
  const runner = new Runner({ modules: MODULES, call: echoCall, tempDir, warmSandboxes: 1 });
  try {
    const first = await runner.run(
      "(globalThis as { mark?: number }).mark = 41;\n" +
        'import { echo } from "./mcp/echo.ts";\nexport default (await echo({ n: 1 })).text;\n',
    );
    await t.step(
      "the first run starts its own sandbox, and one starts ahead after it",
      async () => {
        assert.deepEqual(first.outcome, { kind: "returned", value: '{"n":1}' });
        assert.equal(runner.stats().warmRuns, 0);
        // It starts once the run is over and quiet, and is ready before the next program,
        // as while a model writes it.
        for (let tries = 0; tries < 400 && runner.stats().ready === 0; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        assert.equal(runner.stats().warm, true);
        assert.equal(runner.stats().ready, 1);
      },
    );
    const second = await runner.run(
      "export default (globalThis as { mark?: number }).mark ?? 'fresh';\n",
    );
    await t.step("the second takes the one waiting, which never saw the first", () => {
      assert.deepEqual(second.outcome, { kind: "returned", value: "fresh" });
      assert.equal(runner.stats().warmRuns, 1);
    });
    await t.step("between runs only the waiting sandbox lives", async () => {
      // The next sandbox starts once the run's own is gone; give it time to appear.
      for (let tries = 0; tries < 200 && sandboxProcesses(tempDir).length === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal(sandboxProcesses(tempDir).length, 1);
      assert.equal(sandboxDirs(tempDir).length, 1);
    });
  } finally {
    await runner.retire();
  }
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  await Deno.remove(tempDir);
});

Deno.test("prepare() starts the checker and a sandbox before the first run, once", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-runner-test-" });
  const runner = new Runner({ modules: MODULES, call: echoCall, tempDir });
  try {
    runner.prepare();
    assert.equal(runner.stats().warm, true);
    assert.notEqual(runner.stats().checker.state, "idle");
    // A second call neither starts more nor has the modules checked again.
    runner.prepare();
    assert.equal(runner.stats().waiting, 1);
    const report = await runner.run("export default 7;\n");
    assert.deepEqual(report.outcome, { kind: "returned", value: 7 });
    assert.equal(runner.stats().warmRuns, 1);
    // The one check ahead of every module, then the program's scan of its imports and its check.
    assert.equal(runner.stats().checker.answered, 3);
  } finally {
    await runner.retire();
  }
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  await Deno.remove(tempDir);
});

Deno.test("a run asking for another heap cap starts its own sandbox", async () => {
  const runner = new Runner({ modules: MODULES, call: echoCall });
  try {
    runner.prepare();
    const report = await runner.run("export default 1;\n", { memoryMb: 64, typeCheck: false });
    assert.deepEqual(report.outcome, { kind: "returned", value: 1 });
    assert.equal(report.limits.memoryMb, 64);
    assert.equal(runner.stats().warmRuns, 0);
    assert.equal(runner.stats().warm, true);
  } finally {
    await runner.retire();
  }
});

Deno.test("retire() stops a run in flight and leaves nothing", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-runner-test-" });
  const runner = new Runner({ modules: MODULES, call: echoCall, tempDir });
  const running = runner.run("await new Promise(() => {});\n", { typeCheck: false });
  // Let the run reach its sandbox before retiring.
  while (sandboxProcesses(tempDir).length === 0) await new Promise((r) => setTimeout(r, 10));
  await runner.retire();
  const report = await running;
  assert.equal(report.outcome.kind, "killed");
  assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "aborted");
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  await Deno.remove(tempDir);
  // A run after the retirement is refused as a value, never thrown.
  const refused = await runner.run("export default 1;");
  assert.equal(refused.outcome.kind === "refused" && refused.outcome.reason, "retired");
});

Deno.test("programs back to back raise how many sandboxes wait, up to warmSandboxes", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-runner-test-" });
  const runner = new Runner({ modules: MODULES, call: echoCall, tempDir, warmSandboxes: 3 });
  try {
    for (let i = 0; i < 5; i++) {
      const report = await runner.run(`export default ${i};\n`, { typeCheck: false });
      assert.deepEqual(report.outcome, { kind: "returned", value: i });
    }
    // Once quiet, the pool fills to what the burst needed, one sandbox at a time.
    for (let tries = 0; tries < 600 && runner.stats().ready < 3; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(runner.stats().ready, 3);
    assert.equal(runner.stats().waiting, 3);
    assert.equal(sandboxProcesses(tempDir).length, 3);
  } finally {
    await runner.retire();
  }
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  await Deno.remove(tempDir);
});
