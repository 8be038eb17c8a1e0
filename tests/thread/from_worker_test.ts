import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeFromWorker } from "../../thread/from_worker.ts";

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
    { kind: "signal", pid: 0, signal: "SIGKILL" },
    { kind: "signal", pid: 5, signal: "SIGSTOP" },
    { kind: "settled", ticket: 1, outcome: { ok: false, error: { kind: "oops", message: "" } } },
    { kind: "died", error: { kind: "unavailable", cause: "bored", message: "", stderrTail: "" } },
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
