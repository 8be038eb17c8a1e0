import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeInbound,
  peekResponseId,
  peekResponseIdBytes,
  stringifyJson,
} from "../../codec/mod.ts";
import { anyString, jsonValue, RUNS } from "./_helpers.ts";

Deno.test("peekResponseId() finds the id of a plain response and of no other line", async (t) => {
  const cases: [string, string, number | undefined][] = [
    ["a result", '{"jsonrpc":"2.0","id":7,"result":{}}', 7],
    [
      "id 0, last, after a nested result",
      '{"result":{"a":[1,{"b":"}]\\""}]},"jsonrpc":"2.0","id":0}',
      0,
    ],
    ["an error, spaced out", ' { "jsonrpc" : "2.0" , "id" : 12 , "error" : {"code":1} } ', 12],
    ["a duplicate id: the last wins, as in parseJson", '{"id":1,"result":{},"id":2}', 2],
    ["a string holding escaped backslashes", '{"id":1,"result":"\\\\"}', 1],
    ["a request", '{"jsonrpc":"2.0","id":7,"method":"ping"}', undefined],
    ["a notification", '{"jsonrpc":"2.0","method":"x"}', undefined],
    ["a string id", '{"jsonrpc":"2.0","id":"7","result":{}}', undefined],
    ["no result nor error", '{"jsonrpc":"2.0","id":7}', undefined],
    ["a fractional id", '{"id":1.5,"result":{}}', undefined],
    ["a negative id", '{"id":-1,"result":{}}', undefined],
    ["an id past 15 digits", '{"id":1234567890123456,"result":{}}', undefined],
    ["a leading zero", '{"id":01,"result":{}}', undefined],
    ["an escaped key", '{"\\u0069d":1,"result":{}}', undefined],
    ["an array", "[1]", undefined],
    ["empty", "", undefined],
    ["an unclosed object", '{"id":1,"result":{"a":"b"', undefined],
    ["an unclosed string", '{"id":1,"result":"abc', undefined],
    ["text after the object", '{"id":1,"result":{}} x', undefined],
    ["a missing value", '{"id":1,"result":}', undefined],
  ];
  for (const [name, line, id] of cases) {
    await t.step(name, () => assert.equal(peekResponseId(line), id));
  }
});

Deno.test("peekResponseId() never throws, and agrees with decodeInbound() where it answers", () => {
  fc.assert(
    fc.property(anyString, (line) => {
      const id = peekResponseId(line);
      if (id === undefined) return;
      const decoded = decodeInbound(line);
      if (decoded.ok) assert.ok(decoded.value.kind === "response" && decoded.value.id === id);
    }),
    { numRuns: RUNS },
  );
  // A response with any other members, under keys without escapes: always found.
  const key = fc.stringMatching(/^[a-z_]{1,8}$/).filter((k) =>
    !["id", "jsonrpc", "result", "error", "method"].includes(k)
  );
  const response = fc.record({
    id: fc.nat(),
    result: jsonValue,
    extra: fc.dictionary(key, jsonValue),
  }).map(({ id, result, extra }) => {
    const text = stringifyJson({ ...extra, jsonrpc: "2.0", result, id });
    return { id, text: text.ok ? text.value : "" };
  });
  fc.assert(
    fc.property(response, ({ id, text }) => {
      const decoded = decodeInbound(text);
      assert.ok(decoded.ok && decoded.value.kind === "response" && decoded.value.id === id);
      assert.equal(peekResponseId(text), id);
    }),
    { numRuns: RUNS },
  );
});

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("peekResponseIdBytes() reads the id of the two compact shapes and no other line", async (t) => {
  const cases: [string, string, number | undefined][] = [
    ["id first, a result", '{"jsonrpc":"2.0","id":7,"result":{}}', 7],
    ["id first, an error", '{"jsonrpc":"2.0","id":12,"error":{"code":1,"message":"m"}}', 12],
    ["id last, result first", '{"result":{"a":"}"},"jsonrpc":"2.0","id":0}', 0],
    ["id last, error first", '{"error":{"code":1,"message":"m"},"jsonrpc":"2.0","id":3}', 3],
    ["id last, jsonrpc first", '{"jsonrpc":"2.0","result":[],"id":44}', 44],
    ["15 digits", '{"jsonrpc":"2.0","id":123456789012345,"result":1}', 123456789012345],
    ["16 digits", '{"jsonrpc":"2.0","id":1234567890123456,"result":1}', undefined],
    ["16 digits, last", '{"result":1,"jsonrpc":"2.0","id":1234567890123456}', undefined],
    ["a leading zero", '{"jsonrpc":"2.0","id":01,"result":{}}', undefined],
    ["a leading zero, last", '{"result":{},"id":01}', undefined],
    ["a request, id first", '{"jsonrpc":"2.0","id":7,"method":"ping"}', undefined],
    ["a request, id last", '{"method":"ping","jsonrpc":"2.0","id":7}', undefined],
    ["a string id", '{"jsonrpc":"2.0","id":"7","result":{}}', undefined],
    ["a fractional id", '{"jsonrpc":"2.0","id":1.5,"result":{}}', undefined],
    ["a negative id", '{"jsonrpc":"2.0","id":-1,"result":{}}', undefined],
    ["an id inside the result, last", '{"result":{"id":5}}', undefined],
    ["spaced out", '{ "jsonrpc": "2.0", "id": 7, "result": {} }', undefined],
    ["no digits", '{"jsonrpc":"2.0","id":,"result":{}}', undefined],
    ["cut short", '{"jsonrpc":"2.0","id":7', undefined],
    ["empty", "", undefined],
    ["one brace", "}", undefined],
  ];
  for (const [name, line, id] of cases) {
    await t.step(name, () => assert.equal(peekResponseIdBytes(encode(line)), id));
  }
});

Deno.test("peekResponseIdBytes() never throws, and agrees with decodeInbound() on lines with one id", () => {
  const head = fc.constantFrom(
    '{"jsonrpc":"2.0","id":',
    '{"result":',
    '{"error":',
    '{"jsonrpc":"2.0","result":',
    "",
  );
  const tail = fc.constantFrom(',"id":', ',"result":', ',"error":', "}", "");
  const line = fc.tuple(head, fc.oneof(anyString, fc.nat().map(String)), tail, anyString).map(
    (parts) => parts.join(""),
  );
  fc.assert(
    fc.property(fc.oneof(line, anyString), (text) => {
      const id = peekResponseIdBytes(encode(text));
      if (id === undefined) return;
      const decoded = decodeInbound(text);
      // A second "id" key is read by its first here, by its last there: the
      // router compares the two, so only lines with one "id" must agree.
      if (decoded.ok && text.split('"id"').length === 2) {
        assert.ok(decoded.value.kind === "response" && decoded.value.id === id);
      }
    }),
    { numRuns: RUNS },
  );
  // Responses rendered in either compact shape: always found.
  const response = fc.record({ id: fc.nat(), result: jsonValue, last: fc.boolean() }).map(
    ({ id, result, last }) => {
      const text = stringifyJson(
        last ? { result, jsonrpc: "2.0", id } : { jsonrpc: "2.0", id, result },
      );
      return { id, text: text.ok ? text.value : "" };
    },
  );
  fc.assert(
    fc.property(response, ({ id, text }) => {
      assert.equal(peekResponseIdBytes(encode(text)), id);
      assert.equal(peekResponseId(text), id);
    }),
    { numRuns: RUNS },
  );
});
