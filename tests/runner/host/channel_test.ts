import assert from "node:assert/strict";
import { toJson } from "../../../codec/interchange.ts";
import { MAX_LINE_BYTES } from "../../../codec/framing.ts";
import { MAX_JSON_DEPTH } from "../../../codec/json.ts";
import { err, ok } from "../../../codec/result.ts";
import { PendingHead } from "../../../runner/host/_channel.ts";
import type { RunModule, RunOutcome } from "../../../runner/host/run.ts";
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

Deno.test("an argument nested past the interchange's depth reaches call, which refuses it", async () => {
  // The prelude tags what lies past its limit as too_deep; the host takes each
  // such tag for a marker (not a channel fault) and toJson refuses the nesting.
  const faults: string[] = [];
  const report = await runProgram(
    'import { echo } from "./mcp/echo.ts";\n' +
      "let deep: unknown[] = [];\n" +
      "for (let level = 0; level < 300; level++) deep = [deep];\n" +
      'let kind = "none";\n' +
      "try {\n  await echo({ a: Array.from({ length: 2000 }, () => deep) as never });\n" +
      "} catch (error) {\n  kind = (error as { kind: string }).kind;\n}\n" +
      "export default kind;\n",
    {
      modules: new Map([["echo", ECHO]]),
      typeCheck: false,
      call: (_server, _tool, args) => {
        const json = toJson(args);
        if (json.ok) return Promise.resolve(ok({ content: [], isError: false }));
        faults.push(`${json.error.kind} ${json.error.path}`);
        return Promise.resolve(err({ kind: "invalid_arguments", message: json.error.message }));
      },
    },
  );
  assert.deepEqual(faults, [`too_deep $.a${"[0]".repeat(MAX_JSON_DEPTH - 1)}`]);
  assert.deepEqual(report.outcome, { kind: "returned", value: "invalid_arguments" });
});

const FILES: RunModule = {
  segment: "files",
  source: 'import { readResource, type ResourceResult } from "@loom/mcp/cap";\n' +
    "export function read_resource(uri: string): Promise<ResourceResult> {\n" +
    '  return readResource("files", uri);\n}\n',
};

const NO_CALLS = () => Promise.resolve(err({ kind: "unexpected", message: "no call expected" }));

Deno.test("runProgram() hands a program's read to read, never to call", async () => {
  const reads: unknown[] = [];
  const calls: string[] = [];
  const report = await runProgram(
    'import { read_resource } from "./mcp/files.ts";\n' +
      'export default (await read_resource("file:///notes.txt")).text;\n',
    {
      modules: new Map([["files", FILES]]),
      typeCheck: false,
      call: (server, tool) => {
        calls.push(`${server}/${tool}`);
        return NO_CALLS();
      },
      read: (server, uri, context) => {
        reads.push([server, uri, context?.run !== undefined]);
        return Promise.resolve(ok({ contents: [{ uri, text: "the notes" }] }));
      },
    },
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: "the notes" });
  assert.deepEqual(reads, [["files", "file:///notes.txt", true]]);
  assert.deepEqual(calls, []);
  const [record] = report.calls;
  assert.equal(record?.tool, "resources/read");
  assert.deepEqual(record?.args, { uri: "file:///notes.txt" });
  assert.deepEqual(
    record?.outcome,
    ok({
      content: [{ type: "resource", resource: { uri: "file:///notes.txt", text: "the notes" } }],
      isError: false,
    }),
  );
});

Deno.test("runProgram() without read hands a program's read to call, marked resource", async () => {
  const seen: unknown[] = [];
  const report = await runProgram(
    'import { read_resource } from "./mcp/files.ts";\n' +
      'export default (await read_resource("file:///a")).text;\n',
    {
      modules: new Map([["files", FILES]]),
      typeCheck: false,
      call: (server, tool, args, context) => {
        seen.push([server, tool, args, context?.resource]);
        const resource = { uri: "file:///a", text: "a" };
        return Promise.resolve(ok({ content: [{ type: "resource", resource }], isError: false }));
      },
    },
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: "a" });
  assert.deepEqual(seen, [["files", "resources/read", { uri: "file:///a" }, true]]);
});

/** Runs a program that posts `frame` itself, past `cap.ts`, and reports what reached the host. */
async function forge(frame: string): Promise<{ outcome: RunOutcome; asked: string[] }> {
  const asked: string[] = [];
  const report = await runProgram(
    "const scope = globalThis as unknown as { postMessage(message: unknown): void };\n" +
      `scope.postMessage(${frame});\n` +
      "await new Promise(() => {});\n",
    {
      modules: new Map([["files", FILES]]),
      typeCheck: false,
      timeoutMs: 20_000,
      call: (server, tool) => {
        asked.push(`call ${server}/${tool}`);
        return NO_CALLS();
      },
      read: (server, uri) => {
        asked.push(`read ${server} ${String(uri)}`);
        return Promise.resolve(err({ kind: "unexpected", message: "no read expected" }));
      },
    },
  );
  return { outcome: report.outcome, asked };
}

Deno.test("a read frame the program forges with a uri that is not a string breaks the channel", async () => {
  const { outcome, asked } = await forge('{ kind: "read", id: 1e9, server: "files", uri: 5 }');
  assert.equal(outcome.kind, "killed");
  assert.equal(outcome.kind === "killed" && outcome.reason, "channel");
  assert.match(
    outcome.kind === "killed" ? outcome.message : "",
    /a read frame has no string server or uri/,
  );
  assert.deepEqual(asked, []);
});

Deno.test("a call frame the program forges with a resource mark breaks the channel", async () => {
  const { outcome, asked } = await forge(
    '{ kind: "call", id: 1e9, server: "files", tool: "resources/read", args: { uri: "x" }, ' +
      "resource: true }",
  );
  assert.equal(outcome.kind, "killed");
  assert.equal(outcome.kind === "killed" && outcome.reason, "channel");
  assert.match(outcome.kind === "killed" ? outcome.message : "", /carries a resource mark/);
  assert.deepEqual(asked, []);
});

Deno.test("a too_deep tag the program forges where the sandbox writes none breaks the channel", async () => {
  const { outcome, asked } = await forge(
    '{ kind: "call", id: 1, server: "files", tool: "t", args: { a: { "\\u0000": "too_deep" } } }',
  );
  assert.equal(outcome.kind, "killed");
  assert.equal(outcome.kind === "killed" && outcome.reason, "channel");
  assert.match(outcome.kind === "killed" ? outcome.message : "", /too_deep tag sits at depth 1/);
  assert.deepEqual(asked, []);
});
