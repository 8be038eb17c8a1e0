// The code-mode runner's costs: one execution of a trivial program, spawn to
// result, with and without the type check; and the round trip of one invoke
// from inside the sandbox, beside calling the same `call` directly.
// Run: deno bench -A bench/runner_bench.ts
// The invoke figures time 100 sequential calls: per call = mean / 100.

import { toJson } from "../codec/interchange.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { RunOptions } from "../runner/host/run.ts";
import { runProgram } from "../runner/host/runner.ts";

const CALLS = 100;

const MODULES: RunOptions["modules"] = new Map([["echo", {
  segment: "echo",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "/** Echoes its text. */\n" +
    "export function echo(args: { text: string }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
}]]);

// What a harness's call costs beyond the server: the interchange check and a
// result. The server itself is left out, so the figures are the runner's own.
function echoCall(
  _server: string,
  _tool: string,
  args: unknown,
): Promise<Result<CallToolResult, { kind: string; message: string }>> {
  const json = toJson(args);
  if (!json.ok) {
    return Promise.resolve(err({ kind: "invalid_arguments", message: json.error.message }));
  }
  return Promise.resolve(ok({ content: [{ type: "text", text: "ok" }], isError: false }));
}

const TRIVIAL = "export default 1 + 1;\n";

Deno.bench("runProgram(): trivial program, no type check", {
  group: "execution",
  baseline: true,
  n: 10,
  warmup: 1,
}, async () => {
  const report = await runProgram(TRIVIAL, { modules: MODULES, call: echoCall, typeCheck: false });
  if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
});

Deno.bench("runProgram(): trivial program, with type check", {
  group: "execution",
  n: 3,
  warmup: 1,
}, async () => {
  const report = await runProgram(TRIVIAL, { modules: MODULES, call: echoCall });
  if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
});

Deno.bench(`call() directly: ${CALLS} sequential calls`, {
  group: "invoke",
  baseline: true,
}, async () => {
  for (let index = 0; index < CALLS; index++) await echoCall("echo", "echo", { text: "hi" });
});

Deno.bench(`invoke() in the sandbox: ${CALLS} sequential calls`, {
  group: "invoke",
  n: 10,
  warmup: 1,
}, async (b) => {
  // Timed from the host receiving the first call to it receiving the last:
  // CALLS - 1 full round trips plus one call, without the process start.
  let seen = 0;
  const call: RunOptions["call"] = (server, tool, args) => {
    seen++;
    if (seen === 1) b.start();
    if (seen === CALLS) b.end();
    return echoCall(server, tool, args);
  };
  const source = 'import { echo } from "./mcp/echo.ts";\n' +
    `for (let i = 0; i < ${CALLS}; i++) await echo({ text: "hi" });\n`;
  const report = await runProgram(source, {
    modules: MODULES,
    call,
    typeCheck: false,
    maxCalls: CALLS,
  });
  if (report.outcome.kind !== "returned") throw new Error(JSON.stringify(report.outcome));
});
