// What a server asks during a program's call: the run's own handlers answer
// it when the request is known to be that run's (a 2026-07-28 input_required
// round always is; a legacy request when only that run's calls are in
// flight), boot's answer the rest; the call waits within the run's deadline;
// the run's report counts what each call asked, and the tool is marked on
// the surface and in describe from the next rendering.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import type { ElicitationRequest } from "../../client/handlers.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const FORM = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

const ELICIT_PROGRAM = 'import { elicit } from "./mcp/asker.ts";\n' +
  `export default (await elicit({ params: ${JSON.stringify(FORM)} })).text;`;

function asker() {
  return fixture("asker", "asking_server.ts");
}

function modern() {
  return fixture("mrtr", "input_required_server.ts", {
    era: "modern",
    roots: [{ uri: "file:///tmp/work", name: "work" }],
  });
}

Deno.test(
  "a run's onElicit answers a legacy server's elicitation during the run's call",
  OPENS_CUSTODIAN,
  async () => {
    const booted: ElicitationRequest[] = [];
    const harness = await boot([asker()], {
      onElicit: (request) => {
        booted.push(request);
        return Promise.resolve({ action: "decline" });
      },
    });
    try {
      const asked: ElicitationRequest[] = [];
      const report = await harness.run(ELICIT_PROGRAM, {
        onElicit: (request) => {
          asked.push(request);
          return Promise.resolve({ action: "accept", content: { name: "Ada" } });
        },
      });
      assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
      const value = report.outcome.kind === "returned" ? String(report.outcome.value) : "";
      assert.deepEqual(JSON.parse(value), {
        result: { action: "accept", content: { name: "Ada" } },
      });
      assert.equal(booted.length, 0);
      assert.equal(asked.length, 1);
      // The legacy request names no tool; the one call in flight does.
      assert.equal(asked[0]?.tool, "elicit");
      assert.deepEqual(report.calls[0]?.asked, { elicitations: 1, samplings: 0 });
    } finally {
      await harness.retire();
    }
  },
);

Deno.test("boot's onElicit answers what a server asks during harness.call()", async () => {
  const booted: ElicitationRequest[] = [];
  const harness = await boot([asker()], {
    onElicit: (request) => {
      booted.push(request);
      return Promise.resolve({ action: "decline" });
    },
  });
  try {
    const called = await harness.call("asker", "elicit", { params: FORM });
    assert.ok(called.ok, JSON.stringify(called));
    assert.equal(booted.length, 1);
    assert.equal(booted[0]?.tool, "elicit");
  } finally {
    await harness.retire();
  }
});

Deno.test("a run's handlers answer a 2026-07-28 input_required call's rounds", async () => {
  const booted: string[] = [];
  const harness = await boot([modern()], {
    onElicit: () => {
      booted.push("elicit");
      return Promise.resolve({ action: "decline" });
    },
    onSample: () => {
      booted.push("sample");
      return Promise.resolve({ role: "assistant", content: { type: "text", text: "" }, model: "" });
    },
  });
  try {
    const report = await harness.run(
      'import { ask } from "./mcp/mrtr.ts";\nexport default (await ask({})).text;',
      {
        onElicit: () => Promise.resolve({ action: "accept", content: { name: "Ada" } }),
        onSample: () =>
          Promise.resolve({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
      },
    );
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    const rounds = JSON.parse(
      report.outcome.kind === "returned" ? String(report.outcome.value) : "",
    );
    assert.deepEqual(rounds[1].inputResponses.who, {
      action: "accept",
      content: { name: "Ada", tone: "warm" },
    });
    assert.equal(rounds[2].inputResponses.say.model, "m");
    assert.deepEqual(booted, []);
    assert.deepEqual(report.calls[0]?.asked, { elicitations: 1, samplings: 1 });
  } finally {
    await harness.retire();
  }
});

Deno.test("a call waiting for a run's onElicit is bounded by the run's deadline", async () => {
  const harness = await boot([asker()], {
    onElicit: () => Promise.resolve({ action: "decline" }),
  });
  try {
    const asked = Promise.withResolvers<void>();
    const report = await harness.run(ELICIT_PROGRAM, {
      timeoutMs: 3_000,
      typeCheck: false,
      // Never answers: only the run's end settles the question.
      onElicit: () => {
        asked.resolve();
        return new Promise(() => {});
      },
    });
    await asked.promise;
    assert.ok(report.outcome.kind === "killed" && report.outcome.reason === "timeout");
    assert.deepEqual(report.calls[0]?.asked, { elicitations: 1, samplings: 0 });
    assert.ok(!report.calls[0]?.outcome.ok);
  } finally {
    await harness.retire();
  }
});

Deno.test("a tool seen to ask is marked on the surface and in describe after the run", async () => {
  const harness = await boot([asker()], {
    onElicit: () => Promise.resolve({ action: "decline" }),
  });
  try {
    const line = (surface: string) =>
      surface.split("\n").find((each) => each.startsWith("elicit("));
    const before = harness.surface;
    assert.doesNotMatch(line(before) ?? "", /may ask the user/);
    const described = harness.describe("asker", "elicit");
    assert.ok(described.ok && !described.value.includes("May ask the user"));
    const report = await harness.run(ELICIT_PROGRAM, { typeCheck: false });
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    assert.match(line(harness.surface) ?? "", /\[may ask the user\]$/);
    const after = harness.describe("asker", "elicit");
    assert.ok(after.ok && after.value.split("\n")[1]?.startsWith("// May ask the user"));
    // Only the tool that asked is marked; the rest of the surface is as it was.
    const unmarked = harness.surface.replace(/ {1,2}(?:\/\/ )?\[may ask the user\]$/m, "");
    assert.equal(unmarked, before);
  } finally {
    await harness.retire();
  }
});

Deno.test("a run's onSample answers a legacy server's sampling request during its call", async () => {
  const harness = await boot([asker()], {
    onSample: () => Promise.reject(new Error("boot's handler is not this run's")),
  });
  try {
    const params = {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 5,
    };
    const report = await harness.run(
      'import { sample } from "./mcp/asker.ts";\n' +
        `export default (await sample({ params: ${JSON.stringify(params)} })).text;`,
      {
        onSample: () =>
          Promise.resolve({ role: "assistant", content: { type: "text", text: "yo" }, model: "m" }),
      },
    );
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    const value = report.outcome.kind === "returned" ? String(report.outcome.value) : "";
    assert.equal(JSON.parse(value).result.model, "m");
    assert.deepEqual(report.calls[0]?.asked, { elicitations: 0, samplings: 1 });
  } finally {
    await harness.retire();
  }
});

Deno.test("a run's onElicit is not asked of a server booted without onElicit", async () => {
  const harness = await boot([asker()]);
  try {
    const asked: ElicitationRequest[] = [];
    const report = await harness.run(
      'import { capabilities, elicit } from "./mcp/asker.ts";\n' +
        `const answer = (await elicit({ params: ${JSON.stringify(FORM)} })).text;\n` +
        "export default { declared: (await capabilities({})).text, answer };",
      {
        onElicit: (request) => {
          asked.push(request);
          return Promise.resolve({ action: "accept", content: {} });
        },
      },
    );
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    const value = report.outcome.kind === "returned"
      ? report.outcome.value as { declared: string; answer: string }
      : { declared: "", answer: "" };
    // Nothing was declared at initialize, so the server's request is refused.
    assert.deepEqual(JSON.parse(value.declared), {});
    assert.ok("error" in JSON.parse(value.answer), value.answer);
    assert.deepEqual(asked, []);
  } finally {
    await harness.retire();
  }
});

Deno.test("a run's onElicit answers the rounds of a program's prompt and read of a 2026-07-28 server", async () => {
  const booted: ElicitationRequest[] = [];
  const reads = fixture("reads", "input_required_reads.ts", {
    era: "modern",
    roots: [{ uri: "file:///tmp/work", name: "work" }],
  });
  const harness = await boot([reads], {
    onElicit: (request) => {
      booted.push(request);
      return Promise.resolve({ action: "decline" });
    },
  });
  try {
    const program = 'import { getPrompt, readResource } from "./tools.ts";\n' +
      'const prompt = await getPrompt("reads", "greet");\n' +
      'const read = await readResource("reads", "file:///secret");\n' +
      "const text = (value: object) => (value as { text: string }).text;\n" +
      "export default { prompt: text(prompt.messages[0].content), read: text(read.contents[0]) };";
    const report = await harness.run(program, {
      onElicit: () => Promise.resolve({ action: "accept", content: { name: "Ada" } }),
    });
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    const value = report.outcome.kind === "returned"
      ? report.outcome.value as { prompt: string; read: string }
      : { prompt: "", read: "" };
    assert.deepEqual(JSON.parse(value.prompt).inputResponses, {
      who: { action: "accept", content: { name: "Ada" } },
    });
    assert.deepEqual(JSON.parse(value.read).inputResponses, {
      where: { roots: [{ uri: "file:///tmp/work", name: "work" }] },
    });
    assert.deepEqual(booted, []);
    assert.deepEqual(report.calls.map((call) => [call.tool, call.asked]), [
      ["prompts/get", { elicitations: 1, samplings: 0 }],
      ["resources/read", undefined],
    ]);
  } finally {
    await harness.retire();
  }
});

Deno.test("a legacy server's question during a program's read is boot's while the harness's own read or get of it is in flight", async (t) => {
  const booted: ElicitationRequest[] = [];
  const harness = await boot([fixture("legacy", "legacy_asking_reads.ts")], {
    onElicit: (request) => {
      booted.push(request);
      return Promise.resolve({ action: "decline" });
    },
  });
  try {
    // The harness's own request, never answered: the question could be its.
    const cases: [string, (signal: AbortSignal) => Promise<unknown>][] = [
      ["read", (signal) => harness.readResource("legacy", "wait://1", { signal })],
      ["get", (signal) => harness.getPrompt("legacy", "wait", {}, { signal })],
    ];
    for (const [name, own] of cases) {
      await t.step(name, async () => {
        booted.length = 0;
        const stop = new AbortController();
        const pending = own(stop.signal);
        const asked: ElicitationRequest[] = [];
        try {
          const report = await harness.run(
            'import { readResource } from "./tools.ts";\n' +
              'export default (await readResource("legacy", "ask://1")).text;',
            {
              onElicit: (request) => {
                asked.push(request);
                return Promise.resolve({ action: "accept", content: { name: "Ada" } });
              },
            },
          );
          assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
          const value = report.outcome.kind === "returned" ? String(report.outcome.value) : "";
          assert.deepEqual(JSON.parse(value).result, { action: "decline" });
          assert.equal(asked.length, 0);
          assert.equal(booted.length, 1);
          assert.equal(report.calls[0]?.asked, undefined);
        } finally {
          stop.abort();
          await pending;
        }
      });
    }
  } finally {
    await harness.retire();
  }
});

Deno.test("a run's onElicit answers a legacy server's question during the run's read and get of a prompt", async () => {
  const booted: ElicitationRequest[] = [];
  const harness = await boot([fixture("legacy", "legacy_asking_reads.ts")], {
    onElicit: (request) => {
      booted.push(request);
      return Promise.resolve({ action: "decline" });
    },
  });
  try {
    const report = await harness.run(
      'import { getPrompt, readResource } from "./tools.ts";\n' +
        'const read = (await readResource("legacy", "ask://1")).text;\n' +
        'const got = (await getPrompt("legacy", "ask")).messages[0]!.content;\n' +
        'export default [read, got.type === "text" ? got.text : ""];',
      { onElicit: () => Promise.resolve({ action: "accept", content: { name: "Ada" } }) },
    );
    assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
    const texts = report.outcome.kind === "returned" ? report.outcome.value as string[] : [];
    for (const text of texts) {
      assert.deepEqual(JSON.parse(text).result, { action: "accept", content: { name: "Ada" } });
    }
    assert.equal(texts.length, 2);
    assert.deepEqual(booted, []);
    assert.deepEqual(report.calls.map((call) => [call.tool, call.asked]), [
      ["resources/read", { elicitations: 1, samplings: 0 }],
      ["prompts/get", { elicitations: 1, samplings: 0 }],
    ]);
  } finally {
    await harness.retire();
  }
});
