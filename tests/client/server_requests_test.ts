// What a server asks the client (elicitation, sampling, roots), through a real
// fixture server of the legacy era: capabilities declared only for what a
// handler or a setting was given, each request answered by its handler on
// the main thread, its answer checked, a malformed request refused, a handler
// that throws answered as a cancel that names the error, a flood bounded.

import assert from "node:assert/strict";
import { Census, type CensusOptions } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import type { ElicitationRequest } from "../../client/handlers.ts";
import { MAX_SERVER_REQUESTS_IN_FLIGHT } from "../../settings/limits.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const FORM = {
  message: "Who are you?",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name" },
      color: { type: "string", enum: ["red", "green"], default: "green" },
      age: { type: "integer", minimum: 0, default: 30 },
    },
    required: ["name"],
  },
};

async function withAsker(
  options: CensusOptions,
  body: (client: Client) => Promise<void>,
  roots?: { uri: string; name?: string }[],
): Promise<void> {
  const spec = fixture("asker", "asking_server.ts", roots === undefined ? {} : { roots });
  const census = Census.prepare([spec], options);
  const client = census.clients.get("asker") as Client;
  try {
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    await body(client);
  } finally {
    await census.retire();
  }
}

async function callText(client: Client, tool: string, args: Record<string, unknown> = {}) {
  const called = await client.callTool(tool, args as never);
  assert.ok(called.ok, JSON.stringify(called));
  const block = called.value.content[0];
  assert.ok(block?.type === "text");
  return JSON.parse(block.text);
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test("a client given no handler declares no capability", OPENS_CUSTODIAN, async () => {
  await withAsker({}, async (client) => {
    assert.deepEqual(await callText(client, "capabilities"), {});
  });
});

Deno.test("a client declares elicitation, sampling and roots only for what it was given", async (t) => {
  const elicit = () => Promise.resolve({ action: "cancel" as const });
  const sample = () => Promise.resolve({ role: "assistant" as const, content: {}, model: "m" });
  await t.step("onElicit alone: elicitation", async () => {
    await withAsker({ onElicit: elicit }, async (client) => {
      assert.deepEqual(await callText(client, "capabilities"), {
        elicitation: { form: {}, url: {} },
      });
    });
  });
  await t.step("onSample and the spec's roots: sampling and roots", async () => {
    await withAsker({ onSample: sample }, async (client) => {
      assert.deepEqual(await callText(client, "capabilities"), {
        sampling: { tools: {} },
        roots: { listChanged: false },
      });
    }, [{ uri: "file:///tmp/project" }]);
  });
});

Deno.test("an elicitation is answered by onElicit, its form's defaults filled in", async () => {
  const seen: ElicitationRequest[] = [];
  const onElicit = (request: ElicitationRequest) => {
    seen.push(request);
    return Promise.resolve({ action: "accept" as const, content: { name: "Ada" } });
  };
  await withAsker({ onElicit }, async (client) => {
    const answered = await callText(client, "elicit", { params: FORM });
    assert.deepEqual(answered, {
      result: { action: "accept", content: { name: "Ada", color: "green", age: 30 } },
    });
    assert.equal(seen[0]?.server, "asker");
    assert.equal(seen[0]?.mode, "form");
    assert.deepEqual(seen[0]?.requestedSchema, FORM.requestedSchema);
  });
});

Deno.test("accepted content that breaks the form's schema is sent as a cancel that says why", async () => {
  const onElicit = () => Promise.resolve({ action: "accept" as const, content: { age: -1 } });
  await withAsker({ onElicit }, async (client) => {
    const answered = await callText(client, "elicit", { params: FORM });
    assert.equal(answered.result.action, "cancel");
    assert.match(JSON.stringify(answered.result._meta), /schema/);
  });
});

Deno.test("an elicitation handler that throws is answered as a cancel that names the error", async () => {
  const onElicit = () => Promise.reject(new Error("no terminal here"));
  await withAsker({ onElicit }, async (client) => {
    const answered = await callText(client, "elicit", { params: FORM });
    assert.equal(answered.result.action, "cancel");
    assert.match(JSON.stringify(answered.result._meta), /no terminal here/);
  });
});

Deno.test("a malformed elicitation is refused with -32602 and never reaches onElicit", async () => {
  let asked = 0;
  const onElicit = () => {
    asked++;
    return Promise.resolve({ action: "decline" as const });
  };
  await withAsker({ onElicit }, async (client) => {
    const params = {
      message: "Pick",
      requestedSchema: { type: "object", properties: { a: { type: "object" } } },
    };
    const answered = await callText(client, "elicit", { params });
    assert.equal(answered.error?.code, -32602, JSON.stringify(answered));
    assert.equal(asked, 0);
  });
});

Deno.test("an elicitation of a client without onElicit is refused as method not found", async () => {
  await withAsker({}, async (client) => {
    const answered = await callText(client, "elicit", { params: FORM });
    assert.equal(answered.error?.code, -32601, JSON.stringify(answered));
  });
});

Deno.test("a server's elicitations reach onElicit one at a time", async () => {
  let open = 0;
  let most = 0;
  const onElicit = async () => {
    open++;
    most = Math.max(most, open);
    await new Promise((resolve) => setTimeout(resolve, 5));
    open--;
    return { action: "decline" as const };
  };
  await withAsker({ onElicit }, async (client) => {
    const answers = await callText(client, "elicit_many", { count: 4, params: FORM });
    assert.equal(answers.length, 4);
    assert.ok(
      answers.every((answer: { result?: { action: string } }) =>
        answer.result?.action === "decline"
      ),
    );
    assert.equal(most, 1);
  });
});

Deno.test("a flood of elicitations past the bound is refused at once", async () => {
  // The handler holds its first question: every other stays in flight, and
  // the ones past the bound are refused without waiting for it.
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const onElicit = async () => {
    await held;
    return { action: "decline" as const };
  };
  await withAsker({ onElicit }, async (client) => {
    const extra = 4;
    const answers: { error?: { code: number; message: string } }[] = await callText(
      client,
      "elicit_many",
      { count: MAX_SERVER_REQUESTS_IN_FLIGHT + extra, answerAfter: extra, params: FORM },
    );
    release();
    assert.equal(answers.length, extra);
    for (const answer of answers) {
      assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
      assert.match(answer.error?.message ?? "", /at most 16/);
    }
  });
});

Deno.test("a sampling request is answered by onSample with the server's params", async () => {
  const onSample = (request: { server: string; maxTokens: number }) =>
    Promise.resolve({
      role: "assistant" as const,
      content: { type: "text", text: `${request.server}:${request.maxTokens}` },
      model: "test-model",
      stopReason: "endTurn",
    });
  await withAsker({ onSample }, async (client) => {
    const params = {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 7,
      tools: [{ name: "t", inputSchema: { type: "object" } }],
    };
    const answered = await callText(client, "sample", { params });
    assert.deepEqual(answered.result, {
      role: "assistant",
      content: { type: "text", text: "asker:7" },
      model: "test-model",
      stopReason: "endTurn",
    });
  });
});

Deno.test("a sampling handler that throws refuses the request, naming the error", async () => {
  const onSample = () => Promise.reject(new Error("no model"));
  await withAsker({ onSample }, async (client) => {
    const params = { messages: [], maxTokens: 5 };
    const answered = await callText(client, "sample", { params });
    assert.equal(answered.error?.code, -1);
    assert.match(answered.error?.message, /no model/);
  });
});

Deno.test("a handler's answer JSON cannot carry is refused, naming where, and the client goes on", async (t) => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const odd: [string, () => unknown, RegExp][] = [
    ["NaN", () => NaN, /Cannot pass NaN at \$\.extra as JSON/],
    ["a function", () => () => 1, /Cannot pass a function at \$\.extra as JSON/],
    ["a cycle", () => cycle, /Cannot pass a cycle at \$\.extra\.self as JSON/],
  ];
  for (const [name, extra, said] of odd) {
    await t.step(`sampled content holding ${name}`, async () => {
      const onSample = () =>
        Promise.resolve({
          role: "assistant" as const,
          content: { type: "text", text: "x", extra: extra() },
          model: "m",
        });
      await withAsker({ onSample: onSample as never }, async (client) => {
        const answered = await callText(client, "sample", {
          params: { messages: [], maxTokens: 5 },
        });
        assert.equal(answered.error?.code, -32603);
        assert.match(answered.error?.message, said);
        assert.ok((await client.ping()).ok, "the client is still ready");
      });
    });
    await t.step(`elicited content holding ${name}`, async () => {
      const onElicit = () =>
        Promise.resolve({ action: "accept" as const, content: { name: "a", extra: extra() } });
      await withAsker({ onElicit: onElicit as never }, async (client) => {
        const answered = await callText(client, "elicit", { params: FORM });
        assert.equal(answered.result.action, "cancel");
        assert.match(JSON.stringify(answered.result._meta), said);
        assert.ok((await client.ping()).ok, "the client is still ready");
      });
    });
  }
  await t.step("an answer whose getter throws", async () => {
    const onSample = () =>
      Promise.resolve({
        role: "assistant",
        get content(): unknown {
          throw new Error("getter boom");
        },
        model: "m",
      });
    await withAsker({ onSample: onSample as never }, async (client) => {
      const answered = await callText(client, "sample", { params: { messages: [], maxTokens: 5 } });
      assert.match(answered.error?.message, /cannot be read: Error: getter boom/);
    });
  });
});

Deno.test("a handler that never answers lets its withdrawn question go, and the next one is asked", async () => {
  let asked = 0;
  const onElicit = (_request: unknown, context?: { signal: AbortSignal }) => {
    asked++;
    // The first never settles, whatever its signal says.
    if (asked === 1) return new Promise<never>(() => {});
    assert.ok(context?.signal.aborted === false);
    return Promise.resolve({ action: "decline" as const });
  };
  await withAsker({ onElicit: onElicit as never }, async (client) => {
    const first = callText(client, "elicit_withdrawable", { params: FORM });
    while (asked === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const second = callText(client, "elicit", { params: FORM });
    assert.deepEqual((await callText(client, "withdraw")).withdrawn, 1000);
    assert.deepEqual(await first, { responded: false });
    assert.equal((await second).result.action, "decline");
    assert.equal(asked, 2);
  });
});

Deno.test("a question asked during a call its caller gave up is withdrawn, and the next is asked", async () => {
  let asked = 0;
  let first: AbortSignal | undefined;
  const onElicit = (_request: unknown, context?: { signal: AbortSignal }) => {
    asked++;
    if (asked > 1) return Promise.resolve({ action: "decline" as const });
    // The first never settles, whatever its signal says.
    first = context?.signal;
    return new Promise<never>(() => {});
  };
  await withAsker({ onElicit: onElicit as never }, async (client) => {
    const given = await client.callTool("elicit", { params: FORM } as never, {
      signal: AbortSignal.timeout(SHORT_DEADLINE_MS),
    });
    assert.ok(!given.ok && given.error.kind === "call_timed_out" && given.error.aborted);
    assert.equal(first?.aborted, true, "the question of the call given up is withdrawn");
    assert.equal((await callText(client, "elicit", { params: FORM })).result.action, "decline");
    assert.equal(asked, 2);
  });
});

Deno.test("roots/list is answered with the spec's roots", async () => {
  await withAsker({}, async (client) => {
    const answered = await callText(client, "roots");
    assert.deepEqual(answered.result, { roots: [{ uri: "file:///tmp/project", name: "project" }] });
  }, [{ uri: "file:///tmp/project", name: "project" }]);
});

Deno.test("Census.prepare() refuses a root that is not a file: URI", () => {
  assert.throws(
    () => Census.prepare([], { roots: [{ uri: "https://example.com" }] }),
    /file: URI/,
  );
});

Deno.test("an elicitation the server cancels aborts onElicit's signal, and is not answered", async () => {
  const signals: AbortSignal[] = [];
  let ask: Client | undefined;
  await withAsker({
    onElicit: async (_request, context) => {
      assert.ok(context !== undefined);
      signals.push(context.signal);
      // The server withdraws this very question while it is being asked.
      const withdrawn = await callText(ask as Client, "withdraw");
      assert.equal(typeof withdrawn.withdrawn, "number");
      await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
      return { action: "accept", content: { name: "late" } };
    },
  }, async (client) => {
    ask = client;
    assert.deepEqual(await callText(client, "elicit_withdrawable", { params: FORM }), {
      responded: false,
    });
  });
  assert.equal(signals.length, 1);
  assert.ok(signals[0]?.aborted);
});

Deno.test("an elicitation withdrawn while it waits its turn is never asked", async () => {
  const asked: string[] = [];
  let ask: Client | undefined;
  await withAsker({
    onElicit: async (request) => {
      asked.push(request.message);
      // The second question waits behind this one; the server withdraws it.
      await callText(ask as Client, "withdraw");
      return { action: "decline" };
    },
  }, async (client) => {
    ask = client;
    const [first, second] = await Promise.all([
      callText(client, "elicit_withdrawable", { params: { ...FORM, message: "first" } }),
      callText(client, "elicit_withdrawable", { params: { ...FORM, message: "second" } }),
    ]);
    assert.deepEqual(first.response.result, { action: "decline" });
    assert.deepEqual(second, { responded: false });
  });
  assert.deepEqual(asked, ["first"]);
});

Deno.test("a client that retires aborts the signal of a question still being asked", async () => {
  let signal: AbortSignal | undefined;
  const asked = Promise.withResolvers<void>();
  const spec = fixture("asker", "asking_server.ts");
  const census = Census.prepare([spec], {
    onElicit: (_request, context) => {
      signal = context?.signal;
      asked.resolve();
      return new Promise((resolve) =>
        signal?.addEventListener("abort", () => resolve({ action: "cancel" }))
      );
    },
  });
  const client = census.clients.get("asker") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const called = client.callTool("elicit", { params: FORM } as never);
    await asked.promise;
    assert.equal(signal?.aborted, false);
    await census.retire();
    assert.equal(signal?.aborted, true);
    assert.equal((await called).ok, false);
  } finally {
    await census.retire();
  }
});

Deno.test("a second request under an id still being answered is refused, the first answered", async () => {
  const answer = Promise.withResolvers<void>();
  await withAsker({
    onElicit: async () => {
      await answer.promise;
      return { action: "decline" };
    },
  }, async (client) => {
    const called = callText(client, "elicit_same_id", { params: FORM });
    // The refusal comes first; the handler answers only after it.
    setTimeout(() => answer.resolve(), 100);
    const [refused, answered] = await called;
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.message, /is already being answered/);
    assert.deepEqual(answered.result, { action: "decline" });
  });
});

// A call's deadline counts the server's time, not the time this side takes
// to answer the server's question (a person, a model): held while it is open.
const SHORT_DEADLINE_MS = 300;
const SLOW_ANSWER_MS = 900;

Deno.test("a call's deadline is held while its server's question is answered", async () => {
  const onElicit = async () => {
    await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
    return { action: "accept" as const, content: { name: "Ada" } };
  };
  await withAsker({ onElicit }, async (client) => {
    const called = await client.callTool("elicit", { params: FORM } as never, {
      timeoutMs: SHORT_DEADLINE_MS,
    });
    assert.ok(called.ok, JSON.stringify(called));
    const block = called.value.content[0];
    assert.ok(block?.type === "text");
    assert.equal(JSON.parse(block.text).result.content.name, "Ada");
  });
});

Deno.test("once the question is answered, a call's deadline counts again", async () => {
  let answeredAt = Infinity;
  const onElicit = async () => {
    await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
    answeredAt = performance.now();
    return { action: "decline" as const };
  };
  await withAsker({ onElicit }, async (client) => {
    // The server waits for a second answer that never comes: the call ends at its deadline.
    const called = await client.callTool(
      "elicit_many",
      { params: FORM, count: 1, answerAfter: 2 } as never,
      { timeoutMs: SHORT_DEADLINE_MS },
    );
    assert.ok(!called.ok && called.error.kind === "call_timed_out", JSON.stringify(called));
    assert.equal(called.error.aborted, false);
    assert.ok(performance.now() > answeredAt, "the call ended before the question was answered");
  });
});

Deno.test("a caller's signal ends a call while its server's question is being answered", async () => {
  const answered = Promise.withResolvers<void>();
  let answeredFirst = false;
  const onElicit = async () => {
    await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
    answeredFirst = true;
    answered.resolve();
    return { action: "decline" as const };
  };
  await withAsker({ onElicit }, async (client) => {
    const called = await client.callTool("elicit", { params: FORM } as never, {
      signal: AbortSignal.timeout(SHORT_DEADLINE_MS),
    });
    assert.equal(answeredFirst, false, "the call waited for the question's answer");
    assert.ok(!called.ok && called.error.kind === "call_timed_out", JSON.stringify(called));
    assert.equal(called.error.aborted, true);
    await answered.promise;
  });
});
