// What the host keeps of a run is bounded and plain, whatever the program
// does: its source, its output, its calls' arguments, its result, its exit.
// Each run makes its build root in a private folder and checks that the run left no folder
// there and no process started from it.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import {
  MAX_CALL_ARGS_BYTES,
  MAX_LOG_ENTRIES,
  MAX_PROGRAM_BYTES,
  MAX_REPORT_ARGS_BYTES,
  type RunModule,
  type RunOptions,
  type RunReport,
  TRUNCATION_MARKER,
} from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";

const ECHO: RunModule = {
  segment: "echo",
  source: 'import { invoke, type JsonValue, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function echo(args: { [key: string]: JsonValue }): Promise<ToolResult> {\n" +
    '  return invoke("echo", "echo", args);\n}\n',
};

const echoCall: RunOptions["call"] = () =>
  Promise.resolve(ok({ content: [{ type: "text", text: "ok" }], isError: false }));

/** Processes whose command line names `path`. */
function processesUnder(path: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isSafeInteger(pid)) continue;
    try {
      if (Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes(path)) found.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Runs a program with its build root in a private folder, checked empty after. */
async function run(source: string, options: Partial<RunOptions> = {}): Promise<RunReport> {
  const tmp = await Deno.makeTempDir({ prefix: "loom-limits-" });
  try {
    const report = await runProgram(source, {
      modules: new Map([["echo", ECHO]]),
      call: echoCall,
      typeCheck: false,
      tempDir: tmp,
      ...options,
    });
    assert.deepEqual([...Deno.readDirSync(tmp)].map((entry) => entry.name), []);
    if (Deno.build.os === "linux") assert.deepEqual(processesUnder(tmp), []);
    return report;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

function show(report: RunReport): string {
  return JSON.stringify(report, (_, v) => typeof v === "bigint" ? `${v}n` : v).slice(0, 500);
}

Deno.test("runProgram() refuses a source past MAX_PROGRAM_BYTES as a value, running nothing", async () => {
  const calls: string[] = [];
  const source = `import { echo } from "./mcp/echo.ts";\nawait echo({});\n//`;
  const report = await run(source.padEnd(MAX_PROGRAM_BYTES + 1, "x"), {
    call: (server, tool) => {
      calls.push(`${server}/${tool}`);
      return echoCall(server, tool, {});
    },
  });
  assert.equal(report.outcome.kind, "rejected", show(report));
  assert.match(
    report.outcome.kind === "rejected" ? report.outcome.diagnostics[0]?.message ?? "" : "",
    /larger than 1048576 bytes/,
  );
  assert.deepEqual(calls, []);
});

Deno.test("runProgram() counts multi-byte characters against MAX_PROGRAM_BYTES", async () => {
  // Half as many characters as the cap, each two bytes in UTF-8.
  const report = await run("//".padEnd(MAX_PROGRAM_BYTES / 2 + 2, "é"));
  assert.equal(report.outcome.kind, "rejected", show(report));
  const fits = await run(`export default 1;\n//${"x".repeat(MAX_PROGRAM_BYTES - 20)}`);
  assert.equal(fits.outcome.kind, "returned", show(fits));
});

Deno.test("runProgram() counts empty lines against the output cap, on stdout and stderr", async (t) => {
  for (const stream of ["stdout", "stderr"]) {
    await t.step(stream, async () => {
      const report = await run(
        `while (true) Deno.${stream}.writeSync(new Uint8Array(1 << 20).fill(10));`,
        { maxOutputBytes: 4096 },
      );
      assert.equal(report.outcome.kind, "killed", show(report));
      assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "output");
      assert.ok(report.logs.length <= 4096, `${report.logs.length} entries`);
      assert.deepEqual(report.limits.hit, ["output"]);
    });
  }
});

Deno.test("runProgram() stops a run at MAX_LOG_ENTRIES entries, whatever the byte cap", async () => {
  const report = await run(
    'const lines = new TextEncoder().encode("x\\n".repeat(1 << 15));\n' +
      "while (true) Deno.stdout.writeSync(lines);",
    { maxOutputBytes: 1 << 30 },
  );
  assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "output", show(report));
  assert.equal(report.logs.length, MAX_LOG_ENTRIES);
});

Deno.test("runProgram() keeps call arguments bounded per call and in total, marked", async () => {
  const seen: number[] = [];
  const report = await run(
    'import { echo } from "./mcp/echo.ts";\n' +
      'const big = "a".repeat(1 << 20);\n' +
      "for (let i = 0; i < 20; i++) await echo({ big, i });\n" +
      "await echo({ small: true });",
    {
      call: (_server, _tool, args) => {
        seen.push(String((args as { big?: string }).big ?? "").length);
        return echoCall("echo", "echo", {});
      },
    },
  );
  assert.equal(report.outcome.kind, "returned", show(report));
  assert.equal(report.calls.length, 21);
  // The server still got every argument whole.
  assert.deepEqual(seen.slice(0, 20), Array(20).fill(1 << 20));
  // What the model is shown is cut to its budget; what the harness keeps is bounded as below.
  assert.ok(JSON.stringify(report.calls).length <= report.limits.maxOutputBytes);
  const calls = report.full?.calls ?? [];
  assert.equal(calls.length, 21);
  const kept = calls.map((call) =>
    new TextEncoder().encode(typeof call.args === "string" ? call.args : JSON.stringify(call.args))
      .length
  );
  for (const [index, call] of calls.slice(0, 20).entries()) {
    assert.ok(call.argsTruncated);
    assert.ok(String(call.args).endsWith(TRUNCATION_MARKER));
    assert.ok((kept[index] ?? 0) <= MAX_CALL_ARGS_BYTES);
    assert.ok(call.argsBytes > 1 << 20);
  }
  // Each call past the total keeps its marker alone.
  const markers = calls.length * new TextEncoder().encode(TRUNCATION_MARKER).length;
  assert.ok(kept.reduce((sum, bytes) => sum + bytes, 0) <= MAX_REPORT_ARGS_BYTES + markers);
  // Past the total, arguments keep only their marker.
  assert.equal(calls[19]?.args, TRUNCATION_MARKER);
  assert.equal(calls[20]?.argsTruncated, true);
  assert.ok(JSON.stringify(report).length < 2 * MAX_REPORT_ARGS_BYTES);
});

Deno.test("runProgram() keeps small call arguments whole, as plain data", async () => {
  const report = await run(
    'import { echo } from "./mcp/echo.ts";\nawait echo({ n: 1, s: "x", list: [true, null] });',
  );
  assert.deepEqual(report.calls[0]?.args, { n: 1, s: "x", list: [true, null] });
  assert.equal(report.calls[0]?.argsTruncated, false);
});

Deno.test("a report is plain data that JSON.stringify never throws on", async (t) => {
  const hostile: [string, string][] = [
    ["a throwing getter", 'export default { get secret() { throw new Error("getter ran") } };'],
    ["a toJSON method", 'export default { toJSON() { throw new Error("toJSON ran") } };'],
    [
      "a hostile Proxy",
      "export default new Proxy({}, {\n" +
      '  ownKeys() { throw new Error("trap ran"); },\n' +
      '  get() { throw new Error("trap ran"); },\n' +
      "});",
    ],
    ["a cycle", "const a: { self?: unknown } = {};\na.self = a;\nexport default a;"],
    ["a function", "export default { f() {}, g: class G {} };"],
    ["a Map, a Set, a Date", "export default [new Map([[1, 2]]), new Set([3]), new Date(0)];"],
    ["a symbol", 'export default { s: Symbol("x"), [Symbol("k")]: 1 };'],
  ];
  for (const [name, source] of hostile) {
    await t.step(name, async () => {
      const report = await run(source);
      // A Proxy's trap may throw in the sandbox already, when the result is awaited.
      assert.ok(["returned", "threw"].includes(report.outcome.kind), show(report));
      // The getter or trap ran in the sandbox, if at all; what reached the
      // host is data that serializes without running anything.
      JSON.stringify(report);
      assertPlain(report, "$");
    });
  }
  await t.step("hostile call arguments", async () => {
    const report = await run(
      'import { invoke } from "@loom/mcp/cap";\n' +
        "const args = { get x() { return 1; }, toJSON() { return {}; } };\n" +
        "try { await invoke('echo', 'echo', args as never); } catch { /* refused */ }",
    );
    assert.equal(report.calls.length, 1);
    JSON.stringify(report);
    assertPlain(report, "$");
  });
});

/** Fails unless every node is a plain object, an array or a primitive, with no getter. */
function assertPlain(value: unknown, path: string): void {
  assert.notEqual(typeof value, "function", `${path} is a function`);
  assert.notEqual(typeof value, "symbol", `${path} is a symbol`);
  if (typeof value !== "object" || value === null) return;
  const proto = Object.getPrototypeOf(value);
  assert.ok(
    Array.isArray(value) || proto === Object.prototype || proto === null,
    `${path} is not plain`,
  );
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    assert.ok(descriptor !== undefined && "value" in descriptor, `${path}.${key} is a getter`);
    assertPlain(descriptor.value, `${path}.${key}`);
  }
}

Deno.test("runProgram() reports Deno.exit(3) as an exit with its code", async () => {
  const report = await run('console.log("before");\nDeno.exit(3);\nconsole.log("after");');
  assert.deepEqual(report.outcome, { kind: "exited", code: 3 });
  assert.deepEqual(report.logs, ["before"]);
});

Deno.test("the sandbox has no Cache API and no cache folder to write", async () => {
  const report = await run(
    "const found: string[] = [];\n" +
      'for (const name of ["caches", "CacheStorage", "Cache"]) if (name in globalThis) found.push(name);\n' +
      "export default found;",
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: [] });
});

Deno.test("a program starts no Worker", async (t) => {
  // A Worker's module from a data: or blob: URL is code made from a string,
  // run without the prelude (Node's module loader answers inside it).
  const body = "postMessage(typeof process.getBuiltinModule('node:vm').runInThisContext);";
  const tries: [string, string][] = [
    ["a data: Worker", `new Worker("data:application/javascript," + encodeURIComponent(src))`],
    ["a blob: Worker", "new Worker(URL.createObjectURL(new Blob([src])), { type: 'module' })"],
    ["a Worker of the program itself", "new Worker(import.meta.url, { type: 'module' })"],
  ];
  for (const [name, expression] of tries) {
    await t.step(`${name} is refused`, async () => {
      const report = await run(
        `const src = ${JSON.stringify(body)};\n` +
          "export default await new Promise((resolve) => {\n" +
          `  const w = ${expression};\n` +
          "  w.onmessage = (e: MessageEvent) => { resolve(e.data); w.terminate(); };\n" +
          "});",
      );
      assert.equal(report.outcome.kind, "threw", JSON.stringify(report.outcome));
      if (report.outcome.kind !== "threw") return;
      assert.equal(report.outcome.name, "NotCapable");
      assert.match(report.outcome.message, /^Cannot start a Worker in a program: .*Promise\.all/);
    });
  }
});

Deno.test("code built from a string has no way past the ban through Node's modules or the runtime's internals", async (t) => {
  // Reached as the checker cannot see, through globalThis.
  const report = await run(
    "const g = globalThis as any;\n" +
      "const found: Record<string, string> = {};\n" +
      'for (const id of ["node:vm", "node:worker_threads", "node:module", "node:repl", ' +
      '"node:inspector", "vm"]) {\n' +
      "  try {\n" +
      "    const loaded = g.process.getBuiltinModule(id);\n" +
      '    found[id] = "allowed: " + typeof loaded;\n' +
      "  } catch (e) {\n" +
      '    found[id] = "denied: " + (e as Error).name;\n' +
      "  }\n" +
      "}\n" +
      'found.internals = typeof g.Deno[g.Deno.internal] + " " + ' +
      "Object.getOwnPropertySymbols(g.Deno).length;\n" +
      "export default found;",
  );
  assert.equal(report.outcome.kind, "returned", show(report));
  const found = report.outcome.kind === "returned"
    ? report.outcome.value as Record<string, string>
    : {};
  for (const id of ["node:vm", "node:worker_threads", "node:module", "node:repl"]) {
    await t.step(`process.getBuiltinModule("${id}") is denied`, () => {
      assert.equal(found[id], "denied: NotCapable");
    });
  }
  await t.step("so are node:inspector and an id without its node: prefix", () => {
    assert.equal(found["node:inspector"], "denied: NotCapable");
    assert.equal(found.vm, "denied: NotCapable");
  });
  await t.step("Deno holds no internals (their core evaluates strings)", () => {
    assert.equal(found.internals, "undefined 0");
  });
});

Deno.test("a program imports node:vm in no form the scan lets through", async (t) => {
  const table: [string, string][] = [
    ["a static import", 'import vm from "node:vm";\nexport default typeof vm;'],
    ["a re-export", 'export { runInThisContext } from "node:vm";'],
    ["a dynamic import", 'export default typeof (await import("node:vm"));'],
    ["a template specifier", "export default typeof (await import(`node:vm`));"],
    ["a computed specifier", 'const id = "node:vm";\nexport default typeof (await import(id));'],
  ];
  for (const [name, source] of table) {
    await t.step(`${name} is rejected before the program runs`, async () => {
      const report = await run(source);
      assert.equal(report.outcome.kind, "rejected", show(report));
    });
  }
});

Deno.test("a program's working directory is its sandbox's own, not the harness's", async () => {
  const report = await run(
    "const cwd = Deno.cwd();\n" +
      'export default [cwd, `${cwd}/root/` === new URL("./", import.meta.url).pathname];',
  );
  assert.equal(report.outcome.kind, "returned", show(report));
  const [cwd, own] = report.outcome.kind === "returned"
    ? report.outcome.value as [string, boolean]
    : ["", false];
  assert.notEqual(cwd, Deno.cwd());
  assert.equal(own, true, cwd);
});

Deno.test("the scan refuses import() of a data: URL in the program's text", async () => {
  const report = await run('await import("data:text/javascript,export default 1");');
  assert.equal(report.outcome.kind, "rejected", show(report));
});

Deno.test("Deno.permissions.request in the sandbox is denied without a prompt", async () => {
  const report = await run(
    'const status = await Deno.permissions.request({ name: "read", path: "/" });\n' +
      "export default status.state;",
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: "denied" });
});

Deno.test("Atomics.wait blocking the program's thread still ends at the deadline", async () => {
  const report = await run(
    "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);",
    { timeoutMs: 1_000 },
  );
  assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "timeout", show(report));
});
