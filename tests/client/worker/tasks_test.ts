// A task-augmented call's driving (`client/worker/_tasks.ts`) on a manual clock,
// its legs answered by the test: the poll interval clamped, a plain answer
// taken as the answer, input a modern task needs cancelled, the caller's
// cancel reaching the task; and the long call's request line as written.

import assert from "node:assert/strict";
import { err, ok, type Result } from "../../../codec/result.ts";
import type { JsonValue } from "../../../codec/json.ts";
import { ManualClock } from "../../../client/transport/clock.ts";
import { TaskCall, type TaskIo } from "../../../client/worker/_tasks.ts";
import { eraCodec } from "../../../client/thread/era.ts";
import { LineWriter } from "../../../client/worker/_lines.ts";
import type { Settle } from "../../../client/worker/_pending.ts";
import type { ClientError } from "../../../client/thread/outcomes.ts";
import type { CallProgress } from "../../../codec/progress.ts";
import { TASK_POLL_MIN_MS } from "../../../settings/limits.ts";

type Leg = { method: string; params: string; settle: Settle; id: number };

function rig(era: "legacy" | "modern") {
  const clock = new ManualClock();
  const legs: Leg[] = [];
  const cancelled: number[] = [];
  const reports: CallProgress[] = [];
  const outcomes: Result<JsonValue, ClientError>[] = [];
  let next = 0;
  const io: TaskIo = {
    name: "s",
    era: eraCodec(era),
    clock,
    send: (method, params, settle) => {
      const id = next++;
      legs.push({ method, params, settle, id });
      return id;
    },
    cancel: (id) => cancelled.push(id),
    report: (progress) => reports.push(progress),
    settle: (outcome) => outcomes.push(outcome),
  };
  const call = new TaskCall(io, {
    params: '{"name":"r","arguments":{}}',
    progress: false,
    ttlMs: 1,
  });
  call.start();
  return { clock, legs, cancelled, reports, outcomes, call };
}

const TASK = { taskId: "t", createdAt: "", lastUpdatedAt: "" };

Deno.test("a legacy task is polled at its interval (clamped), then its result fetched", () => {
  const { clock, legs, outcomes, reports } = rig("legacy");
  legs[0]?.settle(ok({ task: { ...TASK, status: "working", pollInterval: 1 } }));
  assert.equal(legs.length, 1);
  clock.advance(TASK_POLL_MIN_MS - 1);
  assert.equal(legs.length, 1, "no poll before TASK_POLL_MIN_MS");
  clock.advance(1);
  assert.equal(legs[1]?.method, "tasks/get");
  legs[1]?.settle(ok({ ...TASK, status: "completed", statusMessage: "done" }));
  assert.equal(legs[2]?.method, "tasks/result");
  legs[2]?.settle(ok({ content: [] }));
  assert.deepEqual(outcomes, [ok({ content: [] })]);
  assert.deepEqual(reports.map((r) => r.kind === "task" && r.status), ["working", "completed"]);
});

Deno.test("a server that answers a task call plainly has answered it", () => {
  const { legs, outcomes } = rig("modern");
  legs[0]?.settle(ok({ resultType: "complete", content: [] }));
  assert.deepEqual(outcomes, [ok({ resultType: "complete", content: [] })]);
});

Deno.test("a modern task that needs input is cancelled, and the call says why", () => {
  const { legs, outcomes } = rig("modern");
  legs[0]?.settle(ok({ resultType: "task", ...TASK, status: "input_required" }));
  assert.equal(legs[1]?.method, "tasks/cancel");
  const outcome = outcomes[0];
  assert.ok(outcome !== undefined && !outcome.ok && outcome.error.kind === "server_error");
  assert.match(outcome.error.message, /needs input this client cannot give/);
});

Deno.test("the caller's cancel cancels the task and settles nothing more", () => {
  const { clock, legs, outcomes, cancelled, call } = rig("legacy");
  legs[0]?.settle(ok({ task: { ...TASK, status: "working" } }));
  call.cancel();
  assert.equal(legs[1]?.method, "tasks/cancel");
  assert.equal(legs[1]?.params, '{"taskId":"t"}');
  clock.advance(60_000);
  assert.equal(legs.length, 2, "no poll after the cancel");
  assert.deepEqual(outcomes, []);
  assert.deepEqual(cancelled, []);
});

Deno.test("a death that settles a leg settles the call", () => {
  const { legs, outcomes } = rig("legacy");
  const death = err<ClientError>({
    kind: "unavailable",
    cause: "exited",
    message: "gone",
    stderrTail: "",
  });
  legs[0]?.settle(death);
  assert.deepEqual(outcomes, [death]);
});

Deno.test("a long call's request carries its progress token and task fields in both eras", () => {
  const lines: string[] = [];
  const writer = new LineWriter((data) => lines.push(String(data)));
  writer.requestWith(4, "tools/call", '{"name":"x"}', {
    meta: '"progressToken":4',
    fields: '"task":{"ttl":5}',
  });
  assert.deepEqual(JSON.parse(lines[0] as string).params, {
    _meta: { progressToken: 4 },
    task: { ttl: 5 },
    name: "x",
  });
  writer.envelope({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
  writer.requestWith(5, "tools/call", "{}", { meta: '"progressToken":5', tasks: true });
  assert.deepEqual(JSON.parse(lines[1] as string).params, {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {
        extensions: { "io.modelcontextprotocol/tasks": {} },
      },
      progressToken: 5,
    },
  });
});
