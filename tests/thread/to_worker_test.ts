import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeAnswers, renderAnswers } from "../../thread/from_worker.ts";
import { decodeRequests, decodeToWorker, renderRequest } from "../../thread/to_worker.ts";

Deno.test("requests render and decode as compact strings, in batches", () => {
  const params = '{"name":"a|b\\nc","arguments":{"x":"|"}}';
  const batch = [renderRequest(0, 500, "tools/call", params), renderRequest(1, 60_000, "ping", "")]
    .join("\n");
  assert.deepEqual(decodeRequests(batch), {
    requests: [
      { ticket: 0, timeoutMs: 500, method: "tools/call", params },
      { ticket: 1, timeoutMs: 60_000, method: "ping", params: "" },
    ],
  });
});

Deno.test("decodeRequests() refuses a line that is not a request, keeping those before it", async (t) => {
  const bad = [
    "",
    "x|1|ping|",
    "1|-5|ping|",
    "1|10|shutdown|",
    "1|10|ping|[]",
    "1|10",
    "-1|10|ping|",
  ];
  for (const line of bad) {
    await t.step(JSON.stringify(line), () => {
      const decoded = decodeRequests(`7|10|ping|\n${line}`);
      assert.equal(decoded.requests.length, 1);
      assert.match(decoded.fault ?? "", /Cannot decode request 1 from the main thread/);
    });
  }
});

Deno.test("a request with transferred parameter bytes decodes only as one compact JSON object", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const good = { kind: "request", ticket: 4, timeoutMs: 500, method: "tools/call" };
  const decoded = decodeToWorker({ ...good, params: bytes('{"name":"x","arguments":{}}') });
  assert.ok(decoded.ok && decoded.value.kind === "request", JSON.stringify(decoded));
  assert.equal(new TextDecoder().decode(decoded.value.params), '{"name":"x","arguments":{}}');
  for (
    const bad of [
      { ...good, params: '{"name":"x"}' },
      { ...good, params: bytes("") },
      { ...good, params: bytes("[1]") },
      { ...good, params: bytes('{"a":1') },
      { ...good, params: bytes('{"a":"\n"}').map((b) => b === 0x5c ? 0x0a : b) },
      { ...good, method: "shutdown", params: bytes("{}") },
      { ...good, ticket: -1, params: bytes("{}") },
      { ...good, timeoutMs: Number.NaN, params: bytes("{}") },
    ]
  ) {
    const outcome = decodeToWorker(bad);
    assert.ok(!outcome.ok, `accepted ${JSON.stringify(bad)}`);
  }
});

Deno.test("control messages are decoded defensively in the worker", () => {
  assert.ok(decodeToWorker({ kind: "retire", timeoutMs: 10 }).ok);
  assert.ok(decodeToWorker({ kind: "cancel", ticket: 3, timedOut: false }).ok);
  assert.ok(
    decodeToWorker({ kind: "malformed", message: "Server wrote junk", cause: "malformed" }).ok,
  );
  for (
    const bad of [
      null,
      [],
      { kind: "start" },
      { kind: "cancel", ticket: -1, timedOut: false },
      { kind: "cancel", ticket: 3 },
      { kind: "retire" },
      { kind: "malformed", message: 3, cause: "malformed" },
      { kind: "malformed", message: "junk", cause: "bored" },
      {
        kind: "drained",
        seq: 1,
        drained: "maybe",
      },
    ]
  ) {
    assert.ok(!decodeToWorker(bad).ok, JSON.stringify(bad));
  }
});

Deno.test("the worker's message decoders never throw", () => {
  fc.assert(fc.property(fc.anything(), (value) => {
    decodeToWorker(value);
    if (typeof value === "string") decodeRequests(value);
  }));
  fc.assert(fc.property(fc.string(), (text) => {
    decodeRequests(text);
  }));
});

Deno.test("answers rendered as one string decode back, and a bad header is refused", async (t) => {
  await t.step("round trip", () => {
    const text = renderAnswers([4, 5], [7, 8], '{"a":"x y"}\n{"b":[1,2]}');
    assert.deepEqual(decodeAnswers(text), {
      ok: true,
      value: { kind: "answers", tickets: [4, 5], ids: [7, 8], lines: '{"a":"x y"}\n{"b":[1,2]}' },
    });
  });
  for (
    const bad of [
      "",
      "4 7",
      "4,5 7\n{}",
      " 7\n{}",
      "4 \n{}",
      "4,x 7,8\n{}",
      "-1 7\n{}",
      "4 7.5\n{}",
      "4 1e3\n{}",
      "4 0x1\n{}",
      "4, 7\n{}",
      "4 7,\n{}",
      "4 9007199254740992\n{}",
    ]
  ) {
    await t.step(JSON.stringify(bad), () => assert.ok(!decodeAnswers(bad).ok));
  }
  await t.step("any lists of counts", () => {
    const counts = fc.array(fc.nat(), { minLength: 1, maxLength: 40 });
    fc.assert(fc.property(counts, (tickets) => {
      const ids = tickets.map((ticket) => Number.MAX_SAFE_INTEGER - ticket);
      const decoded = decodeAnswers(renderAnswers(tickets, ids, "{}"));
      assert.deepEqual(decoded, {
        ok: true,
        value: { kind: "answers", tickets, ids, lines: "{}" },
      });
    }));
  });
});
