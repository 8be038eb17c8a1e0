// Two hundred programs in sequence (in a process of their own) and twenty at
// once through one Runner, type-checked: every result right, the harness's
// resident memory flat once warm, and no process or directory left after
// retirement.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";
import { DEFAULT_WARM_SANDBOXES } from "../../../runner/host/limits.ts";
import { sandboxDirs, sandboxProcesses } from "./_children.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function add(args: { a: number; b: number }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "add", args);\n}\n',
};

function addCall(_server: string, _tool: string, args: unknown) {
  const { a, b } = args as { a: number; b: number };
  return Promise.resolve(
    ok({ content: [{ type: "text" as const, text: String(a + b) }], isError: false }),
  );
}

function program(index: number): string {
  return 'import { add } from "./mcp/echo.ts";\n' +
    `const sum: number = Number((await add({ a: ${index}, b: 1 })).text);\nexport default sum;\n`;
}

/**
 * The most the resident memory may rise above its level at run 50. The
 * checker's heap saws between major collections (measured: about 0.45 MiB
 * of garbage per check, collected in one step every 150 to 200 checks, some
 * 70 MiB of swing), so a bound tighter than the saw would fail a healthy
 * runner; a leak of a megabyte per run still crosses this one.
 */
const FLAT_MB = 150;

Deno.test("two hundred programs in sequence and twenty at once: right, flat, nothing left", async (t) => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-runner-test-" });
  const runner = new Runner({ modules: new Map([["echo", ECHO]]), call: addCall, tempDir });
  try {
    await t.step("two hundred in sequence, in a process of their own", async () => {
      // Its own process: test modules run in parallel share this one, and
      // their memory would be counted as the runner's.
      const fixture = new URL("../../fixtures/runner_sequence.ts", import.meta.url);
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", fixture.pathname, tempDir, "200"],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      assert.ok(output.success, `the sequence exited ${output.code}`);
      const figures = JSON.parse(new TextDecoder().decode(output.stdout));
      assert.deepEqual(figures.wrong, []);
      assert.equal(figures.replaced, 0);
      assert.ok(
        figures.peak - figures.warm < FLAT_MB,
        `rose from ${figures.warm} to ${figures.peak} MiB`,
      );
      assert.deepEqual(sandboxProcesses(tempDir), []);
    });
    await t.step("twenty at once", async () => {
      const reports = await Promise.all(
        Array.from({ length: 20 }, (_, index) => runner.run(program(1000 + index))),
      );
      reports.forEach((report, index) => {
        assert.deepEqual(report.outcome, { kind: "returned", value: 1001 + index });
      });
      // What lives after is the pool of sandboxes started ahead, and no more.
      assert.ok(sandboxProcesses(tempDir).length <= DEFAULT_WARM_SANDBOXES);
    });
    assert.equal(runner.stats().checker.replaced, 0);
  } finally {
    await runner.retire();
  }
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  await Deno.remove(tempDir);
});
