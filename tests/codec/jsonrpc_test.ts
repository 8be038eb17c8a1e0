import assert from "node:assert/strict";
import fc from "fast-check";
import {
  classify,
  decodeInbound,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  type Inbound,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  MAX_JSON_DEPTH,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  stringifyJson,
} from "../../codec/mod.ts";
import { anyString, jsonValue, nestedArrays, record, RUNS } from "./_helpers.ts";

function inbound(line: string): Inbound {
  const result = decodeInbound(line);
  if (!result.ok) throw new assert.AssertionError({ message: result.error.message });
  return result.value;
}

Deno.test("decodeInbound() classifies well-formed messages", async (t) => {
  const cases: [string, string, Inbound][] = [
    ["a response with id 0", '{"jsonrpc":"2.0","id":0,"result":{}}', {
      kind: "response",
      id: 0,
      outcome: { ok: true, value: record([]) },
    }],
    ["a response with a null result", '{"jsonrpc":"2.0","id":1,"result":null}', {
      kind: "response",
      id: 1,
      outcome: { ok: true, value: null },
    }],
    ["a response with a string id", '{"jsonrpc":"2.0","id":"a-1","result":[]}', {
      kind: "response",
      id: "a-1",
      outcome: { ok: true, value: [] },
    }],
    ["a response with an empty string id", '{"jsonrpc":"2.0","id":"","result":1}', {
      kind: "response",
      id: "",
      outcome: { ok: true, value: 1 },
    }],
    ["a negative id", '{"jsonrpc":"2.0","id":-5,"result":1}', {
      kind: "response",
      id: -5,
      outcome: { ok: true, value: 1 },
    }],
    ["the largest safe id", '{"jsonrpc":"2.0","id":9007199254740991,"result":1}', {
      kind: "response",
      id: 9007199254740991,
      outcome: { ok: true, value: 1 },
    }],
    [
      "an error response with data",
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope","data":[1]}}',
      {
        kind: "response",
        id: 2,
        outcome: { ok: false, error: { code: -32601, message: "nope", data: [1] } },
      },
    ],
    [
      "an error response with null data",
      '{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"","data":null}}',
      {
        kind: "response",
        id: 2,
        outcome: { ok: false, error: { code: 1, message: "", data: null } },
      },
    ],
    ["a request with id 0", '{"jsonrpc":"2.0","id":0,"method":"ping"}', {
      kind: "request",
      id: 0,
      method: "ping",
    }],
    [
      "a request with array params",
      '{"jsonrpc":"2.0","id":"x","method":"m","params":[1,9007199254740993]}',
      { kind: "request", id: "x", method: "m", params: [1, 9007199254740993n] },
    ],
    ["a notification", '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}', {
      kind: "notification",
      method: "notifications/tools/list_changed",
    }],
    [
      "a notification with object params",
      '{"method":"n","params":{"a":1},"jsonrpc":"2.0"}',
      { kind: "notification", method: "n", params: record([["a", 1]]) },
    ],
    [
      "a message with unknown fields",
      '{"jsonrpc":"2.0","id":3,"result":1,"extra":{"x":1}}',
      { kind: "response", id: 3, outcome: { ok: true, value: 1 } },
    ],
    [
      "duplicate keys, the last one winning",
      '{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"id":2,"result":1}',
      { kind: "response", id: 2, outcome: { ok: true, value: 1 } },
    ],
    [
      "a __proto__ key in params, as an own property",
      '{"jsonrpc":"2.0","method":"n","params":{"__proto__":{"x":1}}}',
      { kind: "notification", method: "n", params: record([["__proto__", record([["x", 1]])]]) },
    ],
    [
      "a method holding a lone surrogate",
      '{"jsonrpc":"2.0","method":"\\ud800"}',
      { kind: "notification", method: "\ud800" },
    ],
  ];
  for (const [name, line, expected] of cases) {
    await t.step(name, () => assert.deepStrictEqual(inbound(line), expected));
  }
});

Deno.test("decodeInbound() refuses hostile lines with the fault a table says", async (t) => {
  const cases: [string, string, "malformed" | "bad_message"][] = [
    ["an empty line", "", "malformed"],
    ["not JSON", "hello", "malformed"],
    ["a BOM before the message", '\ufeff{"jsonrpc":"2.0","method":"m"}', "malformed"],
    ["a truncated message", '{"jsonrpc":"2.0","id":1,"res', "malformed"],
    ["1e400 inside a result", '{"jsonrpc":"2.0","id":1,"result":1e400}', "malformed"],
    [
      "nesting past MAX_JSON_DEPTH",
      `{"jsonrpc":"2.0","id":1,"result":${nestedArrays(MAX_JSON_DEPTH)}}`,
      "malformed",
    ],
    ["a batch", '[{"jsonrpc":"2.0","method":"m"}]', "bad_message"],
    ["an empty batch", "[]", "bad_message"],
    ["a string", '"jsonrpc"', "bad_message"],
    ["null", "null", "bad_message"],
    ["a number", "0", "bad_message"],
    ["no jsonrpc", '{"id":1,"result":1}', "bad_message"],
    ["jsonrpc 1.0", '{"jsonrpc":"1.0","id":1,"result":1}', "bad_message"],
    ["a request of jsonrpc 1.0", '{"jsonrpc":"1.0","id":1,"method":"m"}', "bad_message"],
    ["jsonrpc as a number", '{"jsonrpc":2.0,"id":1,"result":1}', "bad_message"],
    ["jsonrpc null", '{"jsonrpc":null,"method":"m"}', "bad_message"],
    ["jsonrpc with a space", '{"jsonrpc":"2.0 ","method":"m"}', "bad_message"],
    ["a float id", '{"jsonrpc":"2.0","id":1.5,"result":1}', "bad_message"],
    ["a null id", '{"jsonrpc":"2.0","id":null,"result":1}', "bad_message"],
    [
      "a null id on an error",
      '{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}',
      "bad_message",
    ],
    ["a boolean id", '{"jsonrpc":"2.0","id":true,"result":1}', "bad_message"],
    ["an object id", '{"jsonrpc":"2.0","id":{},"method":"m"}', "bad_message"],
    ["an array id", '{"jsonrpc":"2.0","id":[1],"method":"m"}', "bad_message"],
    ["an id past 2^53", '{"jsonrpc":"2.0","id":9007199254740993,"result":1}', "bad_message"],
    ["an id of 1e300", '{"jsonrpc":"2.0","id":1e300,"result":1}', "bad_message"],
    [
      "result and error both",
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}',
      "bad_message",
    ],
    ["neither result nor error", '{"jsonrpc":"2.0","id":1}', "bad_message"],
    ["neither method nor id", '{"jsonrpc":"2.0","result":1}', "bad_message"],
    ["an empty object", "{}", "bad_message"],
    ["a numeric method", '{"jsonrpc":"2.0","id":1,"method":7}', "bad_message"],
    ["a null method", '{"jsonrpc":"2.0","method":null}', "bad_message"],
    ["a method with a result", '{"jsonrpc":"2.0","id":1,"method":"m","result":1}', "bad_message"],
    [
      "a method with an error",
      '{"jsonrpc":"2.0","method":"m","error":{"code":1,"message":"m"}}',
      "bad_message",
    ],
    ["string params", '{"jsonrpc":"2.0","method":"m","params":"x"}', "bad_message"],
    ["numeric params", '{"jsonrpc":"2.0","id":1,"method":"m","params":1}', "bad_message"],
    ["null params", '{"jsonrpc":"2.0","method":"m","params":null}', "bad_message"],
    ["an error that is a string", '{"jsonrpc":"2.0","id":1,"error":"boom"}', "bad_message"],
    ["an error that is null", '{"jsonrpc":"2.0","id":1,"error":null}', "bad_message"],
    ["an error with no code", '{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}', "bad_message"],
    [
      "an error with a float code",
      '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}',
      "bad_message",
    ],
    [
      "an error with a string code",
      '{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}',
      "bad_message",
    ],
    [
      "an error with a bigint code",
      '{"jsonrpc":"2.0","id":1,"error":{"code":9007199254740993,"message":"m"}}',
      "bad_message",
    ],
    ["an error with no message", '{"jsonrpc":"2.0","id":1,"error":{"code":1}}', "bad_message"],
    [
      "an error with a numeric message",
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}',
      "bad_message",
    ],
  ];
  for (const [name, line, kind] of cases) {
    await t.step(`${name} is ${kind}`, () => {
      const result = decodeInbound(line);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.error.kind, kind);
        assert.match(result.error.message, /^Cannot /);
      }
    });
  }
  await t.step("a malformed line carries the offset of the fault", () => {
    const result = decodeInbound('{"jsonrpc":"2.0",}');
    assert.ok(!result.ok && result.error.kind === "malformed");
    assert.equal(result.error.offset, 17);
  });
});

Deno.test("classify() judges objects that still have a prototype the same way", () => {
  assert.equal(classify({ jsonrpc: "2.0", id: 0, result: 1 }).ok, true);
  assert.equal(classify({ jsonrpc: "2.0", id: 0 }).ok, false);
  assert.equal(classify({ jsonrpc: "2.0", method: "toString", params: {} }).ok, true);
});

Deno.test("the encoders build the envelope JSON-RPC names", async (t) => {
  await t.step("error codes have their standard values", () => {
    assert.deepStrictEqual(
      [PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR],
      [-32700, -32600, -32601, -32602, -32603],
    );
  });
  const built: [string, unknown, string][] = [
    ["a request with id 0", encodeRequest(0, "ping"), '{"jsonrpc":"2.0","id":0,"method":"ping"}'],
    [
      "a request with params",
      encodeRequest("a", "m", { x: 1n << 70n }),
      '{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1180591620717411303424}}',
    ],
    ["a notification", encodeNotification("n"), '{"jsonrpc":"2.0","method":"n"}'],
    ["a result", encodeResult(0, {}), '{"jsonrpc":"2.0","id":0,"result":{}}'],
    [
      "an error without data",
      encodeError(null, { code: -32700, message: "bad" }),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}',
    ],
    [
      "an error with data",
      encodeError(4, { code: 1, message: "m", data: false }),
      '{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m","data":false}}',
    ],
  ];
  for (const [name, value, text] of built) {
    await t.step(name, () => {
      const rendered = stringifyJson(value as never);
      assert.ok(rendered.ok);
      assert.equal(rendered.value, text);
    });
  }
});

Deno.test("decodeInbound() never throws on arbitrary text", () => {
  const envelope = fc.record({
    jsonrpc: fc.oneof(fc.constant("2.0"), jsonValue),
    id: jsonValue,
    method: fc.oneof(anyString, jsonValue),
    params: jsonValue,
    result: jsonValue,
    error: fc.oneof(
      jsonValue,
      fc.record({ code: jsonValue, message: jsonValue }, { requiredKeys: [] }),
    ),
  }, { requiredKeys: [] }).map((value) => {
    const text = stringifyJson(value);
    return text.ok ? text.value : "";
  });
  fc.assert(
    fc.property(fc.oneof(anyString, fc.json({ maxDepth: 2 }), envelope), (line) => {
      const result = decodeInbound(line);
      if (!result.ok) {
        assert.ok(result.error.kind === "malformed" || result.error.kind === "bad_message");
      }
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classify() reads only a message's own members, never inherited ones", () => {
  const inherited = Object.assign(Object.create({ result: {}, jsonrpc: "2.0" }), { id: 1 });
  assert.ok(!classify(inherited).ok);
  const own = Object.assign(Object.create({ error: { code: 1, message: "x" } }), {
    jsonrpc: "2.0",
    id: 1,
    result: {},
  });
  const decoded = classify(own);
  assert.ok(decoded.ok && decoded.value.kind === "response" && decoded.value.outcome.ok);
});

Deno.test("a request of another JSON-RPC version keeps its id for the error answering it", () => {
  const cases: [string, string | number | undefined][] = [
    ['{"jsonrpc":"1.0","id":"q7","method":"tools/list"}', "q7"],
    ['{"id":2,"method":"m"}', 2],
    // A response, or an id that is not one, has nothing to answer.
    ['{"jsonrpc":"1.0","id":3,"result":1}', undefined],
    ['{"jsonrpc":"1.0","id":1.5,"method":"m"}', undefined],
  ];
  for (const [line, id] of cases) {
    const decoded = decodeInbound(line);
    assert.ok(!decoded.ok && decoded.error.kind === "bad_message", line);
    assert.equal(decoded.error.id, id, line);
    assert.match(decoded.error.message, /"jsonrpc" is (?:"1\.0"|absent), not "2\.0"/);
  }
});
