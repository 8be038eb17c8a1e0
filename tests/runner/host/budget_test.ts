// The report a model is shown is bounded by maxOutputBytes and cut
// structurally, so that it stays valid JSON, while the whole values are kept
// in report.full; a program can ask a result's size before printing it.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import { CUT_KEY, type RunModule, type RunOptions } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";

const BIG: RunModule = {
  segment: "big",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function big(args: { bytes: number }): Promise<ToolResult> {\n" +
    '  return invoke("big", "big", args);\n}\n',
};

const bigCall: RunOptions["call"] = (_server, _tool, args) =>
  Promise.resolve(ok({
    content: [{ type: "text", text: "y".repeat((args as { bytes: number }).bytes) }],
    isError: false,
  }));

function run(source: string, options: Partial<RunOptions> = {}) {
  return runProgram(source, { modules: new Map([["big", BIG]]), call: bigCall, ...options });
}

const shownBytes = (report: { outcome: unknown; logs: unknown; calls: unknown }) =>
  new TextEncoder().encode(
    JSON.stringify({ outcome: report.outcome, logs: report.logs, calls: report.calls }),
  ).length;

Deno.test("a 5 MiB returned value is shown within the budget as valid JSON, the whole kept", async (t) => {
  const rows =
    'Array.from({ length: 50_000 }, (_, i) => ({ i, name: "row " + i, body: "z".repeat(80) }))';
  for (
    const [name, value, budget] of [
      ["one long string", '"x".repeat(5 * 1024 * 1024)', 256 * 1024],
      ["a long array of records", rows, 256 * 1024],
      ["records under a small budget", rows, 4 * 1024],
    ] as const
  ) {
    await t.step(name, async () => {
      const report = await run(`export default ${value};`, { maxOutputBytes: budget });
      assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome).slice(0, 300));
      const text = JSON.stringify(report.outcome);
      assert.doesNotThrow(() => JSON.parse(text), "valid JSON");
      assert.ok(shownBytes(report) <= budget, `${shownBytes(report)} bytes shown`);
      // The whole value is the harness's.
      assert.ok(report.full !== undefined);
      const whole = report.full.outcome.kind === "returned" && report.full.outcome.value;
      assert.ok(JSON.stringify(whole).length > 5 * 1024 * 1024);
      assert.ok(shownBytes(report) > budget / 2, "a cut keeps what fits");
    });
  }
  await t.step("the markers say what was cut", async () => {
    const text = await run('export default ["x".repeat(1 << 20), ...Array(5_000).fill(7)];', {
      maxOutputBytes: 8 * 1024,
    });
    const value = text.outcome.kind === "returned" ? text.outcome.value as unknown[] : [];
    assert.match(String(value[0]), /… \[\d+ more bytes\]$/);
    const last = value[value.length - 1] as Record<string, string>;
    assert.match(last[CUT_KEY] ?? "", /^\d+ more items$/);
  });
  await t.step("a value within the budget is shown whole, with no full copy", async () => {
    const report = await run('export default { a: [1, 2, 3], b: "small" };');
    assert.deepEqual(report.outcome, { kind: "returned", value: { a: [1, 2, 3], b: "small" } });
    assert.equal(report.full, undefined);
  });
});

Deno.test("a call's large result is cut in the report, its blocks still content blocks", async () => {
  const report = await run(
    'import { big } from "./mcp/big.ts";\nawait big({ bytes: 2_000_000 });\nexport default 1;',
    { maxOutputBytes: 16 * 1024 },
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: 1 });
  assert.ok(shownBytes(report) <= 16 * 1024, `${shownBytes(report)} bytes shown`);
  const call = report.calls[0];
  assert.ok(call?.outcome.ok);
  const block = call.outcome.value.content[0];
  assert.equal(block?.type, "text");
  assert.match(block?.type === "text" ? block.text : "", /^y+… \[\d+ more bytes\]$/);
  const whole = report.full?.calls[0]?.outcome;
  assert.ok(whole?.ok);
  const kept = whole.value.content[0];
  assert.equal(kept?.type === "text" && kept.text.length, 2_000_000);
});

Deno.test("a program can ask a result's size before printing it", async () => {
  const report = await run(
    'import { big } from "./mcp/big.ts";\nconst result = await big({ bytes: 100_000 });\n' +
      "export default { bytes: result.bytes, json: JSON.stringify(result).length };",
  );
  const value = report.outcome.kind === "returned" ? report.outcome.value : undefined;
  // Its JSON holds the text twice: in its block and as .text.
  assert.deepEqual(value, { bytes: 200_049, json: 200_049 });
});
