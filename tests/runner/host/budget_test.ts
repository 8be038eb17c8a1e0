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

const KIB64 = 64 * 1024;

/** The three attacks on the budget: what each shows against 64 KiB (the whole kept in full). */
const ATTACKS: Array<{ name: string; source: string; call?: RunOptions["call"] }> = [
  {
    name: "a thrown Error with a 4 MB message",
    source: 'throw new Error("x".repeat(4 * 1024 * 1024));',
  },
  {
    name: "forged frames with 1 MB server and tool names",
    source: 'import { invoke } from "@loom/mcp/cap";\n' +
      'const server = "s".repeat(1 << 20), tool = "t".repeat(1 << 20);\n' +
      "for (let i = 0; i < 20; i++) await invoke(server, tool, {}).catch(() => {});\n" +
      "export default 1;",
    // A harness that names what it was asked for, as refusals do.
    call: (server, tool) =>
      Promise.resolve({
        ok: false,
        error: { kind: "unknown_server", message: `Cannot call ${tool} of ${server}` },
      }),
  },
  {
    name: "a server's 2 MiB error, 25 times",
    source: 'import { big } from "./mcp/big.ts";\n' +
      "for (let i = 0; i < 25; i++) await big({ bytes: 1 }).catch(() => {});\n" +
      "export default 1;",
    call: () =>
      Promise.resolve({
        ok: false,
        error: { kind: "server_error", message: "e".repeat(2 * 1024 * 1024) },
      }),
  },
];

Deno.test("what the model is shown of a run fits maxOutputBytes whatever the program or server wrote", async (t) => {
  for (const attack of ATTACKS) {
    await t.step(attack.name, async () => {
      const report = await run(attack.source, {
        maxOutputBytes: KIB64,
        ...(attack.call === undefined ? {} : { call: attack.call }),
      });
      const shown = shownBytes(report);
      assert.ok(shown <= KIB64, `${shown} bytes shown against ${KIB64}`);
      assert.ok(report.full !== undefined, "the whole is kept");
      assert.match(JSON.stringify(report.outcome) + JSON.stringify(report.calls), /more bytes\]/);
    });
  }
});

Deno.test("a thrown message cut to the budget keeps its kind, name and head", async () => {
  const report = await run('throw new Error("x".repeat(4 * 1024 * 1024));', {
    maxOutputBytes: KIB64,
  });
  assert.ok(report.outcome.kind === "threw", JSON.stringify(report.outcome).slice(0, 300));
  assert.equal(report.outcome.name, "Error");
  assert.match(report.outcome.message, /^x+… \[\d+ more bytes\]$/);
  const whole = report.full?.outcome;
  assert.ok(whole?.kind === "threw" && whole.message.length === 4 * 1024 * 1024);
});

Deno.test("a call record cut to the budget keeps its kind of failure and the heads of its names", async () => {
  const forged = ATTACKS[1] as (typeof ATTACKS)[number];
  const report = await run(forged.source, { maxOutputBytes: KIB64, call: forged.call! });
  assert.equal(report.calls.length, 20);
  const call = report.calls[0];
  assert.ok(call !== undefined && !call.outcome.ok);
  assert.match(call.server, /^s+… \[\d+ more bytes\]$/);
  assert.match(call.tool, /^t+… \[\d+ more bytes\]$/);
  assert.equal(call.outcome.error.kind, "unknown_server");
  assert.equal(report.full?.calls[0]?.server.length, 1 << 20);
});

Deno.test("console output past the budget's share keeps its first entries and says how many were cut", async () => {
  const report = await run(
    'import { big } from "./mcp/big.ts";\nawait big({ bytes: 200_000 });\n' +
      'for (let i = 0; i < 3_000; i++) console.log("line " + i + " " + "w".repeat(10));\n' +
      'export default "z".repeat(100_000);',
    { maxOutputBytes: KIB64 },
  );
  assert.ok(shownBytes(report) <= KIB64, `${shownBytes(report)} bytes shown`);
  assert.match(report.logs[0] ?? "", /^line 0 w+$/);
  assert.match(report.logs.at(-1) ?? "", /^\[\d+ log entries cut\]$/);
});

/** Prints the bytes shown for each attack against a 64 KiB budget: `deno run -A <this file>`. */
if (import.meta.main) {
  for (const attack of ATTACKS) {
    const report = await run(attack.source, {
      maxOutputBytes: KIB64,
      ...(attack.call === undefined ? {} : { call: attack.call }),
    });
    console.log(`${attack.name}: ${shownBytes(report)} bytes shown of ${KIB64}`);
  }
}
