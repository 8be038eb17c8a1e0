import assert from "node:assert/strict";
import { WorkerLink } from "../../../client/thread/link.ts";
import type { FromWorker } from "../../../client/thread/from_worker.ts";
import { encodeCancel } from "../../../client/thread/to_worker.ts";

type Fake = {
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: unknown;
  onmessageerror: unknown;
  posted: unknown[];
  terminated: boolean;
  postMessage(data: unknown): void;
  terminate(): void;
};

function fake(): Fake {
  return {
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    posted: [],
    terminated: false,
    postMessage(data) {
      this.posted.push(data);
    },
    terminate() {
      this.terminated = true;
    },
  };
}

Deno.test("the main thread's end handles what the worker sent in its order, and numbers what it sends", () => {
  const worker = fake();
  const seen: string[] = [];
  const lost: string[] = [];
  const link = new WorkerLink(worker as unknown as Worker, "echo", {
    event: (event: FromWorker) =>
      seen.push(event.kind === "answers" ? `answers ${event.tickets}` : event.kind),
    lost: (message) => lost.push(message),
  });
  const receive = (data: unknown) => worker.onmessage?.({ data });
  receive({ order: 1, body: [{ kind: "spawned", pid: 12 }] });
  receive({ order: 2, body: [{ kind: "exited", pid: 12, code: 0, signal: null }] });
  assert.deepEqual(seen, [], "nothing before the first");
  receive('0\n7 9\n{"jsonrpc":"2.0","id":9,"result":{}}');
  assert.deepEqual(seen, ["answers 7", "spawned", "exited"]);
  assert.deepEqual(lost, []);

  link.post(encodeCancel(7, true));
  assert.deepEqual(worker.posted, [{
    order: 0,
    body: { kind: "cancel", ticket: 7, timedOut: true },
  }]);

  receive({ order: 1, body: [] });
  assert.equal(lost.length, 1);
  assert.match(lost[0] ?? "", /out of order/);
  assert.ok(worker.terminated);
  assert.ok(link.closed);
});
