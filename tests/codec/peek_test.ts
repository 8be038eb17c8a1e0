import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeInbound, peekResponseId, stringifyJson } from "../../codec/mod.ts";
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
