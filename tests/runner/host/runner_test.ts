import assert from "node:assert/strict";
import { toJson } from "../../../codec/interchange.ts";
import type { CallToolResult } from "../../../codec/protocol.ts";
import { err, ok, type Result } from "../../../codec/result.ts";
import { MAX_JSON_DEPTH } from "../../../codec/json.ts";
import { UNREPRESENTABLE } from "../../../runner/sandbox/tags.ts";
import { decodeTagged, MIN_TOO_DEEP_DEPTH, taggedText } from "../../../runner/host/_tagged.ts";
import type { RunModule, RunOptions, RunOutcome } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";

// Hand-written modules in the shape `generate()` produces: one function per
// tool, each passing the wire name to `invoke`.
function module(server: string, tools: string[]): RunModule {
  const functions = tools.map((tool) =>
    `/** Calls "${tool}". */\nexport function ${tool}(args: { [key: string]: JsonValue }): ` +
    `Promise<ToolResult> {\n  return invoke("${server}", "${tool}", args);\n}\n`
  );
  return {
    segment: server,
    source: `import { invoke, type JsonValue, type ToolResult } from "@loom/mcp/cap";\n\n` +
      functions.join("\n"),
  };
}

const MODULES: ReadonlyMap<string, RunModule> = new Map([
  ["echo", module("echo", ["echo", "fail"])],
  ["clock", module("clock", ["now"])],
]);

type Failure = { kind: string; message: string };
type Handler = (args: unknown) => Promise<Result<CallToolResult, Failure>>;

function text(value: string, isError = false): Result<CallToolResult, Failure> {
  return ok({ content: [{ type: "text", text: value }], isError });
}

/** A fake `harness.call`: the interchange check first, as the harness does, then a handler. */
function fakeCall(handlers: Record<string, Handler>, log: string[] = []): RunOptions["call"] {
  return async (server, tool, args) => {
    log.push(`${server}/${tool}`);
    const json = toJson(args);
    if (!json.ok) return err({ kind: "invalid_arguments", message: json.error.message });
    const handler = handlers[`${server}/${tool}`];
    if (handler === undefined) {
      return err({ kind: "unknown_tool", message: `No tool "${tool}" on "${server}"` });
    }
    return await handler(json.value);
  };
}

function run(source: string, options: Partial<RunOptions> = {}): ReturnType<typeof runProgram> {
  return runProgram(source, {
    modules: MODULES,
    call: fakeCall({}),
    typeCheck: false,
    ...options,
  });
}

function expectKind<K extends RunOutcome["kind"]>(
  outcome: RunOutcome,
  kind: K,
): RunOutcome & { kind: K } {
  assert.equal(
    outcome.kind,
    kind,
    JSON.stringify(outcome, (_, v) => typeof v === "bigint" ? `${v}n` : v),
  );
  return outcome as RunOutcome & { kind: K };
}

Deno.test("decodeTagged() rebuilds what JSON lacks and refuses malformed trees", async (t) => {
  const TAG = "\u0000";
  await t.step("a bigint, undefined, NaN and a Map come back as themselves", () => {
    const value = decodeTagged({
      a: { [TAG]: "bigint", v: "18446744073709551616" },
      b: [{ [TAG]: "undefined" }, { [TAG]: "number", v: "NaN" }],
      c: { [TAG]: "map", entries: [["k", 1]] },
    });
    assert.ok(value.ok);
    const rebuilt = value.value as { a: bigint; b: unknown[]; c: Map<string, number> };
    assert.equal(rebuilt.a, 2n ** 64n);
    assert.deepEqual(rebuilt.b, [undefined, NaN]);
    assert.equal(rebuilt.c.get("k"), 1);
  });
  await t.step("a cycle points at its ancestor, so toJson refuses it with its path", () => {
    const value = decodeTagged({ child: { back: { [TAG]: "cycle", up: 2 } } });
    assert.ok(value.ok);
    const json = toJson(value.value);
    assert.ok(!json.ok);
    assert.equal(json.error.path, "$.child.back");
  });
  await t.step("an object holding the tag key survives a round trip", () => {
    const original = { [TAG]: "bigint", v: "1" };
    const value = decodeTagged(JSON.parse(taggedText(original)));
    assert.ok(value.ok);
    assert.deepEqual({ ...(value.value as object) }, original);
  });
  await t.step("taggedText() renders bigints and tag-key objects nested in each other", () => {
    const original = { n: [2n ** 64n], inner: { [TAG]: "x", deep: { [TAG]: 1n } } };
    const value = decodeTagged(JSON.parse(taggedText(original)));
    assert.ok(value.ok);
    const rebuilt = value.value as typeof original;
    assert.deepEqual(rebuilt.n, [2n ** 64n]);
    assert.equal(rebuilt.inner[TAG], "x");
    assert.equal(rebuilt.inner.deep[TAG], 1n);
  });
  await t.step("a tree with no tag is taken as it is, not copied", () => {
    const tree = JSON.parse('{"a":[1,{"b":"c"}],"__proto__":{"d":null}}');
    const value = decodeTagged(tree);
    assert.ok(value.ok);
    assert.equal(value.value, tree);
  });
  await t.step("a too_deep tag becomes one small marker, and toJson refuses its container", () => {
    // As the prelude writes them: many siblings, MIN_TOO_DEEP_DEPTH levels down.
    const tags: unknown = Array.from({ length: 10_000 }, () => ({ [TAG]: "too_deep" }));
    let tree: unknown = tags;
    for (let level = 1; level < MIN_TOO_DEEP_DEPTH; level++) tree = [tree];
    const value = decodeTagged(tree);
    assert.ok(value.ok);
    let inner = value.value;
    for (let level = 1; level < MIN_TOO_DEEP_DEPTH; level++) inner = (inner as unknown[])[0];
    const expected = {
      [UNREPRESENTABLE]: `nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`,
    };
    assert.equal((inner as unknown[]).length, 10_000);
    for (const item of inner as unknown[]) assert.deepEqual(item, expected);
    const json = toJson(value.value);
    assert.ok(!json.ok);
    assert.equal(json.error.kind, "too_deep");
    assert.equal(json.error.path, `$${"[0]".repeat(MAX_JSON_DEPTH)}`);
  });
  let deep: unknown = 0;
  for (let level = 0; level < 1100; level++) deep = [deep];
  const malformed: [string, unknown][] = [
    ["a number JSON.parse read past a double", JSON.parse('{"n":[1e999]}')],
    ["a tree nested past the limit, with no tag", deep],
    ["an unknown tag", { [TAG]: "nope" }],
    ["a bigint that is not digits", { [TAG]: "bigint", v: "1e9" }],
    ["a cycle past the root", { [TAG]: "cycle", up: 3 }],
    ["a too_deep tag shallower than the sandbox writes one", { a: [{ [TAG]: "too_deep" }] }],
    ["binary that is not base64", { [TAG]: "binary", base64: "%%%" }],
    ["a map entry that is not a pair", { [TAG]: "map", entries: [1] }],
  ];
  for (const [name, node] of malformed) {
    await t.step(`refuses ${name}`, () => assert.ok(!decodeTagged(node).ok));
  }
});

Deno.test("runProgram() rejects imports outside the harness's modules before running", async () => {
  const secret = await Deno.makeTempFile({ suffix: ".json" });
  try {
    const calls: string[] = [];
    const source = [
      'import { echo } from "./mcp/echo.ts";',
      'import { x } from "./mcp/missing.ts";',
      'import "../outside.ts";',
      `import s from "${secret}" with { type: "json" };`,
      'const d = await import("file://' + secret + '", { with: { type: "json" } });',
      'import "https://example.com/x.ts";',
      'import "npm:left-pad";',
      'import "jsr:@std/fs";',
      'import "node:fs";',
      'import "data:text/javascript,export default 1";',
      'import "./cap.ts";',
      'const name = "x"; await import(name);',
      "export default await echo({ text: s });",
    ].join("\n");
    const report = await run(source, { call: fakeCall({}, calls) });
    const outcome = expectKind(report.outcome, "rejected");
    assert.deepEqual(
      outcome.diagnostics.map((d) => `${d.line}:${d.column}`),
      ["12:25", "2:19", "3:8", "4:15", "5:24", "6:8", "7:8", "8:8", "9:8", "10:8", "11:8"],
    );
    assert.match(
      outcome.diagnostics[1]?.message ?? "",
      /no server of this harness.*"\.\/mcp\/echo\.ts"/,
    );
    assert.deepEqual(calls, []);
  } finally {
    await Deno.remove(secret);
  }
});

Deno.test("runProgram() runs a program: calls, errors, bigints, logs and its result", async (t) => {
  const order: string[] = [];
  let releaseEcho: () => void = () => {};
  const clockCalled = new Promise<void>((resolve) => releaseEcho = resolve);
  const call = fakeCall({
    "echo/echo": (args) => Promise.resolve(text(JSON.stringify(args))),
    "echo/fail": () => Promise.resolve(text("no such thing", true)),
    // Concurrency: the echo call of the Promise.all below does not settle until
    // the clock call has arrived, so a runner that ran calls one after another
    // would never get there.
    "echo/slow": async () => {
      order.push("slow started");
      await clockCalled;
      order.push("slow settled");
      return text("slow");
    },
    "clock/now": () => {
      order.push("now started");
      releaseEcho();
      return Promise.resolve(ok({
        content: [{ type: "text", text: "tick" }],
        structuredContent: { at: 12345678901234567890n },
        isError: false,
      }));
    },
  });
  const source = `
import { echo, fail } from "./mcp/echo.ts";
import { now } from "./mcp/clock.ts";
import { invoke, McpCallError, McpToolError } from "@loom/mcp/cap";
console.log("start", { n: 1 });
const echoed = (await echo({ text: "hi", n: 2 })).text;
let toolError = "";
try { await fail({}); } catch (e) { if (e instanceof McpToolError) toolError = e.text; }
let refused = "";
try { await echo({ id: 2n ** 64n }); } catch (e) { if (e instanceof McpCallError) refused = e.code + " " + e.message; }
const [slow, clock] = await Promise.all([invoke("echo", "slow", {}), now({})]);
export default { echoed, toolError, refused, slow: slow.text, at: (clock.structuredContent as { at: bigint }).at, url: import.meta.url };
`;
  const report = await run(source, { call });
  const outcome = expectKind(report.outcome, "returned");
  const value = outcome.value as Record<string, unknown>;

  await t.step("calls one tool and gets its text", () => {
    assert.equal(value.echoed, '{"text":"hi","n":2}');
  });
  await t.step("catches McpToolError with the tool's text", () => {
    assert.equal(value.toolError, "no such thing");
  });
  await t.step("a bigint past 2^64 is refused by the interchange, with its path", () => {
    assert.match(String(value.refused), /^invalid_arguments .*18446744073709551616.*\$\.id/);
    const record = report.calls[2];
    assert.equal(record?.args && (record.args as { id: bigint }).id, 2n ** 64n);
    assert.ok(record !== undefined && !record.outcome.ok);
  });
  await t.step("Promise.all over two servers runs the calls concurrently", () => {
    assert.deepEqual(order, ["slow started", "now started", "slow settled"]);
    assert.equal(value.slow, "slow");
  });
  await t.step("a bigint in a result reaches the program exactly", () => {
    assert.equal(value.at, 12345678901234567890n);
  });
  await t.step("every call is recorded in order with its outcome", () => {
    assert.deepEqual(
      report.calls.map((c) => `${c.server}/${c.tool}:${c.outcome.ok}`),
      ["echo/echo:true", "echo/fail:true", "echo/echo:false", "echo/slow:true", "clock/now:true"],
    );
    assert.ok(report.calls.every((c) => c.durationMs >= 0));
  });
  await t.step("console output comes back as logs", () => {
    assert.deepEqual(report.logs, ["start { n: 1 }"]);
    assert.deepEqual(report.limits.hit, []);
  });
  await t.step("the build root is gone after the run", async () => {
    await assert.rejects(Deno.stat(new URL(String(value.url))), Deno.errors.NotFound);
  });
});

Deno.test("runProgram() reports a throw with the program's own lines", async () => {
  const source = [
    "function inner(): never {",
    '  throw new RangeError("bad " + "input");',
    "}",
    "const x: number = 1;",
    "inner();",
  ].join("\n");
  const report = await run(source);
  const outcome = expectKind(report.outcome, "threw");
  assert.equal(outcome.name, "RangeError");
  assert.equal(outcome.message, "bad input");
  const frames = outcome.stack.split("\n").filter((line) => line.trim().startsWith("at "));
  assert.match(frames[0] ?? "", /at inner \(program\.ts:2:9\)/);
  assert.match(frames[1] ?? "", /program\.ts:5:1/);
  assert.doesNotMatch(outcome.stack, /loom-run|bootstrap\.[jt]s|prelude\.[jt]s/);
});

Deno.test("runProgram() reports an unhandled rejection as a throw, naming its error", async () => {
  const report = await run(
    'Promise.reject(new TypeError("lost"));\nawait new Promise((r) => setTimeout(r, 1000));',
  );
  const outcome = expectKind(report.outcome, "threw");
  assert.deepEqual([outcome.name, outcome.message], ["TypeError", "lost"]);
  assert.match(outcome.stack, /program\.ts:1:16/);
  assert.doesNotMatch(report.logs.join("\n"), /loom-run/);
});

Deno.test("runProgram() keeps the program from everything outside its channel", async (t) => {
  const dir = await Deno.makeTempDir();
  const secret = `${dir}/secret.json`;
  await Deno.writeTextFile(secret, '{"token":"s3cret"}');
  await Deno.writeTextFile(`${dir}/module.ts`, 'export default "outside";');
  const secretUrl = new URL(`file://${secret}`).href;
  const moduleUrl = new URL(`file://${dir}/module.ts`).href;
  // The runner's scan refuses these imports in the program itself, so each
  // is tried from a module the runner vouches for and does not scan (as a
  // generated one): what stops it there is the sandbox.
  const modules = new Map([
    ...MODULES,
    ["leak", {
      segment: "leak",
      source:
        `import s from "${secretUrl}" with { type: "json" };\nexport const token = s.token;\n`,
    }],
    ["tries", {
      segment: "tries",
      source: `export const tries: Record<string, () => Promise<unknown>> = {
  jsonDynamic: () => import("${secretUrl}", { with: { type: "json" } }),
  moduleOutside: () => import("${moduleUrl}"),
  remote: () => import("https://deno.land/x/nothing/mod.ts"),
  npm: () => import("npm:left-pad"),
};\n`,
    }],
  ]);
  const source = `
import { tries } from "./mcp/tries.ts";
const probes: Record<string, () => Promise<unknown>> = {
  readFile: () => Deno.readTextFile(${JSON.stringify(secret)}),
  readRootParent: () => Deno.readDir(new URL("../", import.meta.url))[Symbol.asyncIterator]().next(),
  writeFile: () => Deno.writeTextFile("x.txt", "x"),
  socket: () => Deno.connect({ hostname: "127.0.0.1", port: 4567 }),
  fetch: () => fetch("http://127.0.0.1:4567/"),
  env: async () => Deno.env.get("HOME"),
  envAll: async () => Deno.env.toObject(),
  command: () => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output(),
  ffi: async () => Deno.dlopen("libc.so.6", {}),
  eval: async () => eval("1 + 1"),
  newFunction: async () => new Function("return 1")(),
  jsonStatic: async () => (await import("./mcp/leak.ts")).token,
  ...tries,
};
const results: Record<string, string> = {};
for (const [name, probe] of Object.entries(probes)) {
  try {
    const value = await probe();
    results[name] = "allowed: " + String(value);
  } catch (e) {
    results[name] = "denied: " + (e instanceof Error ? e.name + " " + e.message : String(e));
  }
}
export default results;
`;
  try {
    const calls: string[] = [];
    const report = await run(source, { modules, call: fakeCall({}, calls) });
    const outcome = expectKind(report.outcome, "returned");
    const results = outcome.value as Record<string, string>;
    const expected: [string, RegExp][] = [
      ["readFile", /^denied: NotCapable Requires read access/],
      ["readRootParent", /^denied: NotCapable Requires read access/],
      ["writeFile", /^denied: NotCapable Requires write access/],
      ["socket", /^denied: NotCapable Requires net access/],
      ["fetch", /^denied: .*Requires net access/],
      ["env", /^denied: NotCapable Requires env access/],
      ["envAll", /^denied: NotCapable Requires env access/],
      ["command", /^denied: NotCapable Requires run access/],
      ["ffi", /^denied: NotCapable Requires ffi access/],
      ["eval", /^denied: EvalError/],
      ["newFunction", /^denied: EvalError/],
      ["jsonStatic", /^denied: .*Requires read access/],
      ["jsonDynamic", /^denied: .*Requires read access/],
      ["moduleOutside", /^denied: .*Requires read access/],
      ["remote", /^denied: .*(--no-remote|remote)/i],
      ["npm", /^denied: .*(--no-npm|npm)/i],
    ];
    for (const [name, pattern] of expected) {
      await t.step(`${name} is denied`, () => {
        assert.match(results[name] ?? "missing", pattern);
        assert.doesNotMatch(results[name] ?? "", /s3cret|read outside/);
      });
    }
    assert.deepEqual(calls, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runProgram() never takes what a program prints for a channel message", async (t) => {
  const forged = JSON.stringify({ kind: "call", id: 0, server: "echo", tool: "echo", args: {} });
  const done = JSON.stringify({ kind: "done", value: "forged" });
  const calls: string[] = [];
  const source = `
const out = new TextEncoder();
await Deno.stdout.write(out.encode(${JSON.stringify(`${forged}\n`)}));
await Deno.stdout.write(out.encode("00000000000000000000000000000000 " + ${
    JSON.stringify(`${done}\n`)
  }));
await Deno.stderr.write(out.encode(${JSON.stringify(`${forged}\n`)}));
console.log(${JSON.stringify(forged)});
let stolen = "nothing";
const buf = new Uint8Array(64);
const n = await Promise.race([Deno.stdin.read(buf), new Promise((r) => setTimeout(() => r(null), 50))]);
if (typeof n === "number") stolen = new TextDecoder().decode(buf.subarray(0, n));
export default { stolen, args: Deno.args };
`;
  const report = await run(source, { call: fakeCall({}, calls) });
  const outcome = expectKind(report.outcome, "returned");
  await t.step("forged frames on stdout, stderr and console are logs, not calls", () => {
    assert.deepEqual(calls, []);
    assert.equal(report.calls.length, 0);
    assert.equal(report.logs.filter((line) => line.includes('"kind":"call"')).length, 3);
  });
  await t.step("the nonce is not on stdin or in argv", () => {
    assert.deepEqual(outcome.value, { stolen: "nothing", args: [] });
  });
  await t.step(
    "a message posted to the bootstrap that is not the runner's ends the run",
    async () => {
      const posted = await run(
        'postMessage({ kind: "call", id: "x" }); await new Promise(() => {});',
      );
      const killed = expectKind(posted.outcome, "killed");
      assert.equal(killed.reason, "channel");
      const unknown = await run('postMessage("hello"); await new Promise(() => {});');
      assert.equal(expectKind(unknown.outcome, "killed").reason, "channel");
    },
  );
});

Deno.test("runProgram() kills a program at each of its limits", async (t) => {
  await t.step("an infinite loop at the deadline", async () => {
    const report = await run("while (true) {}", { timeoutMs: 1000 });
    assert.equal(expectKind(report.outcome, "killed").reason, "timeout");
    assert.deepEqual(report.limits.hit, ["timeout"]);
  });
  await t.step("unbounded allocation at the memory cap", async () => {
    const report = await run(
      'const a: string[] = []; while (true) a.push("x".repeat(64) + a.length);',
      { memoryMb: 32 },
    );
    assert.equal(expectKind(report.outcome, "killed").reason, "memory");
    assert.deepEqual(report.limits.hit, ["memory"]);
  });
  await t.step({
    name: "memory outside the heap at the resident cap",
    ignore: Deno.build.os !== "linux",
    fn: async () => {
      const report = await run(
        "const kept: Uint8Array[] = [];\n" +
          "while (true) {\n  kept.push(new Uint8Array(16 << 20).fill(1));\n" +
          "  await new Promise((r) => setTimeout(r, 1));\n}",
        { memoryMb: 32 },
      );
      assert.equal(expectKind(report.outcome, "killed").reason, "memory");
    },
  });
  await t.step("megabytes of output at the output cap", async () => {
    const report = await run(
      'const line = "y".repeat(1000);\nfor (let i = 0; i < 10_000; i++) console.log(line);\n' +
        "await Deno.stdout.write(new TextEncoder().encode(line.repeat(10_000)));",
      { maxOutputBytes: 64 * 1024 },
    );
    assert.equal(expectKind(report.outcome, "killed").reason, "output");
    // The logs held are the cap's worth; what is shown of them fits the budget with the rest.
    const whole = report.full?.logs ?? [];
    const bytes = whole.reduce((sum, line) => sum + new TextEncoder().encode(line).length, 0);
    assert.equal(bytes, 64 * 1024);
    const shown = { outcome: report.outcome, logs: report.logs, calls: report.calls };
    assert.ok(new TextEncoder().encode(JSON.stringify(shown)).length <= 64 * 1024);
    assert.match(report.logs.at(-1) ?? "", /^\[\d+ log entr(y|ies) cut\]$/);
    assert.deepEqual(report.limits.hit, ["output"]);
  });
  await t.step("raw stdout without newlines at the output cap", async () => {
    const report = await run(
      'const chunk = new TextEncoder().encode("z".repeat(65536));\n' +
        "while (true) await Deno.stdout.write(chunk);",
      { maxOutputBytes: 100_000 },
    );
    assert.equal(expectKind(report.outcome, "killed").reason, "output");
    assert.ok(report.logs.join("").length <= 100_000);
  });
  await t.step("the call past the cap", async () => {
    const calls: string[] = [];
    const report = await run(
      'import { echo } from "./mcp/echo.ts";\nfor (let i = 0; i < 5; i++) await echo({ i });',
      { maxCalls: 2, call: fakeCall({ "echo/echo": () => Promise.resolve(text("ok")) }, calls) },
    );
    assert.equal(expectKind(report.outcome, "killed").reason, "calls");
    assert.equal(calls.length, 2);
    assert.deepEqual(report.limits.hit, ["calls"]);
  });
  await t.step("an abort from the caller", async () => {
    const controller = new AbortController();
    const report = await run(
      'import { echo } from "./mcp/echo.ts";\nawait echo({});\nawait new Promise(() => {});',
      {
        signal: controller.signal,
        call: fakeCall({
          "echo/echo": () => {
            controller.abort();
            return Promise.resolve(text("ok"));
          },
        }),
      },
    );
    assert.equal(expectKind(report.outcome, "killed").reason, "aborted");
    assert.deepEqual(report.limits.hit, []);
  });
});

Deno.test("runProgram() spawns nothing for a signal already aborted", async () => {
  const calls: string[] = [];
  const report = await run('import { echo } from "./mcp/echo.ts";\nawait echo({});', {
    signal: AbortSignal.abort(),
    call: fakeCall({}, calls),
  });
  assert.equal(expectKind(report.outcome, "killed").reason, "aborted");
  assert.deepEqual(calls, []);
});

Deno.test("runProgram() type-checks the program against its modules first", async (t) => {
  await t.step("a type error is a diagnostic with line and column, and nothing runs", async () => {
    const calls: string[] = [];
    const report = await runProgram(
      'import { echo } from "./mcp/echo.ts";\nawait echo({ text: "a" });\nconst n: number = "x";\n',
      { modules: MODULES, call: fakeCall({}, calls) },
    );
    const outcome = expectKind(report.outcome, "rejected");
    assert.deepEqual(outcome.diagnostics.map((d) => [d.file, d.line, d.column]), [[
      "program.ts",
      3,
      7,
    ]]);
    assert.match(outcome.diagnostics[0]?.message ?? "", /not assignable to type 'number'/);
    assert.deepEqual(calls, []);
  });
  await t.step("a program that checks then runs", async () => {
    const report = await runProgram(
      'import { McpToolError } from "@loom/mcp/cap";\nconst n: number = 41;\n' +
        "export default n + 1 + (McpToolError.name.length - 12);\n",
      { modules: MODULES, call: fakeCall({}) },
    );
    assert.deepEqual(expectKind(report.outcome, "returned").value, 42);
  });
});

Deno.test("runProgram() refuses bad options as caller misuse", async (t) => {
  const table: [string, Partial<RunOptions>, typeof RangeError | typeof TypeError][] = [
    ["a zero timeout", { timeoutMs: 0 }, RangeError],
    ["a fractional call cap", { maxCalls: 1.5 }, RangeError],
    ["a heap cap below the least", { memoryMb: 8 }, RangeError],
    [
      "a segment with a slash",
      { modules: new Map([["x", { segment: "../x", source: "" }]]) },
      TypeError,
    ],
    [
      "a segment that is not lowercase",
      { modules: new Map([["x", { segment: "GitHub", source: "" }]]) },
      TypeError,
    ],
    [
      "a segment past 64 characters",
      { modules: new Map([["x", { segment: "a".repeat(65), source: "" }]]) },
      TypeError,
    ],
    ["a timeout no timer can keep", { timeoutMs: 2 ** 31 }, RangeError],
    ["a zero check timeout", { checkTimeoutMs: 0 }, RangeError],
  ];
  for (const [name, options, error] of table) {
    await t.step(name, async () => {
      await assert.rejects(run("export default 1;", options), error);
    });
  }
});
