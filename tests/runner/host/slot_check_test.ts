// A run's type check needs no sandbox slot: while every slot is held by a
// program that runs, the next program is checked (its scan and its check are
// answered), and one its check refuses is answered at once, without waiting
// for a slot.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";
import { sandboxDirs, sandboxProcesses } from "./_children.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function add(args: { a: number; b: number }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "add", args);\n}\n',
};

const CALLS = 'import { add } from "./mcp/echo.ts";\n' +
  "export default Number((await add({ a: 1, b: 2 })).text);\n";

/** `promise`, or a failure naming `what` when it has not settled within 20 s. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), 20_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a program waiting for a slot is checked meanwhile, and a refused one waits for none", async () => {
  const tempDir = await Deno.makeTempDir({ prefix: "loom-slot-test-" });
  const held = Promise.withResolvers<void>();
  const entered = Promise.withResolvers<void>();
  const runner = new Runner({
    modules: new Map([["echo", ECHO]]),
    call: async (_server, _tool, args) => {
      entered.resolve();
      await held.promise;
      const { a, b } = args as { a: number; b: number };
      return ok({ content: [{ type: "text", text: String(a + b) }], isError: false });
    },
    maxSandboxes: 1,
    tempDir,
  });
  try {
    // The one slot is held by a program whose call does not end until released.
    const first = runner.run(CALLS);
    await entered.promise;
    const before = runner.stats().checker.answered;
    // Refused by its check: answered while the slot is still held.
    const refused = await within(
      runner.run(
        'import { add } from "./mcp/echo.ts";\nexport default await add({ a: "one", b: 2 });\n',
      ),
      "the refused program waited for the slot",
    );
    assert.equal(refused.outcome.kind, "rejected", JSON.stringify(refused.outcome));
    assert.ok(refused.outcome.kind === "rejected");
    assert.match(refused.outcome.diagnostics.map((d) => d.message).join("\n"), /number/);
    // A good one: its scan and check are answered while it waits for the slot.
    const second = runner.run(CALLS);
    const deadline = performance.now() + 20_000;
    while (runner.stats().checker.answered < before + 4) {
      assert.ok(performance.now() < deadline, "the waiting program was not checked");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    held.resolve();
    assert.deepEqual((await first).outcome, { kind: "returned", value: 3 });
    assert.deepEqual((await second).outcome, { kind: "returned", value: 3 });
  } finally {
    held.resolve();
    await runner.retire();
  }
  assert.deepEqual(sandboxProcesses(tempDir), []);
  assert.deepEqual(sandboxDirs(tempDir), []);
  await Deno.remove(tempDir);
});
