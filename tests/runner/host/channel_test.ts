import assert from "node:assert/strict";
import { toJson } from "../../../codec/interchange.ts";
import { MAX_LINE_BYTES } from "../../../codec/framing.ts";
import { ok } from "../../../codec/result.ts";
import { PendingHead } from "../../../runner/host/_channel.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type JsonValue, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { [key: string]: JsonValue }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
};

Deno.test("PendingHead keeps the first bytes of the unfinished line across chunks", async (t) => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const prefix = bytes("abcd ");
  await t.step("a line that starts like the prefix, fed a byte at a time", () => {
    const head = new PendingHead(prefix.length);
    for (const byte of bytes("abc")) head.follow(new Uint8Array([byte]));
    assert.ok(head.startsLike(prefix));
    head.follow(bytes("x"));
    assert.ok(!head.startsLike(prefix));
  });
  await t.step("a newline starts the next line", () => {
    const head = new PendingHead(prefix.length);
    head.follow(bytes("zzzz\nab"));
    assert.ok(head.startsLike(prefix));
    head.follow(bytes("cd \nq"));
    assert.ok(!head.startsLike(prefix));
  });
});

Deno.test("runProgram() carries a 15 MiB call argument through the channel intact", async () => {
  const size = 15 * 1024 * 1024;
  let received = -1;
  const report = await runProgram(
    'import { echo } from "./mcp/echo.ts";\n' +
      `const text = "x".repeat(${size});\n` +
      "export default (await echo({ text })).text;\n",
    {
      modules: new Map([["echo", ECHO]]),
      typeCheck: false,
      call: (_server, _tool, args) => {
        const json = toJson(args);
        const text = json.ok && typeof json.value === "object" && json.value !== null &&
            !Array.isArray(json.value)
          ? json.value.text
          : undefined;
        received = typeof text === "string" ? text.length : -1;
        return Promise.resolve(ok({ content: [{ type: "text", text: "got it" }], isError: false }));
      },
    },
  );
  assert.equal(received, size);
  assert.deepEqual(report.outcome, { kind: "returned", value: "got it" });
});

Deno.test("runProgram() ends the run when a message passes the frame cap", async () => {
  const calls: string[] = [];
  const report = await runProgram(
    'import { echo } from "./mcp/echo.ts";\n' +
      `await echo({ text: "x".repeat(${MAX_LINE_BYTES + 1}) });\n`,
    {
      modules: new Map([["echo", ECHO]]),
      typeCheck: false,
      call: (server, tool) => {
        calls.push(`${server}/${tool}`);
        return Promise.resolve(ok({ content: [], isError: false }));
      },
    },
  );
  assert.equal(report.outcome.kind, "killed");
  assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "channel");
  assert.match(
    report.outcome.kind === "killed" ? report.outcome.message : "",
    /larger than \d+ bytes/,
  );
  assert.deepEqual(calls, []);
});
