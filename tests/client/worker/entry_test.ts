import assert from "node:assert/strict";
import { decodeFromWorker } from "../../../client/thread/from_worker.ts";
import type { FromWorker } from "../../../client/thread/from_worker.ts";

// The worker entry as the client starts it (the bundle), driven by hand: no
// server is started, so only how it answers what it cannot run is seen here.
function entry(): { worker: Worker; next: () => Promise<FromWorker[]> } {
  const worker = new Worker(new URL("../../../_generated/worker_bundle.js", import.meta.url), {
    type: "module",
  });
  const queue: FromWorker[][] = [];
  const waiting: ((events: FromWorker[]) => void)[] = [];
  let order = 0;
  worker.onmessage = (event: MessageEvent<unknown>) => {
    // Each message carries its place in order; with no server, all are posted.
    const sent = event.data as { order: number; body: unknown };
    assert.equal(sent.order, order++);
    const decoded = decodeFromWorker(sent.body);
    assert.ok(decoded.ok, JSON.stringify(event.data));
    const resolve = waiting.shift();
    if (resolve === undefined) queue.push(decoded.value);
    else resolve(decoded.value);
  };
  const next = () => {
    const ready = queue.shift();
    return ready === undefined
      ? new Promise<FromWorker[]>((r) => waiting.push(r))
      : Promise.resolve(ready);
  };
  return { worker, next };
}

Deno.test("the worker answers every request it cannot run, whichever way it came", async () => {
  const { worker, next } = entry();
  try {
    const bytes = new TextEncoder().encode('{"name":"x","arguments":{}}');
    worker.postMessage({
      order: 0,
      body: { kind: "request", ticket: 1, timeoutMs: 500, method: "tools/call", params: bytes },
    });
    const [notStarted] = await next();
    assert.ok(notStarted?.kind === "settled" && notStarted.ticket === 1 && !notStarted.outcome.ok);
    assert.equal(notStarted.outcome.error.kind, "unavailable");

    worker.postMessage({
      order: 1,
      body: { kind: "request", ticket: 2, timeoutMs: 500, method: "tools/call", params: "{}" },
    });
    const [malformed] = await next();
    assert.ok(malformed?.kind === "settled" && malformed.ticket === 2 && !malformed.outcome.ok);
    assert.ok(
      malformed.outcome.error.kind === "unavailable" &&
        malformed.outcome.error.cause === "worker_lost",
    );
    assert.match(malformed.outcome.error.message, /not the bytes of one compact JSON object/);

    worker.postMessage("2\n3|500|nonsense|");
    const [badLine] = await next();
    assert.ok(badLine?.kind === "settled" && badLine.ticket === 3 && !badLine.outcome.ok);
    assert.match(badLine.outcome.error.message, /Cannot decode request 0/);

    worker.postMessage({ order: 3, body: { kind: "retire", timeoutMs: 100 } });
    const [retired] = await next();
    assert.deepEqual(retired, {
      kind: "retired",
      outcome: { ok: true, value: { kind: "no_resource" } },
    });
  } finally {
    worker.terminate();
  }
});

Deno.test("the worker handles what the main thread sends in its order, whichever arrives first", async () => {
  const { worker, next } = entry();
  try {
    // The retire (2) and a batch (1) arrive before the request they follow (0).
    worker.postMessage({ order: 2, body: { kind: "retire", timeoutMs: 100 } });
    worker.postMessage("1\n5|500|nonsense|");
    worker.postMessage({
      order: 0,
      body: {
        kind: "request",
        ticket: 4,
        timeoutMs: 500,
        method: "tools/call",
        params: new TextEncoder().encode("{}"),
      },
    });
    const seen: FromWorker[] = [];
    while (seen.length < 3) seen.push(...await next());
    assert.deepEqual(
      seen.map((event) => event.kind === "settled" ? `settled ${event.ticket}` : event.kind),
      ["settled 4", "settled 5", "retired"],
    );
  } finally {
    worker.terminate();
  }
});
