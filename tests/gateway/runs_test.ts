// A gateway session's runs, over a harness double whose programs end, ask or
// wait as the test says: which run a request id names, and how many runs may
// wait parked for a 2026-07-28 host.

import assert from "node:assert/strict";
import type { Id, Inbound } from "../../codec/jsonrpc.ts";
import type { Harness, RunReport } from "../../harness/mod.ts";
import { MAX_PARKED_RUNS, MAX_SESSION_RUNS } from "../../gateway/mod.ts";
import { GatewaySession } from "../../gateway/session.ts";
import type { Message } from "./_host.ts";

type ElicitAnswer = { action: "accept" | "decline" | "cancel" };

/** One program the double was asked to run, ended or made to ask by the test. */
type FakeRun = {
  code: string;
  signal: AbortSignal;
  end(value: string): void;
  /** Asks the host for a form, as a downstream server's elicitation would. */
  ask(): Promise<ElicitAnswer>;
  /** Reports a call's progress, as a downstream server's notification would. */
  progress(message: string): void;
};

function report(value: string): RunReport {
  return { outcome: { kind: "returned", value }, logs: [], calls: [] } as unknown as RunReport;
}

// A harness whose run() gives each program to the test; an aborted run ends at once.
function fakeHarness(): { harness: Harness; runs: FakeRun[] } {
  const runs: FakeRun[] = [];
  const run = (code: string, options: Record<string, unknown> = {}): Promise<RunReport> =>
    new Promise((resolve) => {
      const signal = options.signal as AbortSignal;
      const onElicit = options.onElicit as (
        request: Record<string, unknown>,
        context: { signal: AbortSignal },
      ) => Promise<ElicitAnswer>;
      const onProgress = options.onProgress as
        | ((
          call: number,
          progress: { kind: "progress"; progress: number; message: string },
        ) => void)
        | undefined;
      signal.addEventListener("abort", () => resolve(report("aborted")), { once: true });
      runs.push({
        code,
        signal,
        end: (value) => resolve(report(value)),
        ask: () =>
          onElicit({
            server: "fake",
            mode: "form",
            message: "May I?",
            requestedSchema: { type: "object", properties: {} },
          }, { signal: new AbortController().signal }),
        progress: (message) => onProgress?.(0, { kind: "progress", progress: 1, message }),
      });
    });
  return { harness: { surface: "", run } as unknown as Harness, runs };
}

// Lets every settled promise's callbacks run.
function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

function runProgram(id: Id, code: string, era: "legacy" | "modern" = "legacy"): Inbound {
  return {
    kind: "request",
    id,
    method: "tools/call",
    params: {
      name: "run_program",
      arguments: { code },
      ...(era === "modern" ? { _meta: MODERN_META } : {}),
    },
  };
}

Deno.test("a request id reused while its run goes on names the newer run", async (t) => {
  const { harness, runs } = fakeHarness();
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  try {
    session.handle({ kind: "request", id: 0, method: "initialize", params: { capabilities: {} } });
    session.handle(runProgram(5, "first"));
    session.handle(runProgram(5, "second"));
    assert.deepEqual(runs.map((run) => run.code), ["first", "second"]);
    await t.step("the older run is cancelled, as its id now names the newer", () => {
      assert.equal(runs[0]?.signal.aborted, true);
      assert.equal(runs[1]?.signal.aborted, false);
    });
    await t.step("once the older run has ended, cancelling the id cancels the newer", async () => {
      runs[0]?.end("first");
      await tick();
      session.handle({
        kind: "notification",
        method: "notifications/cancelled",
        params: { requestId: 5 },
      });
      assert.equal(runs[1]?.signal.aborted, true, "the newer run cannot be cancelled");
      await tick();
      assert.equal(session.running, 0);
      assert.equal(sent.some((message) => message.id === 5), false);
    });
  } finally {
    await session.close();
  }
});

Deno.test("2026-07-28 runs that ask nothing are not counted as parked", async () => {
  const { harness, runs } = fakeHarness();
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  try {
    const count = MAX_PARKED_RUNS + 4;
    for (let id = 0; id < count; id++) session.handle(runProgram(id, `run ${id}`, "modern"));
    assert.equal(runs.length, count, JSON.stringify(sent[0]));
    for (const run of runs) run.end("ran");
    await tick();
    assert.equal(sent.length, count);
    assert.ok(sent.every((message) => message.result?.isError === undefined));
  } finally {
    await session.close();
  }
});

Deno.test("a run past MAX_SESSION_RUNS under way is refused at once, in either era, until one ends", async () => {
  const { harness, runs } = fakeHarness();
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  try {
    session.handle({ kind: "request", id: 0, method: "initialize", params: { capabilities: {} } });
    for (let id = 1; id <= MAX_SESSION_RUNS; id++) session.handle(runProgram(id, `run ${id}`));
    session.handle(runProgram("legacy", "one more"));
    session.handle(runProgram("modern", "one more", "modern"));
    assert.equal(runs.length, MAX_SESSION_RUNS);
    for (const id of ["legacy", "modern"]) {
      const refused = sent.find((message) => message.id === id);
      assert.equal(refused?.result?.isError, true, JSON.stringify(refused));
      assert.match(refused?.result.content[0].text, /MAX_SESSION_RUNS\); wait for one to end/);
    }
    runs[0]?.end("done");
    await tick();
    session.handle(runProgram("after", "again"));
    assert.equal(runs.length, MAX_SESSION_RUNS + 1);
    assert.equal(runs.at(-1)?.code, "again");
  } finally {
    await session.close();
  }
});

Deno.test("a run parked past MAX_PARKED_RUNS gives up the one that has waited longest", async (t) => {
  const { harness, runs } = fakeHarness();
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  try {
    const asked: Promise<ElicitAnswer>[] = [];
    for (let id = 0; id <= MAX_PARKED_RUNS; id++) {
      session.handle(runProgram(id, `run ${id}`, "modern"));
      asked.push(runs[id]!.ask());
      await tick();
    }
    const parked = sent.filter((message) => message.result?.resultType === "input_required");
    assert.equal(parked.length, MAX_PARKED_RUNS + 1);
    await t.step("the oldest is let go: its question unanswered, its run cancelled", async () => {
      assert.deepEqual(await asked[0], { action: "cancel" });
      assert.equal(runs[0]?.signal.aborted, true);
      assert.deepEqual(
        runs.slice(1).map((run) => run.signal.aborted),
        runs.slice(1).map(() => false),
      );
    });
    await t.step("its host's retry is told why", () => {
      session.handle({
        kind: "request",
        id: "retry",
        method: "tools/call",
        params: {
          name: "run_program",
          arguments: { code: "run 0" },
          requestState: parked[0]?.result.requestState,
          inputResponses: {},
          _meta: MODERN_META,
        },
      });
      const retry = sent.find((message) => message.id === "retry");
      assert.equal(retry?.result.isError, true);
      assert.match(retry?.result.content[0].text, /MAX_PARKED_RUNS/);
    });
    await t.step("the newest still waits for its host, and goes on with its answer", async () => {
      const newest = parked[MAX_PARKED_RUNS]!.result;
      session.handle({
        kind: "request",
        id: "answer",
        method: "tools/call",
        params: {
          name: "run_program",
          arguments: { code: `run ${MAX_PARKED_RUNS}` },
          requestState: newest.requestState,
          inputResponses: { [Object.keys(newest.inputRequests)[0]!]: { action: "accept" } },
          _meta: MODERN_META,
        },
      });
      assert.deepEqual(await asked[MAX_PARKED_RUNS], { action: "accept" });
      runs[MAX_PARKED_RUNS]?.end("answered");
      await tick();
      const answer = sent.find((message) => message.id === "answer");
      assert.equal(answer?.result.structuredContent.value, "answered");
    });
  } finally {
    await session.close();
  }
});

Deno.test("a 2026-07-28 request for a method the gateway does not serve is told which it does", async (t) => {
  const { harness } = fakeHarness();
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  for (const method of ["resources/list", "prompts/list", "ping"]) {
    await t.step(method, () => {
      session.handle({ kind: "request", id: method, method, params: { _meta: MODERN_META } });
      const answer = sent.find((message) => message.id === method);
      assert.equal(answer?.error?.code, -32601);
      // resources/list is part of 2026-07-28; what the gateway lacks is the method, not the era.
      assert.doesNotMatch(answer?.error?.message ?? "", /not part of/);
      assert.match(answer?.error?.message ?? "", /server\/discover, tools\/list and tools\/call/);
    });
  }
  await session.close();
});

Deno.test("a 2026-07-28 run's progress follows the request that holds it, never an answered one", async (t) => {
  const { harness, runs } = fakeHarness();
  const sent: Message[] = [];
  const session = new GatewaySession(harness, { send: (message) => sent.push(message) });
  const progressOf = (token: string) =>
    sent.filter((message) =>
      message.method === "notifications/progress" && message.params.progressToken === token
    ).map((message) => message.params.message as string);
  try {
    session.handle({
      kind: "request",
      id: 1,
      method: "tools/call",
      params: {
        name: "run_program",
        arguments: { code: "asks" },
        _meta: { ...MODERN_META, progressToken: "first" },
      },
    });
    const run = runs[0]!;
    run.progress("before asking");
    const asked = run.ask();
    await tick();
    const parked = sent.find((message) => message.id === 1)?.result;
    assert.equal(parked?.resultType, "input_required");
    await t.step("the answered request's token hears nothing more", () => {
      run.progress("while parked");
      assert.deepEqual(progressOf("first").slice(1), ["call 1: 1: before asking"]);
    });
    await t.step("the retry's own token hears the rest", async () => {
      session.handle({
        kind: "request",
        id: 2,
        method: "tools/call",
        params: {
          name: "run_program",
          arguments: { code: "asks" },
          requestState: parked.requestState,
          inputResponses: { [Object.keys(parked.inputRequests)[0]!]: { action: "accept" } },
          _meta: { ...MODERN_META, progressToken: "retry" },
        },
      });
      assert.deepEqual(await asked, { action: "accept" });
      run.progress("after the answer");
      assert.deepEqual(progressOf("retry"), ["call 1: 1: after the answer"]);
      assert.equal(progressOf("first").length, 2);
      run.end("done");
      await tick();
      assert.equal(
        sent.find((message) => message.id === 2)?.result.structuredContent.value,
        "done",
      );
    });
  } finally {
    await session.close();
  }
});
