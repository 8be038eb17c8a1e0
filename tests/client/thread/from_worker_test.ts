import assert from "node:assert/strict";
import fc from "fast-check";
import { err, ok } from "../../../codec/result.ts";
import { callTimedOut } from "../../../client/thread/outcomes.ts";
import { encodeNotice } from "../../../client/thread/notices.ts";
import {
  decodeAnswers,
  decodeFromWorker,
  encodeChallengeAsk,
  encodeCredentialsAsk,
  encodeDrainAsk,
  encodeExited,
  encodeProgress,
  encodeRetired,
  encodeServerRequestAsk,
  encodeSettled,
  encodeSignalAsk,
  encodeSpawned,
  encodeStarted,
  encodeState,
  encodeStderr,
  encodeToolsChanged,
  encodeWithdrawn,
  FROM_WORKER_KINDS,
  type FromWorker,
  renderAnswers,
} from "../../../client/thread/from_worker.ts";

Deno.test("events from the worker are decoded defensively on the main thread", () => {
  const good = decodeFromWorker([
    { kind: "spawned", pid: 12 },
    { kind: "settled", ticket: 1, outcome: { ok: true, value: { content: [] } } },
    {
      kind: "settled",
      ticket: 2,
      outcome: {
        ok: false,
        error: {
          kind: "server_error",
          method: "tools/call",
          error: { code: -1, message: "m" },
          message: "x",
        },
      },
    },
    { kind: "exited", pid: 12, code: 0, signal: null },
    { kind: "answers", tickets: [3, 4], ids: [5, 6], lines: new TextEncoder().encode("{}\n[]") },
    { kind: "answers", tickets: [3, 4], ids: [5, 6], lines: "{}\n[]" },
    {
      kind: "retired",
      outcome: {
        ok: true,
        value: {
          kind: "exited",
          pid: 12,
          code: 0,
          signal: null,
          drained: "unknown",
          escalation: "none",
        },
      },
    },
  ]);
  assert.ok(good.ok && good.value.length === 7);
  const bad: unknown[] = [
    { kind: "spawned", pid: "12" },
    { kind: "ask", ticket: 1, method: "signal", pid: 0, signal: "SIGKILL" },
    { kind: "ask", ticket: 1, method: "signal", pid: 5, signal: "SIGSTOP" },
    { kind: "ask", ticket: -1, method: "drain", pid: 5, deadlineMs: 10 },
    { kind: "ask", ticket: 1, method: "drain", pid: 5, deadlineMs: -10 },
    { kind: "ask", ticket: 1, method: "kill", pid: 5 },
    { kind: "state", state: "asleep", death: null, evidence: null },
    { kind: "state", state: "ready", death: { kind: "oops", message: "" }, evidence: null },
    { kind: "state", state: "retired", death: null, evidence: { kind: "gone" } },
    { kind: "settled", ticket: 1, outcome: { ok: false, error: { kind: "oops", message: "" } } },
    {
      kind: "state",
      state: "dead",
      death: { kind: "unavailable", cause: "bored", message: "", stderrTail: "" },
      evidence: null,
    },
    { kind: "retired", outcome: { ok: true, value: { kind: "exited", pid: 1 } } },
    {
      kind: "started",
      outcome: { ok: false, error: { kind: "tools_not_declared", message: "", stderrTail: "" } },
    },
    { kind: "answers", tickets: [3, 4], ids: [5], lines: new Uint8Array(4) },
    { kind: "answers", tickets: [3], ids: [-5], lines: "{}" },
    { kind: "answers", tickets: [3], ids: [5], lines: ["{}"] },
    { kind: "answers", tickets: "3", ids: [5], lines: new Uint8Array(2) },
    { kind: "answers", tickets: [], ids: [], lines: "" },
    { kind: "mystery" },
  ];
  for (const event of bad) {
    const decoded = decodeFromWorker([{ kind: "spawned", pid: 1 }, event]);
    assert.ok(!decoded.ok, JSON.stringify(event));
    assert.match(decoded.error, /Cannot decode event 1/);
  }
  assert.ok(!decodeFromWorker({ kind: "spawned", pid: 1 }).ok);
});

Deno.test("the settlement decoder never throws", () => {
  fc.assert(fc.property(fc.anything(), (value) => {
    decodeFromWorker(value);
    decodeFromWorker([value]);
  }));
});

const INFO = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "s", version: "1" },
  era: "legacy",
};
const EXITED = {
  kind: "exited" as const,
  pid: 12,
  code: 0,
  signal: null,
  drained: true,
  escalation: "stdin_closed" as const,
};
const DEATH = {
  kind: "unavailable" as const,
  cause: "exited" as const,
  message: 'Server "s" exited with code 0',
  stderrTail: "bye\n",
};

/** One event of each kind, and of each shape a kind has, as its encoder makes it. */
const EVENTS: FromWorker[] = [
  encodeSpawned(12),
  encodeExited(12, 0, null),
  encodeExited(12, 137, "SIGKILL"),
  encodeStderr(new TextEncoder().encode("hi\n")),
  encodeState({ state: "ready", death: null, evidence: null }),
  encodeState({ state: "retired", death: DEATH, evidence: EXITED }),
  encodeStarted(ok(INFO)),
  encodeStarted(err({ kind: "handshake_failed", message: "m", stderrTail: "", cleanup: EXITED })),
  encodeSettled(3, ok({ content: [] })),
  encodeSettled(4, err(callTimedOut("s", "tools/call", 100, true))),
  { kind: "answers", tickets: [1, 2], ids: [7, 8], lines: "{}\n{}" },
  { kind: "answers", tickets: [1], ids: [7], lines: new TextEncoder().encode("{}") },
  encodeSignalAsk(1, 12, "SIGTERM"),
  encodeDrainAsk(2, 12, 250),
  encodeServerRequestAsk(5, "elicitation/create", { message: "Name?" }),
  encodeServerRequestAsk(6, "sampling/createMessage", null),
  encodeCredentialsAsk(3, { method: "POST", url: "https://h/mcp" }),
  encodeChallengeAsk(4, {
    status: 401,
    wwwAuthenticate: 'Bearer resource_metadata="https://h/.well-known/oauth-protected-resource"',
    dpopNonce: null,
    method: "POST",
    url: "https://h/mcp",
    attempt: 1,
    serial: null,
  }),
  encodeStarted(
    err({
      kind: "needs_auth",
      message: "Sign-in is needed",
      authorizationUrl: "https://as/authorize",
      issuer: "https://as",
      stderrTail: "",
    }),
  ),
  encodeRetired(ok(EXITED)),
  encodeRetired(ok({ kind: "remote", url: "http://h/mcp", session: "deleted", status: 200 })),
  encodeRetired(
    err({ kind: "retirement_timed_out", message: "m", timeoutMs: 5, escalation: "sigkill" }),
  ),
  encodeToolsChanged(),
  encodeProgress(5, { kind: "progress", progress: 3, total: 10, message: "three" }),
  encodeProgress(5, { kind: "progress", progress: 0.5 }),
  encodeProgress(6, { kind: "task", taskId: "t-1", status: "working", message: "Gathering" }),
  encodeProgress(6, { kind: "task", taskId: "t-1", status: "completed" }),
  encodeNotice({ kind: "log", level: "info", dataText: '"hi"', cut: false, dropped: 0 }),
  encodeNotice({
    kind: "log",
    level: "error",
    logger: "db",
    dataText: '{"a"',
    cut: true,
    dropped: 3,
  }),
  encodeNotice({ kind: "resource_updated", uri: "file:///a.txt" }),
  encodeNotice({ kind: "list_changed", list: "prompts" }),
  encodeWithdrawn(9),
];

Deno.test("every event round-trips through its encoder, a structured clone and its decoder", () => {
  assert.deepEqual(
    new Set(EVENTS.map((event) => event.kind)),
    new Set(FROM_WORKER_KINDS),
    "every kind is covered",
  );
  for (const event of EVENTS) {
    assert.deepEqual(decodeFromWorker(structuredClone([event])), ok([event]), event.kind);
  }
});

Deno.test("an event with a field made hostile never throws, and decodes only well-formed", () => {
  fc.assert(fc.property(fc.constantFrom(...EVENTS), fc.anything(), (event, hostile) => {
    for (const key of Object.keys(event)) {
      const changed = { ...event, [key]: hostile };
      const decoded = decodeFromWorker([changed]);
      // What decodes is an event of the protocol: it round-trips in its turn.
      if (decoded.ok) assert.deepEqual(decodeFromWorker(structuredClone(decoded.value)), decoded);
    }
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
