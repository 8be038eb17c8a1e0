// A 2026-07-28 server asks for input by its results (`input_required`): each
// input request is answered by the same handlers as a legacy server's
// request, the call made again with `inputResponses` and the echoed
// `requestState` under a new JSON-RPC id, and the rounds are capped.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import type { ElicitationRequest } from "../../client/handlers.ts";
import { MAX_INPUT_ROUNDS } from "../../settings/limits.ts";
import { fixture } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

function spec() {
  return fixture("mrtr", "input_required_server.ts", {
    era: "modern",
    roots: [{ uri: "file:///tmp/work", name: "work" }],
  });
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "an input_required result is answered by the handlers and the call made again",
  OPENS_CUSTODIAN,
  async () => {
    const elicited: ElicitationRequest[] = [];
    const census = Census.prepare([spec()], {
      onElicit: (request) => {
        elicited.push(request);
        return Promise.resolve({ action: "accept", content: { name: "Ada" } });
      },
      onSample: () =>
        Promise.resolve({
          role: "assistant",
          content: { type: "text", text: "hello" },
          model: "m",
        }),
    });
    const client = census.clients.get("mrtr") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const called = await client.callTool("ask", {});
      assert.ok(called.ok, JSON.stringify(called));
      const block = called.value.content[0];
      assert.ok(block?.type === "text");
      const rounds = JSON.parse(block.text);
      assert.equal(rounds.length, 3);
      // A new request each round, and the state echoed.
      assert.equal(new Set(rounds.map((round: { id: number }) => round.id)).size, 3);
      assert.deepEqual(rounds.map((round: { requestState?: string }) => round.requestState), [
        undefined,
        "s1",
        "s2",
      ]);
      assert.deepEqual(rounds[1].inputResponses, {
        who: { action: "accept", content: { name: "Ada", tone: "warm" } },
        where: { roots: [{ uri: "file:///tmp/work", name: "work" }] },
      });
      assert.deepEqual(rounds[2].inputResponses, {
        say: { role: "assistant", content: { type: "text", text: "hello" }, model: "m" },
      });
      assert.deepEqual(rounds[0].capabilities, {
        elicitation: { form: {}, url: {} },
        sampling: { tools: {} },
        roots: { listChanged: false },
      });
      assert.equal(elicited[0]?.tool, "ask");
    } finally {
      await census.retire();
    }
  },
);

Deno.test("a server that asks for input past the cap fails the call, saying so", async () => {
  const census = Census.prepare([spec()]);
  const client = census.clients.get("mrtr") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("forever", {});
    assert.ok(!called.ok && called.error.kind === "result_malformed", JSON.stringify(called));
    assert.match(called.error.message, new RegExp(`after ${MAX_INPUT_ROUNDS} rounds`));
  } finally {
    await census.retire();
  }
});

Deno.test("the handlers' time between rounds is not counted against the call's deadline", async () => {
  const census = Census.prepare([spec()], {
    // A person who takes longer than the whole deadline to answer.
    onElicit: () =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ action: "accept", content: { name: "Ada" } }), 600)
      ),
    onSample: () =>
      Promise.resolve({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
  });
  const client = census.clients.get("mrtr") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("ask", {}, { timeoutMs: 400 });
    assert.ok(called.ok, JSON.stringify(called));
  } finally {
    await census.retire();
  }
});

Deno.test("the caller's signal withdraws the question of an input_required round", async () => {
  const caller = new AbortController();
  let withdrawn: AbortSignal | undefined;
  const census = Census.prepare([spec()], {
    onElicit: (_request, context) => {
      withdrawn = context?.signal;
      const asked = new Promise<{ action: "cancel" }>((resolve) =>
        withdrawn?.addEventListener("abort", () => resolve({ action: "cancel" }))
      );
      caller.abort();
      return asked;
    },
  });
  const client = census.clients.get("mrtr") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("ask", {}, { signal: caller.signal });
    assert.equal(withdrawn?.aborted, true);
    assert.ok(!called.ok && called.error.kind === "call_timed_out" && called.error.aborted);
  } finally {
    await census.retire();
  }
});

Deno.test("a handler that never answers lets its input_required call settle: on the caller's signal, and at retirement", async (t) => {
  const forever = () => new Promise<never>(() => {});
  await t.step("the caller's signal", async () => {
    const census = Census.prepare([spec()], { onElicit: forever });
    const client = census.clients.get("mrtr") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const called = await client.callTool("ask", {}, { signal: AbortSignal.timeout(300) });
      assert.ok(!called.ok && called.error.kind === "call_timed_out", JSON.stringify(called));
      assert.equal(called.error.aborted, true);
      // Said of the call, not of what was left of it for its next round.
      assert.equal(called.error.timeoutMs, 10_000);
    } finally {
      await census.retire();
    }
  });
  await t.step("retirement", async () => {
    let asked = Promise.withResolvers<void>();
    const census = Census.prepare([spec()], {
      onElicit: () => {
        asked.resolve();
        return forever();
      },
    });
    const client = census.clients.get("mrtr") as Client;
    assert.ok((await client.connect()).ok);
    const called = client.callTool("ask", {});
    await asked.promise;
    asked = Promise.withResolvers<void>();
    const retired = await census.retire();
    assert.ok(retired.confirmed, JSON.stringify(retired));
    const outcome = await called;
    assert.ok(!outcome.ok && outcome.error.kind === "unavailable", JSON.stringify(outcome));
  });
});

Deno.test("a prompt and a resource that ask for input first are given once it is answered", async () => {
  const elicited: ElicitationRequest[] = [];
  const spec = fixture("reads", "input_required_reads.ts", {
    era: "modern",
    roots: [{ uri: "file:///tmp/work", name: "work" }],
  });
  const census = Census.prepare([spec], {
    onElicit: (request) => {
      elicited.push(request);
      return Promise.resolve({ action: "accept", content: { name: "Ada" } });
    },
  });
  const client = census.clients.get("reads") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const got = await client.getPrompt("greet");
    assert.ok(got.ok, JSON.stringify(got));
    const block = got.value.messages[0]?.content;
    assert.ok(block !== undefined && !Array.isArray(block) && block.type === "text");
    assert.deepEqual(JSON.parse(block.text), {
      requestState: "p1",
      inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
    });
    assert.equal(elicited.length, 1);
    assert.equal(elicited[0]?.message, "Your name?");
    const read = await client.readResource("file:///secret");
    assert.ok(read.ok, JSON.stringify(read));
    const contents = read.value.contents[0];
    assert.ok(contents !== undefined && "text" in contents);
    assert.deepEqual(JSON.parse(contents.text), {
      requestState: "r1",
      inputResponses: { where: { roots: [{ uri: "file:///tmp/work", name: "work" }] } },
    });
  } finally {
    await census.retire();
  }
});

Deno.test("a resource that asks for input no handler gives fails, naming it and the request", async () => {
  const census = Census.prepare([fixture("reads", "input_required_reads.ts", { era: "modern" })]);
  const client = census.clients.get("reads") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const read = await client.readResource("file:///secret");
    assert.ok(!read.ok && read.error.kind === "result_malformed", JSON.stringify(read));
    assert.match(read.error.message, /input request "where"/);
    assert.match(read.error.message, /resources\/read of resource "file:\/\/\/secret"/);
    assert.match(read.error.message, /this client lists no roots/);
  } finally {
    await census.retire();
  }
});

Deno.test("a prompt and a resource that need a URL visited first (-32042) are got once it was", async (t) => {
  const spec = fixture("visits", "url_required_reads.ts");
  await t.step("visits accepted: each asked once, the request made once more", async () => {
    const elicited: ElicitationRequest[] = [];
    const census = Census.prepare([spec], {
      onElicit: (request) => {
        elicited.push(request);
        return Promise.resolve({ action: "accept" });
      },
    });
    const client = census.clients.get("visits") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const got = await client.getPrompt("greet");
      assert.ok(got.ok, JSON.stringify(got));
      const read = await client.readResource("file:///notes");
      assert.ok(read.ok, JSON.stringify(read));
      assert.deepEqual(elicited.map((request) => [request.mode, request.url]), [
        ["url", "https://example.com/connect/prompt"],
        ["url", "https://example.com/connect/resource"],
      ]);
    } finally {
      await census.retire();
    }
  });
  await t.step("a visit declined: the server's error is the answer", async () => {
    const census = Census.prepare([spec], {
      onElicit: () => Promise.resolve({ action: "decline" }),
    });
    const client = census.clients.get("visits") as Client;
    try {
      assert.ok((await client.connect()).ok);
      const got = await client.getPrompt("greet");
      assert.ok(!got.ok && got.error.kind === "server_error", JSON.stringify(got));
      assert.equal(got.error.error.code, -32042);
    } finally {
      await census.retire();
    }
  });
});
