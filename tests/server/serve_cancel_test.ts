// serve() and cancelled calls: a run that ignores its signal is not waited
// for, and the loop keeps reading (pings, cancellations) whatever is queued.

import assert from "node:assert/strict";
import { type JsonValue, stringifyJson } from "../../codec/json.ts";
import {
  MAX_ABANDONED_CALLS,
  MAX_QUEUED_CALLS,
  MAX_QUEUED_CHARS,
  ReplayTransport,
  serve,
  SERVER_BUSY,
  type Tool,
} from "../../server/mod.ts";
import { OPENS_CAPTURE } from "../_lifetime.ts";

type Reply = {
  id: JsonValue;
  result?: { content?: { type: string; text: string }[] };
  error?: { code: number; message: string };
};

function request(id: JsonValue, method: string, params?: JsonValue): string {
  const message: Record<string, JsonValue> = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  const text = stringifyJson(message);
  assert.ok(text.ok);
  return text.value;
}

function call(id: number, name: string, args: Record<string, JsonValue> = {}): string {
  return request(id, "tools/call", { name, arguments: args });
}

function cancel(id: number): string {
  return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}`;
}

function tool(name: string, run: Tool["run"]): Tool {
  return { name, description: name, inputSchema: { type: "object" }, run };
}

const echo = tool("echo", (args) => String(args.text));

/** How long a test waits for an answer the fixed loop gives at once, before it fails. */
const ANSWER_DEADLINE_MS = 10_000;

/** Settles with `promise`, or rejects saying `what` was not seen within the deadline. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} within ${ANSWER_DEADLINE_MS} ms: serve() is wedged`)),
      ANSWER_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A tool whose runs ignore their signal: each waits until the test releases
 * it. `started(n)` settles when the n-th run (from 1) has started, `ended(n)`
 * when it has returned.
 */
function stubborn(name = "stuck") {
  const releases: (() => void)[] = [];
  const starts: PromiseWithResolvers<void>[] = [];
  const ends: PromiseWithResolvers<void>[] = [];
  const slot = (list: PromiseWithResolvers<void>[], n: number) =>
    list[n - 1] ??= Promise.withResolvers<void>();
  let runs = 0;
  return {
    tool: tool(name, async () => {
      const n = ++runs;
      const held = Promise.withResolvers<void>();
      releases[n - 1] = held.resolve;
      slot(starts, n).resolve();
      await held.promise;
      slot(ends, n).resolve();
      return `run ${n} ended`;
    }),
    started: (n: number) => slot(starts, n).promise,
    ended: (n: number) => slot(ends, n).promise,
    release: (n: number) => releases[n - 1]?.(),
    releaseAll: () => releases.forEach((release) => release()),
  };
}

// The file's first tool run opens capture's libc handle, kept for the process (tests/_lifetime.ts).
Deno.test(
  "serve() answers the next call after a cancelled call that ignores its signal",
  OPENS_CAPTURE,
  async () => {
    const stuck = stubborn();
    const transport = new ReplayTransport([call(1, "stuck")], { open: true });
    const done = serve({ name: "t", version: "1", tools: [stuck.tool, echo] }, transport);
    try {
      await stuck.started(1);
      transport.feed(cancel(1), call(2, "echo", { text: "next" }), request(3, "ping"));
      await within(transport.waitForWrites(2), "No answer to the call after the cancelled one");
      const replies = transport.messages() as Reply[];
      assert.deepEqual(replies.map((reply) => reply.id).sort(), [2, 3]);
      assert.deepEqual(replies.find((reply) => reply.id === 2)?.result?.content, [
        { type: "text", text: "next" },
      ]);
      // Its answer, when it comes at last, is dropped: a cancelled call is not answered.
      stuck.release(1);
      await stuck.ended(1);
      transport.feed(request(4, "ping"));
      await within(transport.waitForWrites(3), "No answer to the last ping");
    } finally {
      stuck.releaseAll();
      transport.finish();
      assert.deepEqual(await done, { kind: "end_of_input" });
    }
    assert.deepEqual((transport.messages() as Reply[]).map((reply) => reply.id).sort(), [2, 3, 4]);
  },
);

Deno.test("serve() reads pings and cancellations while MAX_QUEUED_CALLS calls wait", async () => {
  const stuck = stubborn();
  const transport = new ReplayTransport([call(1, "stuck")], { open: true });
  const done = serve({ name: "t", version: "1", tools: [stuck.tool, echo] }, transport);
  const queued = Array.from({ length: MAX_QUEUED_CALLS }, (_, index) => 100 + index);
  try {
    await stuck.started(1);
    transport.feed(...queued.map((id) => call(id, "echo", { text: `#${id}` })), request(2, "ping"));
    await within(transport.waitForWrites(1), "No answer to a ping behind a full queue");
    assert.deepEqual(transport.messages(), [{ jsonrpc: "2.0", id: 2, result: {} }]);
    // The cancellation is read too: the queue behind the stubborn run moves.
    transport.feed(cancel(1));
    await within(
      transport.waitForWrites(1 + queued.length),
      "No answers to the queued calls after the running one was cancelled",
    );
    const replies = transport.messages() as Reply[];
    assert.deepEqual(replies.slice(1).map((reply) => reply.id), queued);
    for (const reply of replies.slice(1)) {
      assert.deepEqual(reply.result?.content, [{ type: "text", text: `#${reply.id}` }]);
    }
  } finally {
    stuck.releaseAll();
    transport.finish();
    assert.deepEqual(await done, { kind: "end_of_input" });
  }
  assert.equal(transport.messages().length, 1 + queued.length);
});

Deno.test("serve() refuses a call past MAX_QUEUED_CALLS with SERVER_BUSY and queues again once calls start", async () => {
  const stuck = stubborn();
  const transport = new ReplayTransport([call(1, "stuck")], { open: true });
  const done = serve({ name: "t", version: "1", tools: [stuck.tool, echo] }, transport);
  const queued = Array.from({ length: MAX_QUEUED_CALLS }, (_, index) => 100 + index);
  try {
    await stuck.started(1);
    transport.feed(
      ...queued.map((id) => call(id, "echo", { text: `#${id}` })),
      call(2, "echo", { text: "one too many" }),
      request(3, "ping"),
    );
    await within(transport.waitForWrites(2), "No refusal of the call past the queue");
    const [refused, pong] = transport.messages() as Reply[];
    assert.equal(refused?.id, 2);
    assert.equal(refused?.error?.code, SERVER_BUSY);
    assert.match(refused?.error?.message ?? "", /MAX_QUEUED_CALLS.*send it again/);
    assert.deepEqual(pong, { jsonrpc: "2.0", id: 3, result: {} });
    stuck.release(1);
    await within(transport.waitForWrites(3 + queued.length), "No answers to the queued calls");
    transport.feed(call(4, "echo", { text: "again" }));
    await within(transport.waitForWrites(4 + queued.length), "No answer to the call sent again");
    const last = transport.messages().at(-1) as Reply;
    assert.deepEqual(last.result?.content, [{ type: "text", text: "again" }]);
  } finally {
    stuck.releaseAll();
    transport.finish();
    assert.deepEqual(await done, { kind: "end_of_input" });
  }
});

Deno.test("serve() refuses a call whose line would take the waiting calls past MAX_QUEUED_CHARS", async () => {
  const stuck = stubborn();
  const length = tool("length", (args) => String(String(args.text).length));
  const transport = new ReplayTransport([call(1, "stuck")], { open: true });
  const done = serve({ name: "t", version: "1", tools: [stuck.tool, length] }, transport);
  // Two calls of nearly half the bound each wait; a third of a tenth does not fit.
  const big = "x".repeat(MAX_QUEUED_CHARS / 2 - 100);
  try {
    await stuck.started(1);
    transport.feed(
      call(2, "length", { text: big }),
      call(3, "length", { text: big }),
      call(4, "length", { text: "x".repeat(MAX_QUEUED_CHARS / 10) }),
    );
    await within(transport.waitForWrites(1), "No refusal of the call past the queue's characters");
    const [refused] = transport.messages() as Reply[];
    assert.equal(refused?.id, 4);
    assert.equal(refused?.error?.code, SERVER_BUSY);
    assert.match(refused?.error?.message ?? "", /MAX_QUEUED_CHARS/);
    stuck.release(1);
    await within(transport.waitForWrites(4), "No answers to the waiting calls");
    const replies = transport.messages() as Reply[];
    assert.deepEqual(replies.map((reply) => reply.id), [4, 1, 2, 3]);
    assert.deepEqual(replies[2]?.result?.content, [{ type: "text", text: String(big.length) }]);
  } finally {
    stuck.releaseAll();
    transport.finish();
    assert.deepEqual(await done, { kind: "end_of_input" });
  }
});

Deno.test("serve() starts no call while MAX_ABANDONED_CALLS cancelled runs ignore their signal", async () => {
  const stuck = stubborn();
  const runs = Array.from({ length: MAX_ABANDONED_CALLS }, (_, index) => 1 + index);
  const transport = new ReplayTransport(
    [...runs.map((id) => call(id, "stuck")), call(50, "echo", { text: "waiting" })],
    { open: true },
  );
  const done = serve({ name: "t", version: "1", tools: [stuck.tool, echo] }, transport);
  try {
    // Each run is cancelled once it starts, and abandoned after its grace,
    // which starts the next.
    for (const id of runs) {
      await within(stuck.started(id), `Run ${id} did not start`);
      transport.feed(cancel(id));
    }
    // The call that waited behind them is refused; so is a new one; a ping is answered.
    await within(transport.waitForWrites(1), "No refusal of the waiting call");
    transport.feed(call(51, "echo", { text: "new" }), request(52, "ping"));
    await within(transport.waitForWrites(3), "No refusal of the new call");
    const replies = transport.messages() as Reply[];
    assert.deepEqual(replies.map((reply) => reply.id), [50, 51, 52]);
    for (const reply of replies.slice(0, 2)) {
      assert.equal(reply.error?.code, SERVER_BUSY);
      assert.match(reply.error?.message ?? "", /MAX_ABANDONED_CALLS.*try again later/);
    }
    // Once one returns (its answer dropped), a call sent again is served. The
    // loop counts it as returned a few turns after it returns, as a client
    // sending the call again would find: it asks at most twice.
    stuck.release(1);
    await stuck.ended(1);
    let served: Reply | undefined;
    for (let attempt = 0; attempt < 2 && served?.result === undefined; attempt++) {
      const id = 60 + attempt;
      transport.feed(call(id, "echo", { text: "served" }));
      await within(transport.waitForWrites(4 + attempt), `No answer to call ${id}`);
      served = transport.messages().at(-1) as Reply;
    }
    assert.deepEqual(served?.result?.content, [{ type: "text", text: "served" }]);
  } finally {
    stuck.releaseAll();
    transport.finish();
    assert.deepEqual(await done, { kind: "end_of_input" });
  }
  assert.ok(
    (transport.messages() as Reply[]).every((reply) =>
      typeof reply.id !== "number" || reply.id > 8
    ),
  );
});

Deno.test("serve() waits for a cancelled run that ends within its grace: calls stay one at a time", async () => {
  const order: string[] = [];
  const polite = tool("polite", async (_args, context) => {
    const aborted = Promise.withResolvers<void>();
    context.signal.addEventListener("abort", () => aborted.resolve(), { once: true });
    await aborted.promise;
    // Cleaning up after the cancellation takes a few turns.
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    order.push("polite ended");
    return "cleaned up";
  });
  const mark = tool("mark", () => (order.push("mark started"), "marked"));
  const transport = new ReplayTransport([call(1, "polite"), call(2, "mark")], { open: true });
  const done = serve({ name: "t", version: "1", tools: [polite, mark] }, transport);
  try {
    transport.feed(cancel(1));
    await within(transport.waitForWrites(1), "No answer to the call after the cancelled one");
  } finally {
    transport.finish();
    assert.deepEqual(await done, { kind: "end_of_input" });
  }
  assert.deepEqual(order, ["polite ended", "mark started"]);
  assert.deepEqual((transport.messages() as Reply[]).map((reply) => reply.id), [2]);
});

Deno.test("serve() answers every call a client pipelines past MAX_QUEUED_CALLS while calls keep starting", async () => {
  const count = MAX_QUEUED_CALLS * 4;
  const ids = Array.from({ length: count }, (_, index) => index + 1);
  const transport = new ReplayTransport(ids.map((id) => call(id, "echo", { text: `#${id}` })));
  const ended = await serve({ name: "t", version: "1", tools: [echo] }, transport);
  assert.deepEqual(ended, { kind: "end_of_input" });
  const replies = transport.messages() as Reply[];
  // Held back, not refused: every call ran, in order.
  assert.equal(replies.filter((reply) => reply.error !== undefined).length, 0);
  assert.deepEqual(replies.map((reply) => reply.id), ids);
});
