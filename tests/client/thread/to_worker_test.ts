import assert from "node:assert/strict";
import fc from "fast-check";
import { ringMemory } from "../../../client/thread/ring.ts";
import {
  decodeRequests,
  decodeToWorker,
  encodeAskReply,
  encodeBytesRequest,
  encodeCancel,
  encodeFreshCredentials,
  encodeLongCall,
  encodeMalformed,
  encodeRetire,
  encodeStart,
  renderRequest,
  TO_WORKER_KINDS,
  type ToWorker,
} from "../../../client/thread/to_worker.ts";

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
      { kind: "reply", ticket: 1, value: "maybe" },
      { kind: "reply", ticket: -1, value: true },
      { kind: "drained", seq: 1, drained: true },
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

const START = encodeStart({
  name: "echo",
  command: "deno",
  args: ["run", "server.ts"],
  env: { PATH: "/bin" },
  cwd: null,
  connectTimeoutMs: 60_000,
  retirementTimeoutMs: 5_000,
  forwardStderr: false,
  era: "auto",
  versions: ["2025-11-25"],
  remote: null,
  served: { elicit: true, sample: false, roots: [{ uri: "file:///w", name: "w" }] },
  rings: { requests: ringMemory(64), answers: ringMemory(64) },
});

/** One message of each kind, and of each shape a kind has, as its encoder makes it. */
const MESSAGES: ToWorker[] = [
  START,
  { ...START, remote: { url: "https://h/mcp", headers: { Authorization: "Bearer t" } } },
  {
    ...START,
    traceContext: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01" },
  },
  encodeBytesRequest(3, 500, "tools/call", new TextEncoder().encode('{"name":"x"}'))[0],
  encodeCancel(3, true),
  encodeMalformed("Server wrote junk", "malformed"),
  encodeMalformed("Server broke the framing", "framing"),
  encodeRetire(5_000),
  encodeAskReply(0, "unknown"),
  encodeAskReply(1, true),
  encodeAskReply(4, { ok: true, value: { action: "decline" } }),
  encodeAskReply(5, { ok: false, error: { code: -32602, message: "bad" } }),
  { ...START, served: { elicit: false, sample: true, roots: null } },
  encodeAskReply(2, {
    ok: true,
    value: { headers: { Authorization: "Bearer t" }, serial: 1, perRequest: false },
  }),
  encodeAskReply(3, {
    ok: false,
    error: {
      kind: "needs_auth",
      message: "Sign-in is needed",
      authorizationUrl: "https://as/authorize?x=1",
      issuer: "https://as",
    },
  }),
  encodeFreshCredentials({ headers: { Authorization: "Bearer t2" }, serial: 2, perRequest: false }),
  { ...START, remote: { url: "https://h/mcp", headers: {}, signIn: true } },
  encodeLongCall({
    ticket: 9,
    timeoutMs: 60_000,
    params: '{"name":"slow","arguments":{}}',
    progress: true,
    task: false,
    ttlMs: 60_000,
  }),
  encodeLongCall({ ticket: 10, timeoutMs: 5, params: "{}", progress: false, task: true, ttlMs: 5 }),
];

Deno.test("every message round-trips through its encoder, a structured clone and its decoder", () => {
  assert.deepEqual(new Set(MESSAGES.map((message) => message.kind)), new Set(TO_WORKER_KINDS));
  for (const message of MESSAGES) {
    const decoded = decodeToWorker(structuredClone(message));
    assert.ok(decoded.ok, `${message.kind}: ${JSON.stringify(decoded)}`);
    assert.deepEqual(decoded.value, message);
  }
});

Deno.test("a long call decodes only with the params of one JSON object on one line", () => {
  const good = { ticket: 1, timeoutMs: 10, params: "{}", progress: true, task: true, ttlMs: 10 };
  assert.ok(decodeToWorker(encodeLongCall(good)).ok);
  for (const params of ["", "[1]", '{"a":\n1}', '{"a":1']) {
    assert.ok(!decodeToWorker(encodeLongCall({ ...good, params })).ok, params);
  }
});

Deno.test("a bytes request hands the buffer of its parameters over for transfer", () => {
  const params = new TextEncoder().encode("{}");
  const [, transfer] = encodeBytesRequest(1, 10, "ping", params);
  assert.deepEqual(transfer, [params.buffer]);
});

Deno.test("a message with a field made hostile never throws, and decodes only well-formed", () => {
  fc.assert(fc.property(fc.constantFrom(...MESSAGES), fc.anything(), (message, hostile) => {
    for (const key of Object.keys(message)) {
      const decoded = decodeToWorker({ ...message, [key]: hostile });
      if (decoded.ok) assert.deepEqual(decodeToWorker(structuredClone(decoded.value)), decoded);
    }
  }));
});
