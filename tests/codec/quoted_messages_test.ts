// Every fault message that repeats server text quotes it through quote.ts:
// escaped, so it cannot move the cursor or fake a line, and bounded.

import assert from "node:assert/strict";
import {
  decodeInbound,
  decodeSkillResult,
  decodeSkillsPage,
  type JsonValue,
  scanParamHeaders,
} from "../../codec/mod.ts";

const EVIL = "\u001b[2J\n\u202e\u2028\u200b";
const LONG = "y".repeat(100_000);

/** Server text that is hostile, and text that is long, each as a name and a prefix's suffix. */
const VARIANTS: [string, string][] = [["hostile", EVIL], ["long", LONG]];

/** The most characters a message holding a few quoted values may have. */
const BOUND = 400;

function assertSafe(message: string): void {
  assert.doesNotMatch(message, /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u, JSON.stringify(message));
  assert.ok(message.length < BOUND, `${message.length} characters`);
}

function skill(uri: string, resources: JsonValue, frontmatter: JsonValue = {
  name: "n",
  description: "",
}): JsonValue {
  return { uri, frontmatter, resources };
}

const FILE = { digest: `sha256:${"0".repeat(64)}`, size: 1 };

Deno.test("decodeInbound() quotes a method name it repeats", async (t) => {
  for (const [name, tail] of VARIANTS) {
    const method = `x${tail}`;
    await t.step(name, () => {
      const result = decodeInbound(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: 1 }));
      assert.ok(!result.ok && result.error.kind === "bad_message");
      assertSafe(result.error.message);
      assert.match(result.error.message, /"params" of "x/);
    });
  }
});

Deno.test("decodeSkillsPage() and decodeSkillResult() quote the URIs they repeat", async (t) => {
  for (const [name, tail] of VARIANTS) {
    const uri = `u${tail}`;
    const table: [string, JsonValue][] = [
      ["a skill whose frontmatter is not an object", skill(uri, "dynamic", 1)],
      ["a skill without a name", skill(uri, "dynamic", { description: "" })],
      ["a skill without a description", skill(uri, "dynamic", { name: "n" })],
      ["a skill whose resources are not a list", skill(uri, 3)],
      ["a skill that lists a file twice", skill(uri, [{ uri, ...FILE }, { uri, ...FILE }])],
      ["a skill without its own SKILL.md", skill(uri, [{ uri: "other", ...FILE }])],
      ["a file with a bad digest", skill("s", [{ uri, digest: "x", size: 1 }])],
      ["a file with a bad size", skill("s", [{ uri, digest: FILE.digest, size: -1 }])],
    ];
    for (const [what, entry] of table) {
      await t.step(`${name}: ${what}`, () => {
        const page = decodeSkillsPage({ skills: [entry] });
        assert.ok(!page.ok);
        assertSafe(page.error.message);
        const got = decodeSkillResult({ skill: entry });
        assert.ok(!got.ok);
        assertSafe(got.error.message);
      });
    }
  }
});

Deno.test("scanParamHeaders() quotes the schema keys and header names it repeats", async (t) => {
  const mark = (name: JsonValue, type = "string") => ({ type, "x-mcp-header": name });
  for (const [name, tail] of VARIANTS) {
    const text = `k${tail}`;
    const table: [string, JsonValue][] = [
      ["a mark on an object", { properties: { [text]: mark("X", "object") } }],
      ["an empty mark", { properties: { [text]: mark("") } }],
      ["a mark under items", { properties: { [text]: { items: mark("X") } } }],
      ["a mark that is not a token", { properties: { a: mark(`${text}:`) } }],
      ["a mark used twice", { properties: { a: mark(text), b: mark(text) } }],
    ];
    for (const [what, schema] of table) {
      await t.step(`${name}: ${what}`, () => {
        const scan = scanParamHeaders(schema);
        assert.ok(!scan.ok);
        assertSafe(scan.reason);
      });
    }
  }
});
