// A 2026-07-28 server that answers `input_required` wrongly, or where MCP
// does not allow it, or goes while its question is answered; a URL asked in
// a round; and a legacy server whose answer only looks like one.

import assert from "node:assert/strict";
import { Census } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import type { ServerRequestHandlers } from "../../client/handlers.ts";
import { fixture, withClient } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const ROOTS = [{ uri: "file:///tmp/work", name: "work" }];

/** Runs `use` with a connected client of the hostile fixture, retired after. */
async function withHostile(
  handlers: ServerRequestHandlers,
  use: (client: Client) => Promise<void>,
): Promise<void> {
  const spec = fixture("hostile", "input_required_hostile.ts", { era: "modern", roots: ROOTS });
  await withClient(spec, handlers, use);
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "an input_required result of a malformed shape fails the call at once, naming the tool and the field",
  OPENS_CUSTODIAN,
  async (t) => {
    await withHostile({}, async (client) => {
      const table = [
        ["empty", /neither "inputRequests" nor "requestState"/],
        ["not_object", /"inputRequests" is an array/],
        ["bad_state", /"requestState" is 7, not a string/],
      ] as const;
      for (const [tool, why] of table) {
        await t.step(tool, async () => {
          // Asked again, the fixture would give a complete result.
          const called = await client.callTool(tool, {});
          assert.ok(!called.ok && called.error.kind === "result_malformed", JSON.stringify(called));
          assert.match(called.error.message, new RegExp(`tool "${tool}"`));
          assert.match(called.error.message, /malformed input_required result/);
          assert.match(called.error.message, why);
        });
      }
    });
  },
);

Deno.test("an input request that is no request, or of a method no client answers, fails the call naming it", async (t) => {
  await withHostile({}, async (client) => {
    const table = [
      ["not_request", /input request "odd" .*tool "not_request".*not a request with a method/],
      ["unknown", /input request "odd" .*tool "unknown".*does not answer "tools\/list"/],
    ] as const;
    for (const [tool, message] of table) {
      await t.step(tool, async () => {
        const called = await client.callTool(tool, {});
        assert.ok(!called.ok && called.error.kind === "result_malformed", JSON.stringify(called));
        assert.match(called.error.message, message);
      });
    }
  });
});

Deno.test("a server that keeps asking with a new requestState each round is given up at the cap", async () => {
  await withHostile({}, async (client) => {
    const called = await client.callTool("changing", {});
    assert.ok(!called.ok && called.error.kind === "result_malformed", JSON.stringify(called));
    assert.match(called.error.message, /still asked for input after 10 rounds of tool "changing"/);
  });
});

Deno.test("a server that exits while its sampling input request is answered fails the call as gone, not as malformed", async () => {
  await withHostile({
    // Answers once the server is gone.
    onSample: (_request, context) =>
      new Promise((resolve) =>
        context?.signal.addEventListener(
          "abort",
          () => resolve({ role: "assistant", content: { type: "text", text: "late" }, model: "m" }),
        )
      ),
  }, async (client) => {
    const called = await client.callTool("sample_hold", {});
    assert.ok(!called.ok && called.error.kind === "unavailable", JSON.stringify(called));
  });
});

Deno.test("the caller's signal during a prompt's sampling input request ends it as cancelled by its caller", async () => {
  const caller = new AbortController();
  await withHostile({
    onSample: () => {
      caller.abort();
      return new Promise(() => {});
    },
  }, async (client) => {
    const got = await client.getPrompt("p", {}, { signal: caller.signal });
    assert.ok(!got.ok && got.error.kind === "call_timed_out", JSON.stringify(got));
    assert.equal(got.error.aborted, true);
  });
});

Deno.test("a completion and a listing of prompts that ask for input are refused, saying where MCP allows it", async () => {
  await withHostile({}, async (client) => {
    const done = await client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" });
    assert.ok(!done.ok && done.error.kind === "result_malformed", JSON.stringify(done));
    assert.match(done.error.message, /completion\/complete result: the server asks for input/);
    assert.match(done.error.message, /only on tools\/call, prompts\/get and resources\/read/);
    const listed = await client.listPrompts();
    assert.ok(!listed.ok && listed.error.kind === "result_malformed", JSON.stringify(listed));
    assert.match(listed.error.message, /prompts\/list .*the server asks for input/);
  });
});

Deno.test("a URL asked in a round is given its completion, and the prompt once it was visited", async () => {
  const census = Census.prepare([fixture("url", "url_in_round.ts", { era: "modern" })], {
    onElicit: async (request, context) => {
      assert.equal(request.elicitationId, "v1");
      // The server's word that the visit is complete, as a person's handler waits for it.
      await context?.completed;
      return { action: "accept" };
    },
  });
  const client = census.clients.get("url") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const got = await client.getPrompt("visit");
    assert.ok(got.ok, JSON.stringify(got));
    const block = got.value.messages[0]?.content;
    assert.ok(block !== undefined && !Array.isArray(block) && block.type === "text");
    assert.deepEqual(JSON.parse(block.text), { visit: { action: "accept" } });
  } finally {
    await census.retire();
  }
});

Deno.test("a legacy server's input_required answer is taken as it is, never answered by rounds", async () => {
  let asked = 0;
  const census = Census.prepare([fixture("legacy", "input_required_legacy.ts", { roots: ROOTS })], {
    onElicit: () => {
      asked++;
      return Promise.resolve({ action: "accept" });
    },
  });
  const client = census.clients.get("legacy") as Client;
  try {
    assert.ok((await client.connect()).ok);
    const called = await client.callTool("go", {});
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(called.value.content, [{ type: "text", text: "asked 1" }]);
    const got = await client.getPrompt("greet");
    assert.ok(!got.ok && got.error.kind === "result_malformed", JSON.stringify(got));
    assert.match(got.error.message, /"messages" is absent/);
    assert.equal(asked, 0);
  } finally {
    await census.retire();
  }
});
