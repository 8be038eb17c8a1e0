// Short programs of the kind a model writes, using what the sandbox's program
// Worker offers: each runs unchecked, and passes the check to the same result.
// Then what the sandbox cannot run: refused by the check, naming what is missing.

import assert from "node:assert/strict";
import { generate } from "../../../codegen/generate.ts";
import { ok } from "../../../codec/result.ts";
import type { RunOptions } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";

const echo = generate("echo", [{
  name: "echo",
  description: "Echoes its text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
}]);
if (!echo.ok) throw new Error(echo.error.message);

const call: RunOptions["call"] = (_server, _tool, args) =>
  Promise.resolve(ok({
    content: [{ type: "text", text: String((args as { text?: unknown }).text) }],
    isError: false,
  }));

const ECHO = 'import { echo } from "./mcp/echo.ts";\n';

/** Each program and the value it returns. */
const PROGRAMS: [string, string, unknown][] = [
  [
    "sleeps with setTimeout(resolve, ms)",
    "await new Promise((r) => setTimeout(r, 10));\nexport default 1;",
    1,
  ],
  [
    "sleeps with a typed resolve",
    'const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));\nawait sleep(5);\nexport default "slept";',
    "slept",
  ],
  [
    "passes arguments through setTimeout",
    "const v = await new Promise<number>((r) => setTimeout((a: number, b: number) => r(a + b), 1, 2, 3));\nexport default v;",
    5,
  ],
  [
    "counts with setInterval and clearInterval",
    "let n = 0;\nawait new Promise<void>((done) => {\n  const id = setInterval(() => {\n    if (++n === 3) { clearInterval(id); done(); }\n  }, 1);\n});\nexport default n;",
    3,
  ],
  [
    "aborts with an AbortController",
    'const c = new AbortController();\nc.abort(new Error("stop"));\nexport default [c.signal.aborted, (c.signal.reason as Error).message];',
    [true, "stop"],
  ],
  [
    "times out a call with AbortSignal.timeout",
    'const signal = AbortSignal.timeout(5);\nawait new Promise((r) => signal.addEventListener("abort", r));\nexport default (signal.reason as DOMException).name;',
    "TimeoutError",
  ],
  [
    "races a tool call against a timeout",
    ECHO +
    'const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("slow")), 5_000));\nconst r = await Promise.race([echo({ text: "fast" }), timeout]);\nexport default r.text;',
    "fast",
  ],
  [
    "combines signals with AbortSignal.any",
    "const a = new AbortController();\nconst any = AbortSignal.any([a.signal, AbortSignal.timeout(60_000)]);\na.abort();\nexport default any.aborted;",
    true,
  ],
  [
    "reads a Blob as text",
    'const blob = new Blob(["a", "b"], { type: "text/plain" });\nexport default [await blob.text(), blob.size, blob.type];',
    ["ab", 2, "text/plain"],
  ],
  [
    "parses JSON through a Response",
    ECHO +
    "const r = await echo({ text: '{\"n\":1}' });\nconst data = await new Response(r.text).json() as { n: number };\nexport default data.n;",
    1,
  ],
  [
    "builds Headers",
    'const h = new Headers({ "Content-Type": "application/json" });\nh.append("x-a", "1");\nexport default [h.get("content-type"), [...h.keys()]];',
    ["application/json", ["content-type", "x-a"]],
  ],
  [
    "reads a ReadableStream it made",
    'const s = new ReadableStream<string>({ start(c) { c.enqueue("a"); c.enqueue("b"); c.close(); } });\nconst parts: string[] = [];\nfor await (const part of s) parts.push(part);\nexport default parts.join("");',
    "ab",
  ],
  [
    "gzips and gunzips with CompressionStream",
    'const zipped = new Blob(["hello hello hello"]).stream().pipeThrough(new CompressionStream("gzip"));\nconst back = zipped.pipeThrough(new DecompressionStream("gzip"));\nexport default await new Response(back).text();',
    "hello hello hello",
  ],
  [
    "dispatches on an EventTarget",
    'const target = new EventTarget();\nlet seen = "";\ntarget.addEventListener("ping", (e) => { seen = (e as CustomEvent<string>).detail; });\ntarget.dispatchEvent(new CustomEvent("ping", { detail: "pong" }));\nexport default seen;',
    "pong",
  ],
  [
    "names a DOMException",
    'const e = new DOMException("nope", "NotFoundError");\nexport default [e.name, e.message, e instanceof Error];',
    ["NotFoundError", "nope", true],
  ],
  [
    "validates a WebAssembly module",
    "const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);\nconst { instance } = await WebAssembly.instantiate(bytes);\nexport default [WebAssembly.validate(bytes), Object.keys(instance.exports).length];",
    [true, 0],
  ],
  [
    "hashes with crypto.subtle.digest",
    'const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("abc"));\nexport default [...new Uint8Array(digest)].slice(0, 4).map((b) => b.toString(16).padStart(2, "0")).join("");',
    "ba7816bf",
  ],
  [
    "signs with an HMAC key",
    'const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("k"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);\nconst sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("m"));\nexport default sig.byteLength;',
    32,
  ],
  [
    "makes a random UUID and random bytes",
    "const id = crypto.randomUUID();\nconst bytes = crypto.getRandomValues(new Uint8Array(8));\nexport default [id.length, bytes.length];",
    [36, 8],
  ],
  [
    "encodes and decodes UTF-8",
    'const bytes = new TextEncoder().encode("héllo");\nexport default [bytes.length, new TextDecoder().decode(bytes)];',
    [6, "héllo"],
  ],
  [
    "decodes a stream with TextDecoderStream",
    'const s = new Blob(["abc"]).stream().pipeThrough(new TextDecoderStream());\nlet t = "";\nfor await (const chunk of s) t += chunk;\nexport default t;',
    "abc",
  ],
  [
    "transforms a stream with TransformStream",
    'const upper = new TransformStream<string, string>({ transform(chunk, c) { c.enqueue(chunk.toUpperCase()); } });\nconst w = upper.writable.getWriter();\nvoid w.write("ab").then(() => w.close());\nlet out = "";\nfor await (const chunk of upper.readable) out += chunk;\nexport default out;',
    "AB",
  ],
  [
    "writes to a WritableStream",
    'const got: string[] = [];\nconst w = new WritableStream<string>({ write(chunk) { got.push(chunk); } });\nconst writer = w.getWriter();\nawait writer.write("x");\nawait writer.close();\nexport default got;',
    ["x"],
  ],
  [
    "parses a URL and its query",
    'const u = new URL("https://example.com/a/b?q=1&r=two#h");\nexport default [u.hostname, u.pathname, u.searchParams.get("r"), u.hash];',
    ["example.com", "/a/b", "two", "#h"],
  ],
  [
    "builds a query with URLSearchParams",
    'const p = new URLSearchParams({ a: "1" });\np.append("b", "x y");\nexport default p.toString();',
    "a=1&b=x+y",
  ],
  [
    "matches a URLPattern",
    'const p = new URLPattern({ pathname: "/users/:id" });\nexport default p.exec("https://x.test/users/42")?.pathname.groups.id;',
    "42",
  ],
  [
    "deep-copies with structuredClone",
    'const original = { when: new Date(0), tags: new Set(["a"]) };\nconst copy = structuredClone(original);\nexport default [copy.when.getTime(), copy.tags.has("a"), copy !== original];',
    [0, true, true],
  ],
  [
    "base64 with btoa and atob",
    'export default [btoa("hi"), atob("aGk=")];',
    ["aGk=", "hi"],
  ],
  [
    "base64 and hex of bytes",
    'const bytes = Uint8Array.fromBase64("aGk=");\nexport default [bytes.toHex(), new Uint8Array([1, 255]).toBase64()];',
    ["6869", "Af8="],
  ],
  [
    "measures with performance.now",
    "const t0 = performance.now();\nawait new Promise((r) => setTimeout(r, 2));\nexport default performance.now() - t0 >= 0;",
    true,
  ],
  [
    "marks and measures with performance",
    'performance.mark("a");\nperformance.mark("b");\nconst m = performance.measure("a-b", "a", "b");\nexport default m.name;',
    "a-b",
  ],
  [
    "queues a microtask",
    'const order: string[] = [];\nqueueMicrotask(() => order.push("micro"));\norder.push("sync");\nawait Promise.resolve();\nexport default order;',
    ["sync", "micro"],
  ],
  [
    "posts on a MessageChannel",
    "const { port1, port2 } = new MessageChannel();\nconst got = new Promise<unknown>((r) => { port2.onmessage = (e) => r(e.data); });\nport1.postMessage({ n: 7 });\nconst value = await got;\nport1.close();\nport2.close();\nexport default value;",
    { n: 7 },
  ],
  [
    "fills a FormData",
    'const f = new FormData();\nf.append("a", "1");\nf.append("b", new Blob(["x"]), "b.txt");\nexport default [f.get("a"), (f.get("b") as File).name];',
    ["1", "b.txt"],
  ],
  [
    "reads a Request's body",
    'const req = new Request("https://x.test/", { method: "POST", body: JSON.stringify({ a: 1 }) });\nexport default [req.method, await req.json()];',
    ["POST", { a: 1 }],
  ],
  [
    "reads a File with FileReader",
    'const r = new FileReader();\nconst text = new Promise<string>((done) => { r.onload = () => done(String(r.result)); });\nr.readAsText(new File(["content"], "a.txt"));\nexport default await text;',
    "content",
  ],
  [
    "formats numbers and dates with Intl",
    'const n = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(1234.5);\nconst d = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric" }).format(new Date(0));\nexport default [n, d];',
    ["$1,234.50", "1970"],
  ],
  [
    "segments text with Intl.Segmenter",
    'const words = [...new Intl.Segmenter("en", { granularity: "word" }).segment("a b")].filter((s) => s.isWordLike);\nexport default words.length;',
    2,
  ],
  [
    "groups with Object.groupBy and Map.groupBy",
    'const xs = [1, 2, 3, 4];\nconst g = Object.groupBy(xs, (x) => (x % 2 ? "odd" : "even"));\nconst m = Map.groupBy(xs, (x) => x > 2);\nexport default [g.odd, m.get(true)];',
    [[1, 3], [3, 4]],
  ],
  [
    "uses the new Set methods",
    "const a = new Set([1, 2, 3]);\nconst b = new Set([2, 3, 4]);\nexport default [[...a.union(b)], [...a.intersection(b)], a.isSubsetOf(b)];",
    [[1, 2, 3, 4], [2, 3], false],
  ],
  [
    "chains iterator helpers",
    "function* naturals() { let n = 0; while (true) yield n++; }\nexport default naturals().filter((n) => n % 2 === 0).map((n) => n * n).take(3).toArray();",
    [0, 4, 16],
  ],
  [
    "collects an async generator with Array.fromAsync",
    "async function* gen() { yield 1; yield 2; }\nexport default await Array.fromAsync(gen());",
    [1, 2],
  ],
  [
    "uses Promise.withResolvers and Promise.allSettled",
    'const { promise, resolve } = Promise.withResolvers<number>();\nresolve(3);\nconst all = await Promise.allSettled([promise, Promise.reject(new Error("x"))]);\nexport default all.map((r) => r.status);',
    ["fulfilled", "rejected"],
  ],
  [
    "calls tools concurrently with Promise.all",
    ECHO +
    'const rs = await Promise.all(["a", "b", "c"].map((text) => echo({ text })));\nexport default rs.map((r) => r.text).join("");',
    "abc",
  ],
  [
    "retries a tool call with a backoff sleep",
    ECHO +
    'let attempt = 0;\nasync function withRetry<T>(f: () => Promise<T>): Promise<T> {\n  for (;;) {\n    try { attempt++; return await f(); } catch (e) { if (attempt > 3) throw e; await new Promise((r) => setTimeout(r, 2 ** attempt)); }\n  }\n}\nconst r = await withRetry(() => echo({ text: "ok" }));\nexport default [r.text, attempt];',
    ["ok", 1],
  ],
  [
    "sorts and copies arrays the new way",
    "const xs = [3, 1, 2];\nexport default [xs.toSorted(), xs.toReversed(), xs.with(0, 9), xs.at(-1), xs.findLast((x) => x < 3)];",
    [[1, 2, 3], [2, 1, 3], [9, 1, 2], 2, 2],
  ],
  [
    "replaces with replaceAll and matchAll",
    'const s = "a-b-c";\nexport default [s.replaceAll("-", "+"), [...s.matchAll(/\\w/g)].map((m) => m[0])];',
    ["a+b+c", ["a", "b", "c"]],
  ],
  [
    "disposes with using and DisposableStack",
    'const log: string[] = [];\n{\n  using stack = new DisposableStack();\n  stack.defer(() => log.push("closed"));\n  log.push("open");\n}\nexport default log;',
    ["open", "closed"],
  ],
  [
    "chains error causes and aggregates",
    'const e = new Error("outer", { cause: new Error("inner") });\nconst agg = new AggregateError([e], "many");\nexport default [(e.cause as Error).message, agg.errors.length];',
    ["inner", 1],
  ],
  [
    "computes with BigInt",
    "export default (2n ** 70n).toString();",
    "1180591620717411303424",
  ],
  [
    "keeps a WeakRef",
    "const target = { a: 1 };\nconst ref = new WeakRef(target);\nexport default ref.deref()?.a;",
    1,
  ],
  [
    "waits with Atomics on shared memory",
    "const cell = new Int32Array(new SharedArrayBuffer(4));\nAtomics.add(cell, 0, 5);\nexport default [Atomics.load(cell, 0), Atomics.wait(cell, 0, 0, 0)];",
    [5, "not-equal"],
  ],
  [
    "holds a lock with navigator.locks",
    'export default await navigator.locks.request("job", async () => navigator.hardwareConcurrency > 0);',
    true,
  ],
  [
    "logs a table and a count",
    'console.table([{ a: 1 }]);\nconsole.count();\nconsole.info("done");\nexport default "logged";',
    "logged",
  ],
  [
    "reports and listens to errors on the global scope",
    'let seen = "";\naddEventListener("error", (e) => { e.preventDefault(); seen = e.message; }, { once: true });\nreportError(new Error("boom"));\nexport default seen.endsWith("boom");',
    true,
  ],
  [
    "escapes a regular expression with RegExp.escape",
    'export default new RegExp(RegExp.escape("a.b")).test("a.b");',
    true,
  ],
  [
    "tells the time with Temporal",
    'const d = Temporal.PlainDate.from("2024-02-28").add({ days: 1 });\nexport default d.toString();',
    "2024-02-29",
  ],
];

Deno.test("programs a model writes with the Worker's web APIs run, and pass the check", async (t) => {
  const runner = new Runner({ modules: new Map([["echo", echo.value]]), call });
  try {
    assert.ok(PROGRAMS.length >= 51);
    for (const [name, source, expected] of PROGRAMS) {
      await t.step(name, async () => {
        const unchecked = await runner.run(`${source}\n`, { typeCheck: false });
        assert.deepEqual(unchecked.outcome, { kind: "returned", value: expected });
        const checked = await runner.run(`${source}\n`);
        assert.deepEqual(checked.outcome, { kind: "returned", value: expected });
      });
    }
  } finally {
    await runner.retire();
  }
});

/** What the sandbox cannot run, and the name its refusal must give. */
const REFUSED: [string, string, RegExp][] = [
  ["Deno", 'export default await Deno.readTextFile("/etc/hosts");', /Cannot find name 'Deno'/],
  [
    "fetch",
    'export default (await fetch("https://example.com")).status;',
    /name 'fetch': .*network/,
  ],
  [
    "self.fetch",
    'export default self.fetch("https://example.com");',
    /'fetch' does not exist.*network/,
  ],
  ["WebSocket", 'export default new WebSocket("wss://x.test");', /'WebSocket'.*network/],
  ["process", "export default process.env.HOME;", /Cannot find name 'process'/],
  ["require", 'export default require("node:fs");', /Cannot find name 'require'/],
  ["indexedDB", 'export default indexedDB.open("db");', /name 'indexedDB': .*storage/],
  ["eval", 'export default eval("1");', /Cannot find name 'eval'/],
  ["postMessage", 'postMessage({ kind: "done" });', /Cannot find name 'postMessage'/],
  ["a node: import", 'import fs from "node:fs";\nexport default fs;', /Cannot import "node:fs"/],
  [
    "an npm: import",
    'import lp from "npm:left-pad";\nexport default lp;',
    /Cannot import "npm:left-pad"/,
  ],
];

Deno.test("what the sandbox cannot run is refused by the check, naming what is missing", async (t) => {
  const runner = new Runner({ modules: new Map([["echo", echo.value]]), call, warm: false });
  try {
    for (const [name, source, message] of REFUSED) {
      await t.step(name, async () => {
        const report = await runner.run(`${source}\n`);
        assert.equal(report.outcome.kind, "rejected", JSON.stringify(report.outcome));
        const diagnostics = report.outcome.kind === "rejected" ? report.outcome.diagnostics : [];
        assert.ok(
          diagnostics.some((d) => message.test(d.message)),
          JSON.stringify(diagnostics.map((d) => d.message)),
        );
      });
    }
  } finally {
    await runner.retire();
  }
});
