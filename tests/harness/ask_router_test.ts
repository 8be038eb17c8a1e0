// The router of what servers ask (harness/_asking.ts) in-process: the client
// asks a handler from within its call's continuation, as here `send` does;
// which handler answers, which call is counted, and what a run's end does to
// a question still pending.

import assert from "node:assert/strict";
import { AskRouter } from "../../harness/_asking.ts";
import type { ElicitationRequest } from "../../client/handlers.ts";
import type { CallContext, ServerAskHandler } from "../../runner/host/run.ts";

const QUESTION: ElicitationRequest = {
  server: "s",
  mode: "form",
  message: "Name?",
  requestedSchema: { type: "object" },
};

function runContext(id: number, answer: string, asked: string[] = []): CallContext {
  return {
    run: { id, programName: "program.ts", source: "" },
    onElicit: (() => Promise.resolve({ action: answer })) as ServerAskHandler,
    asked: (kind) => asked.push(kind),
  };
}

function router(seen: string[] = []) {
  return new AskRouter(
    { onElicit: () => Promise.resolve({ action: "decline" }) },
    (server, tool) => seen.push(`${server}/${tool}`),
  );
}

Deno.test("AskRouter gives the census only the handlers boot was given", () => {
  const handlers = router().handlers();
  assert.equal(typeof handlers.onElicit, "function");
  assert.equal(handlers.onSample, undefined);
});

Deno.test("AskRouter answers a request naming its tool by the run of the call it arrives in", async () => {
  const asking = router();
  const onElicit = asking.handlers().onElicit!;
  // Two runs call the same tool at once: each round is its own call's.
  const ask = (context: CallContext) =>
    asking.within("s", "t", context, async () => {
      await Promise.resolve();
      return (await onElicit({ ...QUESTION, tool: "t" })).action;
    });
  const [first, second] = await Promise.all([
    ask(runContext(1, "accept")),
    ask(runContext(2, "cancel")),
  ]);
  assert.deepEqual([first, second], ["accept", "cancel"]);
});

Deno.test("AskRouter gives a legacy request to the one call in flight, and counts it", async () => {
  const asked: string[] = [];
  const seen: string[] = [];
  const asking = router(seen);
  const onElicit = asking.handlers().onElicit!;
  let answered: string | undefined;
  let tool: string | undefined;
  const context = runContext(1, "accept", asked);
  const wrapped = context.onElicit as unknown as (r: ElicitationRequest) => Promise<unknown>;
  context.onElicit = ((request: ElicitationRequest) => {
    tool = request.tool;
    return wrapped(request);
  }) as ServerAskHandler;
  await asking.within("s", "t", context, async () => {
    // Arrives outside the call's context, as a worker's message does.
    answered = await new Promise<string>((resolve) =>
      setTimeout(() => onElicit(QUESTION).then((answer) => resolve(answer.action)), 0)
    );
  });
  assert.equal(answered, "accept");
  assert.equal(tool, "t");
  assert.deepEqual(asked, ["elicitation"]);
  assert.deepEqual(seen, ["s/t"]);
});

Deno.test("AskRouter gives boot a legacy request while calls of two runs are in flight", async () => {
  const asking = router();
  const onElicit = asking.handlers().onElicit!;
  const release = Promise.withResolvers<void>();
  const first = asking.within("s", "a", runContext(1, "accept"), () => release.promise);
  const second = asking.within("s", "b", runContext(2, "accept"), () => release.promise);
  const answer = await new Promise<string>((resolve) =>
    setTimeout(() => onElicit(QUESTION).then((given) => resolve(given.action)), 0)
  );
  release.resolve();
  await Promise.all([first, second]);
  assert.equal(answer, "decline");
});

Deno.test("AskRouter settles a run's pending question as cancel when the run ends", async () => {
  const asking = router();
  const onElicit = asking.handlers().onElicit!;
  const end = new AbortController();
  const asked = Promise.withResolvers<void>();
  const context: CallContext = {
    ...runContext(1, "accept"),
    signal: end.signal,
    onElicit: (() => {
      asked.resolve();
      return new Promise(() => {});
    }) as ServerAskHandler,
  };
  const answer = asking.within("s", "t", context, () => onElicit({ ...QUESTION, tool: "t" }));
  await asked.promise;
  end.abort();
  assert.deepEqual(await answer, { action: "cancel" });
});

Deno.test("AskRouter gives a legacy request to the run whose calls alone are in flight", async () => {
  const asked: string[] = [];
  const seen: string[] = [];
  const asking = router(seen);
  const onElicit = asking.handlers().onElicit!;
  const release = Promise.withResolvers<void>();
  const run = runContext(1, "accept", asked);
  const first = asking.within("s", "a", run, () => release.promise);
  const second = asking.within("s", "b", { ...run }, () => release.promise);
  const answer = await new Promise<string>((resolve) =>
    setTimeout(() => onElicit(QUESTION).then((given) => resolve(given.action)), 0)
  );
  release.resolve();
  await Promise.all([first, second]);
  assert.equal(answer, "accept");
  // Which of the two calls asked is not known: neither is counted, no tool marked.
  assert.deepEqual(asked, []);
  assert.deepEqual(seen, []);
});
