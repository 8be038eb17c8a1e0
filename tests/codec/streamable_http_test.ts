import assert from "node:assert/strict";
import fc from "fast-check";
import {
  BODY_EXCERPT_BYTES,
  bodyExcerpt,
  displayUrl,
  encodeHeaderValue,
  isMediaType,
  jsonLineBytes,
  jsonOnOneLine,
  modernHeaders,
  parseJson,
  readOutgoing,
} from "../../codec/mod.ts";
import { RUNS } from "./_helpers.ts";

const META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}';

Deno.test("readOutgoing() reads what an HTTP request needs of a message", async (t) => {
  const table: Array<[string, string, ReturnType<typeof readOutgoing>]> = [
    [
      "a modern-era tools/call",
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{${META},"name":"echo"}}`,
      {
        kind: "request",
        id: 3,
        method: "tools/call",
        version: "2026-07-28",
        name: "echo",
      },
    ],
    [
      "resources/read names its uri",
      `{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"file:///a"}}`,
      {
        kind: "request",
        id: "r",
        method: "resources/read",
        name: "file:///a",
      },
    ],
    ["a legacy-era initialize", '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}', {
      kind: "request",
      id: 0,
      method: "initialize",
    }],
    [
      "a cancellation",
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}',
      {
        kind: "notification",
        method: "notifications/cancelled",
        cancels: 7,
      },
    ],
    ["a response to a server", '{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"x"}}', {
      kind: "response",
      id: 5,
    }],
    [
      "tools/list has no name",
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x"}}',
      {
        kind: "request",
        id: 1,
        method: "tools/list",
      },
    ],
    ["not JSON", "{", { kind: "unreadable" }],
    ["an array", "[1]", { kind: "unreadable" }],
    [
      "a version that is not a string",
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1}}}`,
      {
        kind: "request",
        id: 1,
        method: "m",
      },
    ],
  ];
  for (const [name, line, expected] of table) {
    await t.step(name, () => assert.deepEqual(readOutgoing(line), expected));
  }
});

Deno.test("encodeHeaderValue() passes visible ASCII and wraps the rest in base64", async (t) => {
  const table: Array<[string, string]> = [
    ["echo", "echo"],
    ["two words", "two words"],
    ["é", "=?base64?w6k=?="],
    [" lead", "=?base64?IGxlYWQ=?="],
    ["", "=?base64??="],
    ["a\r\nInjected: 1", "=?base64?YQ0KSW5qZWN0ZWQ6IDE=?="],
    ["=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="],
  ];
  for (const [value, expected] of table) {
    await t.step(JSON.stringify(value), () => assert.equal(encodeHeaderValue(value), expected));
  }
});

Deno.test("modernHeaders() says version, method and name, and nothing without an envelope", () => {
  assert.deepEqual(
    modernHeaders({
      kind: "request",
      id: 1,
      method: "tools/call",
      name: "échö",
      version: "2026-07-28",
    }),
    [
      ["MCP-Protocol-Version", "2026-07-28"],
      ["Mcp-Method", "tools/call"],
      ["Mcp-Name", "=?base64?w6ljaMO2?="],
    ],
  );
  assert.deepEqual(modernHeaders({ kind: "request", id: 1, method: "initialize" }), []);
});

Deno.test("every header value made is one a Headers object accepts", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 40 }), (value) => {
      const headers = new Headers();
      headers.set("Mcp-Name", encodeHeaderValue(value));
      assert.ok(headers.has("Mcp-Name"));
    }),
    { numRuns: RUNS },
  );
});

Deno.test("bodyExcerpt() is printable, capped and marked when cut", () => {
  assert.equal(bodyExcerpt(new TextEncoder().encode("a\u001b[31mb\n")), "a\\u{1b}[31mb\\u{a}");
  const long = bodyExcerpt(new Uint8Array(BODY_EXCERPT_BYTES + 10).fill(0x61));
  assert.equal(long, `${"a".repeat(BODY_EXCERPT_BYTES)}...`);
  assert.equal(bodyExcerpt(new Uint8Array([0xff, 0x41])), "\ufffdA");
});

Deno.test("displayUrl() drops credentials and the query", () => {
  assert.equal(
    displayUrl(new URL("https://u:p@example.com:8443/mcp?key=s#f")),
    "https://example.com:8443/mcp",
  );
});

Deno.test("isMediaType() and jsonOnOneLine() read what servers send", () => {
  assert.ok(isMediaType("Application/JSON; charset=utf-8", "application/json"));
  assert.ok(!isMediaType(null, "application/json"));
  assert.ok(!isMediaType("text/event-stream-ish", "text/event-stream"));
  assert.equal(jsonOnOneLine('{\r\n  "a": 1\n}'), '{    "a": 1 }');
});

Deno.test("readOutgoing() and bodyExcerpt() never throw", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.uint8Array({ maxLength: 600 }),
      (text, bytes) => {
        readOutgoing(text);
        assert.equal(typeof bodyExcerpt(bytes), "string");
      },
    ),
    { numRuns: RUNS },
  );
});

Deno.test("readOutgoing() finds anything that is not a JSON-RPC message unreadable", async (t) => {
  const table: Array<[string, string]> = [
    ["a float id", '{"jsonrpc":"2.0","id":1.5,"result":{}}'],
    ["no jsonrpc member", '{"id":1,"result":{}}'],
    ["jsonrpc 1.0", '{"jsonrpc":"1.0","method":"x"}'],
    ["neither result nor error", '{"jsonrpc":"2.0","id":1}'],
    ["params that are a string", '{"jsonrpc":"2.0","method":"x","params":"p"}'],
    ["a null id", '{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}'],
  ];
  for (const [name, line] of table) {
    await t.step(name, () => assert.deepEqual(readOutgoing(line), { kind: "unreadable" }));
  }
});

Deno.test("readOutgoing() names only what a method's own parameter says, never an inherited one", () => {
  const params = `{${META},"function toString() { [native code] }":"x","name":"y","uri":"z"}`;
  for (const method of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
    const message = readOutgoing(
      `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`,
    );
    assert.equal(message.name, undefined, method);
    assert.deepEqual(modernHeaders(message).map(([name]) => name), [
      "MCP-Protocol-Version",
      "Mcp-Method",
    ]);
  }
});

/** What parseJson() makes of a text: its value, or where and why it refuses it. */
function verdict(text: string): unknown {
  const parsed = parseJson(text);
  if (parsed.ok) return { value: parsed.value };
  const fault = parsed.error;
  return { kind: fault.kind, offset: fault.kind === "syntax" ? fault.offset : undefined };
}

Deno.test("jsonOnOneLine() keeps a JSON text's meaning and a broken text broken", async (t) => {
  const table: Array<[string, string]> = [
    ["a pretty-printed body", '{\r\n  "a": [1,\n 2],\n  "b": "x y"\r\n}'],
    ["a raw line feed inside a string", '{"jsonrpc":"2.0","id":1,"result":{"t":"a\nb"}}'],
    ["a raw carriage return inside a string", '{"t":"a\rb"}'],
    ["an escaped quote before a raw break", '{"t":"a\\"\nb"}'],
    ["a backslash before a raw break", '{"t":"a\\\nb"}'],
    ["an escaped backslash, then a break outside", '{"t":"a\\\\"\n}'],
    ["a break in a key", '{"a\nb":1}'],
  ];
  for (const [name, text] of table) {
    await t.step(name, () => {
      const line = jsonOnOneLine(text);
      assert.doesNotMatch(line, /[\r\n]/);
      assert.deepStrictEqual(verdict(line), verdict(text));
    });
  }
});

Deno.test("jsonOnOneLine() agrees with parseJson() on any text with line breaks", () => {
  const text = fc.oneof(
    fc.json({ maxDepth: 2 }).map((json) => json.replace(/,/g, ",\n").replace(/:/g, ":\r\n")),
    fc.string({ unit: fc.constantFrom('"', "\\", "\n", "\r", "a", "{", "}", ":", ",", " ") }),
  );
  fc.assert(
    fc.property(text, (text) => {
      const line = jsonOnOneLine(text);
      assert.doesNotMatch(line, /[\r\n]/);
      assert.deepStrictEqual(verdict(line), verdict(text), JSON.stringify(text));
    }),
    { numRuns: RUNS },
  );
});

Deno.test("jsonLineBytes() is jsonOnOneLine() as UTF-8 with a newline, and copies", () => {
  const text = fc.string({
    unit: fc.constantFrom('"', "\\", "\n", "\r", "a", "é", "😀", "{", "}", ":", " "),
  });
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(text, (text) => {
      const body = encoder.encode(text);
      const line = jsonLineBytes(body);
      assert.deepEqual(line, encoder.encode(`${jsonOnOneLine(text)}\n`));
      assert.notEqual(line.buffer, body.buffer);
    }),
    { numRuns: RUNS },
  );
});
