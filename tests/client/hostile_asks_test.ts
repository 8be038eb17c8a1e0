// What a hostile server makes of the client's side of MCP's client features:
// a server that asks without reading the answers, asks for input past the
// bound in one round, or words what it asks so that a message would carry
// its text raw. Each ends in a named fault, bounded, its text quoted and cut.

import assert from "node:assert/strict";
import type { CensusOptions } from "../../client/census.ts";
import type { ElicitationRequest } from "../../client/handlers.ts";
import type { LogEntry } from "../../client/logs.ts";
import {
  MAX_LOG_DATA_CHARS,
  MAX_SERVER_ERROR_CHARS,
  MAX_UNREAD_STDIN_BYTES,
} from "../../settings/mod.ts";
import { fixture, withClient } from "./_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a server that asks without reading the answers ends as write_failed past MAX_UNREAD_STDIN_BYTES",
  OPENS_CUSTODIAN,
  async () => {
    // Each answer carries this root: 128 of the server's 600 asks are past the bound.
    const root = `file:///${"r".repeat(Math.ceil(MAX_UNREAD_STDIN_BYTES / 128))}`;
    const spec = fixture("unread", "unread_asker.ts", { callTimeoutMs: 30_000 });
    await withClient(spec, { roots: [{ uri: root }] }, async (client) => {
      const called = await client.callTool("go", {});
      assert.ok(!called.ok && called.error.kind === "unavailable", JSON.stringify(called));
      assert.equal(called.error.cause, "write_failed");
      assert.match(called.error.message, /MAX_UNREAD_STDIN_BYTES \(67108864\)/);
      assert.equal(client.state, "dead");
    });
  },
);

Deno.test("an input_required round asking past MAX_SERVER_REQUESTS_IN_FLIGHT fails the call, none asked", async () => {
  let asked = 0;
  const onElicit = () => {
    asked++;
    return Promise.resolve({ action: "decline" as const });
  };
  const spec = fixture("flood", "input_flood.ts", { era: "modern" });
  await withClient(spec, { onElicit }, async (client) => {
    const called = await client.callTool("flood", {});
    assert.ok(!called.ok && called.error.kind === "result_malformed", JSON.stringify(called));
    assert.match(called.error.message, /asked for 17 inputs in one round/);
    assert.match(called.error.message, /MAX_SERVER_REQUESTS_IN_FLIGHT \(16\)/);
    assert.equal(asked, 0);
  });
});

Deno.test("an input request's key and method reach the call's failure quoted and cut", async () => {
  const spec = fixture("worded", "input_worded.ts", { era: "modern" });
  await withClient(
    spec,
    { onElicit: () => Promise.resolve({ action: "decline" }) },
    async (client) => {
      const called = await client.callTool("worded", {});
      assert.ok(!called.ok && called.error.kind === "result_malformed", JSON.stringify(called));
      const message = called.error.message;
      assert.ok(message.length < 400, `${message.length} characters`);
      assert.doesNotMatch(message, /\p{Cc}/u);
      assert.match(message, /input request "\\u001b\[2J\\nEVILx+…"/);
      assert.match(message, /does not answer "\\u001b\[2J\\nEVILx+…"/);
    },
  );
});

Deno.test("a server's JSON-RPC error message reaches server_error's message on one line and cut", async () => {
  await withClient(fixture("refuser", "worded_refusal.ts"), {}, async (client) => {
    const got = await client.getPrompt("p", {});
    assert.ok(!got.ok && got.error.kind === "server_error", JSON.stringify(got).slice(0, 300));
    const message = got.error.message;
    assert.ok(message.length < MAX_SERVER_ERROR_CHARS + 200, `${message.length} characters`);
    assert.doesNotMatch(message, /\p{Cc}/u);
    assert.match(message, /refused prompts\/get: \\u\{1b\}\[2J\\u\{a\}EVILx+… \(code -32602\)$/);
    // The error itself stays whole.
    assert.equal(got.error.error.message.length, 100_009);
  });
});

Deno.test("a URL elicitation reaches onElicit as the URL a browser would open", async (t) => {
  const cases: [string, string, string][] = [
    ["a tab inside the host", "https://good.example\t.evil.example/", "good.example.evil.example"],
    ["spaces around it", "  https://x.example/a  ", "x.example"],
  ];
  for (const [name, url, host] of cases) {
    await t.step(name, async () => {
      const seen: string[] = [];
      const onElicit: CensusOptions["onElicit"] = (request) => {
        seen.push(request.url ?? "");
        return Promise.resolve({ action: "decline" });
      };
      await withClient(fixture("asker", "asking_server.ts"), { onElicit }, async (client) => {
        const params = { mode: "url", message: "Sign in", url, elicitationId: "e1" };
        const called = await client.callTool("elicit", { params });
        assert.ok(called.ok, JSON.stringify(called));
        assert.equal(seen.length, 1);
        const shown = seen[0] as string;
        assert.doesNotMatch(shown, /[\s]/);
        assert.equal(shown, new URL(url).href);
        assert.equal(new URL(shown).host, host);
      });
    });
  }
});

Deno.test("a URL with a user name or password before its host never reaches onElicit", async () => {
  const seen: string[] = [];
  const onElicit: CensusOptions["onElicit"] = (request) => {
    seen.push(request.url ?? "");
    return Promise.resolve({ action: "accept" });
  };
  await withClient(fixture("asker", "asking_server.ts"), { onElicit }, async (client) => {
    // A line break a parser drops, then a name before the host: it leads to evil.example.
    for (const url of ["https://good.example\n@evil.example/", "https://u:p@evil.example/"]) {
      const params = { mode: "url", message: "Sign in", url, elicitationId: "e1" };
      const called = await client.callTool("elicit", { params });
      assert.ok(called.ok, JSON.stringify(called));
      const block = called.value.content[0];
      assert.ok(block?.type === "text");
      // The server hears the request refused, naming why.
      assert.match(block.text, /-32602/);
      assert.match(block.text, /user name or password before its host/);
    }
    assert.deepEqual(seen, []);
  });
});

Deno.test("a 2026-07-28 URL elicitation of the SDK v2 server, with no elicitationId, reaches onElicit", async () => {
  const seen: ElicitationRequest[] = [];
  const onElicit = (request: ElicitationRequest) => {
    seen.push(request);
    return Promise.resolve({ action: "accept" as const });
  };
  const spec = fixture("sdk-v2-url", "sdk_v2_url_elicit.ts", {
    era: "modern",
    flags: ["-A", "--no-prompt"],
    connectTimeoutMs: 60_000,
  });
  await withClient(spec, { onElicit }, async (client) => {
    const called = await client.callTool("visit", {});
    assert.ok(called.ok, JSON.stringify(called));
    assert.deepEqual(seen, [{
      server: "sdk-v2-url",
      mode: "url",
      message: "Sign in",
      url: "https://auth.example.com/start",
      tool: "visit",
    }]);
    const block = called.value.content[0];
    assert.ok(block?.type === "text");
    assert.deepEqual(JSON.parse(block.text), { action: "accept" });
  });
});

Deno.test("a form's default is filled in for a field named as an inherited property", async () => {
  const requestedSchema = {
    type: "object",
    properties: {
      constructor: { type: "string", default: "made" },
      toString: { type: "boolean", default: true },
    },
    required: ["constructor", "toString"],
  };
  const onElicit = () => Promise.resolve({ action: "accept" as const, content: {} });
  await withClient(fixture("asker", "asking_server.ts"), { onElicit }, async (client) => {
    const params = { message: "Fill in", requestedSchema };
    const called = await client.callTool("elicit", { params });
    assert.ok(called.ok, JSON.stringify(called));
    const block = called.value.content[0];
    assert.ok(block?.type === "text");
    assert.deepEqual(JSON.parse(block.text), {
      result: { action: "accept", content: { constructor: "made", toString: true } },
    });
  });
});

Deno.test("a log message cut past its caps keeps each surrogate pair whole", async () => {
  const entries: LogEntry[] = [];
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  const spec = fixture("splitter", "split_log.ts");
  await withClient(spec, { onLog: (entry) => entries.push(entry) }, async (client) => {
    assert.ok((await client.callTool("split", {})).ok);
    for (let turn = 0; turn < 500 && entries.length < 1; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [entry] = entries;
    assert.ok(entry !== undefined && entry.cut === true, JSON.stringify(entry).slice(0, 200));
    const data = entry.data as string;
    assert.equal(data.length, MAX_LOG_DATA_CHARS - 1);
    assert.doesNotMatch(data, lone);
    assert.equal(entry.logger, "l".repeat(255));
  });
});

Deno.test("a completion whose total is fewer than the values it sent is result_malformed", async () => {
  await withClient(fixture("liar", "lying_completion.ts"), {}, async (client) => {
    const done = await client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" });
    assert.ok(!done.ok && done.error.kind === "result_malformed", JSON.stringify(done));
    assert.match(done.error.message, /"total" is 1, fewer than the 3 values it sent/);
  });
});
