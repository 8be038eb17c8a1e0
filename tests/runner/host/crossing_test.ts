import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import { decodeResult } from "../../../runner/host/_tagged.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";
import { TAG, TAGS, UNREPRESENTABLE } from "../../../runner/sandbox/tags.ts";

const MODULES: ReadonlyMap<string, RunModule> = new Map([["w", {
  segment: "w",
  source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
    "export function forecast(args: { city: string }): Promise<ToolResult<{ celsius: number }>> {\n" +
    '  return invoke("w", "forecast", args, { structured: true });\n}\n' +
    "export function hello(args: Record<string, never>): Promise<ToolResult> {\n" +
    '  return invoke("w", "hello", args);\n}\n',
}]]);

const call = (_server: string, tool: string) =>
  Promise.resolve(ok(
    tool === "forecast"
      ? {
        content: [{ type: "text" as const, text: '{"celsius":21}' }],
        structuredContent: { celsius: 21 },
        isError: false,
      }
      : { content: [{ type: "text" as const, text: "hi" }], isError: false },
  ));

async function returned(source: string): Promise<{ value: unknown; logs: string[] }> {
  const report = await runProgram(source, { modules: MODULES, call, typeCheck: false });
  const shown = JSON.stringify(report.outcome, (_, v) => typeof v === "bigint" ? `${v}n` : v);
  assert.equal(report.outcome.kind, "returned", shown);
  assert.ok(report.outcome.kind === "returned");
  return { value: report.outcome.value, logs: report.logs };
}

const marker = (what: string) => ({ [UNREPRESENTABLE]: what });

Deno.test("a returned ToolResult arrives as { content, structuredContent, text }", async () => {
  const { value } = await returned(
    'import { forecast } from "./mcp/w.ts";\nexport default await forecast({ city: "Oslo" });',
  );
  assert.deepEqual(value, {
    content: [{ type: "text", text: '{"celsius":21}' }],
    structuredContent: { celsius: 21 },
    text: '{"celsius":21}',
  });
});

Deno.test("a ToolResult without structured content arrives without the key", async () => {
  const { value } = await returned(
    'import { hello } from "./mcp/w.ts";\nexport default [await hello({})];',
  );
  assert.deepEqual(value, [{ content: [{ type: "text", text: "hi" }], text: "hi" }]);
});

Deno.test("a logged ToolResult shows its text beside its blocks", async () => {
  const { logs } = await returned(
    'import { hello } from "./mcp/w.ts";\nconsole.log(await hello({}));',
  );
  assert.equal(logs.length, 1);
  assert.match(logs[0] ?? "", /content: \[ \{ type: "text", text: "hi" \} \]/);
  assert.match(logs[0] ?? "", /text: "hi"/);
});

Deno.test("a ToolResult logged inside another value shows its text too", async () => {
  const { logs } = await returned(
    'import { hello } from "./mcp/w.ts";\nconsole.log({ results: [await hello({})] });',
  );
  assert.match(
    logs[0] ?? "",
    /results: \[ \{ content: \[ \{ type: "text", text: "hi" \} \], text: "hi" \} \]/,
  );
});

Deno.test("what JSON cannot say arrives as a named marker, never as {}", async (t) => {
  const { value } = await returned(`
class Point { constructor(public x: number, public y: number) {} toJSON() { return [this.x, this.y]; } }
class Secret { hidden = 1; }
const cycle: { name: string; self?: unknown } = { name: "loop" };
cycle.self = cycle;
const nameless = () => 1;
Object.defineProperty(nameless, "name", { get() { throw new Error("no name"); } });
export default {
  map: new Map([["a", 1], ["b", 2]]),
  set: new Set([1]),
  withToJSON: new Point(1, 2),
  withoutToJSON: new Secret(),
  cycle,
  date: new Date(0),
  bytes: new Uint8Array(3),
  fn: function named() {},
  nameless,
  symbol: Symbol("s"),
  nan: NaN,
  holes: [1, undefined],
  absent: undefined,
  big: 2n ** 70n,
  error: new TypeError("boom"),
};`);
  const table: [string, unknown][] = [
    ["map", marker("instance of Map (2 entries)")],
    ["set", marker("instance of Set (1 members)")],
    ["withToJSON", [1, 2]],
    ["withoutToJSON", marker("instance of Secret")],
    ["cycle", { name: "loop", self: marker("cycle: a reference to an enclosing value") }],
    ["date", "1970-01-01T00:00:00.000Z"],
    ["bytes", marker("instance of Uint8Array (3 bytes)")],
    ["fn", marker("function named")],
    ["nameless", marker("function (anonymous)")],
    ["symbol", marker("symbol s")],
    ["nan", marker("number NaN")],
    ["holes", [1, marker("undefined")]],
    ["big", 2n ** 70n],
    ["error", marker("instance of TypeError: boom")],
  ];
  const record = value as Record<string, unknown>;
  for (const [key, expected] of table) {
    await t.step(key, () => assert.deepEqual(record[key], expected));
  }
  await t.step("an undefined property is absent, as in JSON", () => {
    assert.ok(!Object.hasOwn(record, "absent"));
  });
});

Deno.test("decodeResult() turns what a forged frame rebuilds into markers", () => {
  const forged = {
    map: { [TAG]: TAGS.map, entries: [["a", 1]] },
    thing: { [TAG]: TAGS.instance, name: "Foo" },
    list: [{ [TAG]: TAGS.undefined }],
    fn: { [TAG]: TAGS.function, name: "f" },
  };
  assert.deepEqual(decodeResult(forged), {
    ok: true,
    value: {
      map: marker("instance of Map"),
      thing: marker("instance of Foo"),
      list: [marker("undefined")],
      fn: marker("function f"),
    },
  });
});

Deno.test("a reply's bigints and objects holding the tag key reach the program as they were", async () => {
  const structuredContent = { big: 2n ** 64n, odd: { [TAG]: "x", inner: [-(2n ** 63n)] } };
  const report = await runProgram(
    'import { hello } from "./mcp/w.ts";\n' +
      "const { big, odd } = (await hello({})).structuredContent as {\n" +
      "  big: bigint; odd: Record<string, unknown> & { inner: bigint[] };\n};\n" +
      'export default [big === 2n ** 64n, odd["\\u0000"], odd.inner[0] === -(2n ** 63n)];\n',
    {
      modules: MODULES,
      typeCheck: false,
      call: () => Promise.resolve(ok({ content: [], structuredContent, isError: false })),
    },
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: [true, "x", true] });
});
