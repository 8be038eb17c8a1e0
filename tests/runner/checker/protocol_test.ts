import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeReply, decodeRequest } from "../../../runner/checker/protocol.ts";

const DIAGNOSTIC = {
  file: "program.ts",
  line: 2,
  column: 3,
  message: "m",
  code: 2322,
  excerpt: "x\n  ^",
  related: [{ file: "mcp/echo.ts", line: 4, column: 1, message: "r", excerpt: "y\n^" }],
};

Deno.test("decodeReply() keeps a diagnostic's known fields, related places included, and no other", () => {
  const decoded = decodeReply({
    kind: "checked",
    id: 1,
    heapBytes: 10,
    diagnostics: [
      { ...DIAGNOSTIC, extra: "dropped", related: [{ ...DIAGNOSTIC.related[0], more: 1 }] },
      { file: "program.ts", line: 1, column: 1, message: "plain" },
    ],
  });
  assert.deepEqual(decoded, {
    ok: true,
    value: {
      kind: "checked",
      id: 1,
      heapBytes: 10,
      diagnostics: [DIAGNOSTIC, { file: "program.ts", line: 1, column: 1, message: "plain" }],
    },
  });
});

Deno.test("decodeReply() refuses a diagnostic with a malformed code, excerpt or related place", async (t) => {
  const bad: [string, unknown][] = [
    ["a code of 0", { ...DIAGNOSTIC, code: 0 }],
    ["a string code", { ...DIAGNOSTIC, code: "2322" }],
    ["an excerpt that is not text", { ...DIAGNOSTIC, excerpt: 1 }],
    ["related places that are not a list", { ...DIAGNOSTIC, related: {} }],
    ["a related place without a line", {
      ...DIAGNOSTIC,
      related: [{ file: "a", column: 1, message: "" }],
    }],
  ];
  for (const [name, diagnostic] of bad) {
    await t.step(name, () => {
      const decoded = decodeReply({
        kind: "checked",
        id: 1,
        heapBytes: 1,
        diagnostics: [diagnostic],
      });
      assert.equal(decoded.ok, false);
    });
  }
});

Deno.test("decodeRequest() takes a check's aliases as pairs, and refuses anything else", () => {
  const files = [["program.ts", ""]];
  const aliases = [["./mcp/a_b.ts", "mcp/a-b.ts"]];
  assert.deepEqual(decodeRequest({ kind: "check", id: 0, files, aliases }), {
    ok: true,
    value: { kind: "check", id: 0, files, aliases },
  });
  assert.deepEqual(decodeRequest({ kind: "check", id: 0, files }), {
    ok: true,
    value: { kind: "check", id: 0, files },
  });
  for (const wrong of [{}, [["a"]], [["a", 1]], "a"]) {
    assert.equal(decodeRequest({ kind: "check", id: 0, files, aliases: wrong }).ok, false);
  }
});

Deno.test("decodeRequest() takes a check's vouched paths as strings, and refuses anything else", () => {
  const files = [["program.ts", ""], ["mcp/a.ts", ""]];
  assert.deepEqual(decodeRequest({ kind: "check", id: 0, files, vouched: ["mcp/a.ts"] }), {
    ok: true,
    value: { kind: "check", id: 0, files, vouched: ["mcp/a.ts"] },
  });
  for (const wrong of [{}, [1], [["mcp/a.ts"]], "mcp/a.ts", null]) {
    const decoded = decodeRequest({ kind: "check", id: 0, files, vouched: wrong });
    assert.equal(decoded.ok, false);
    if (!decoded.ok) assert.match(decoded.error.message, /vouched/);
  }
});

Deno.test("the checker protocol's decoders never throw", () => {
  fc.assert(fc.property(fc.anything(), (value) => {
    decodeReply(value);
    decodeRequest(value);
    decodeReply({ kind: "checked", id: 1, heapBytes: 1, diagnostics: [value] });
    decodeRequest({ kind: "check", id: 1, files: [], aliases: value });
    decodeRequest({ kind: "check", id: 1, files: [], vouched: value });
  }));
});
