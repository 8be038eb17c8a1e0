import assert from "node:assert/strict";
import { backstop } from "../../codegen/mod.ts";

const minted = new Set(["echo"]);

Deno.test("backstop() accepts the generator's own source", () => {
  const source = [
    "// header",
    'import { invoke, type ToolResult } from "@loom/mcp/cap";',
    "/** Echo \u202e text */",
    'export function echo(args: { "m"?: "a\\"b" | 1e+21 | -0.5 | 12n }): Promise<ToolResult> {',
    '  return invoke("s", "echo", args);',
    "}",
  ].join("\n");
  assert.deepEqual(backstop(source, minted), { ok: true, value: undefined });
});

Deno.test("backstop() fails on anything the generator did not write", async (t) => {
  const table: [string, string][] = [
    ["a backtick", "`x`"],
    ["an at sign", "@decorator"],
    ["a backslash", "\\u0061"],
    ["template syntax", "${x}"],
    ["a single-quoted string", "'x'"],
    ["a word not minted", "export function pwn() {}"],
    ["an equals sign", "echo = 1"],
    ["a dot", "globalThis.x"],
    ["an unterminated comment", "/* open"],
    ["an unterminated string", '"open'],
    ["a raw newline in a string", '"a\nb"'],
    ["non-ASCII in a string", '"\u00fc"'],
    ["non-ASCII in code", "\u00fc"],
    ["a U+2028 ending a line comment", "// note\u2028pwn()"],
    ["a CR ending a line comment", "// note\rpwn()"],
    ["a tab", "\techo"],
    ["a number run into a word", "1x"],
  ];
  for (const [name, source] of table) {
    await t.step(name, () => {
      const result = backstop(source, minted);
      assert.ok(!result.ok);
      assert.match(result.error.message, /at offset \d+: "/);
    });
  }
});
