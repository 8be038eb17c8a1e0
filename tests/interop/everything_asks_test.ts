// The official `server-everything` over stdio, booted with every handler:
// it registers the tools that ask the client only for a client that declares
// the capabilities, and each works through the harness, its questions
// answered by the harness's handlers.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import type { Harness } from "../../harness/types.ts";
import type { ElicitationRequest, SamplingRequest } from "../../client/handlers.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const ASKING = [
  "trigger-elicitation-request",
  "trigger-url-elicitation",
  "trigger-sampling-request",
  "get-roots-list",
];

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? "").join("\n");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "server-everything's asking tools work through the harness and its handlers",
  OPENS_CUSTODIAN,
  async (t) => {
    const elicited: ElicitationRequest[] = [];
    const sampled: SamplingRequest[] = [];
    const spec = fixture("everything", "everything_stdio.ts", {
      flags: ["--allow-read", "--allow-env", "--allow-sys"],
      connectTimeoutMs: 30_000,
      era: "legacy",
    });
    const harness: Harness = await boot([spec], {
      roots: [{ uri: "file:///tmp/loom-project", name: "project" }],
      onElicit: (request) => {
        elicited.push(request);
        return Promise.resolve(
          request.mode === "form"
            ? { action: "accept", content: { name: "Ada Lovelace" } }
            : { action: "accept" },
        );
      },
      onSample: (request) => {
        sampled.push(request);
        return Promise.resolve({
          role: "assistant",
          content: { type: "text", text: "sampled by the harness" },
          model: "loom-test",
          stopReason: "endTurn",
        });
      },
    });
    try {
      await t.step(
        "the tools that ask are listed, once the client declared what it answers",
        async () => {
          // They are registered after the handshake, and a list_changed brings them.
          for (let attempt = 0; attempt < 100; attempt++) {
            const report = harness.reports.get("everything");
            const names = report?.state === "ready" ? report.tools.map((tool) => tool.name) : [];
            if (ASKING.every((name) => names.includes(name))) return;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          assert.fail(JSON.stringify(harness.reports.get("everything")).slice(0, 400));
        },
      );
      await t.step(
        "trigger-elicitation-request: the form answered, its defaults filled in",
        async () => {
          const called = await harness.call("everything", "trigger-elicitation-request", {});
          assert.ok(called.ok, JSON.stringify(called));
          const text = textOf(called.value);
          assert.match(text, /Ada Lovelace/);
          assert.match(text, /It was a dark and stormy night/);
          assert.equal(elicited[0]?.mode, "form");
          assert.equal(elicited[0]?.server, "everything");
        },
      );
      await t.step("trigger-url-elicitation: the URL handed to onElicit", async () => {
        const called = await harness.call("everything", "trigger-url-elicitation", {
          url: "https://example.com/consent",
        });
        assert.ok(called.ok, JSON.stringify(called));
        const asked = elicited.find((request) => request.mode === "url");
        assert.equal(asked?.url, "https://example.com/consent");
        assert.match(textOf(called.value), /accept/i);
      });
      await t.step(
        "trigger-url-elicitation's -32042 error: satisfied, the call made once more",
        async () => {
          const before = elicited.length;
          const called = await harness.call("everything", "trigger-url-elicitation", {
            url: "https://example.com/error-path",
            elicitationId: "error-path-1",
            errorPath: true,
          });
          assert.ok(called.ok, JSON.stringify(called));
          const asked = elicited.slice(before).filter((request) => request.mode === "url");
          // The prerequisite the error named, then the retried call's own question.
          assert.equal(asked.length, 2, JSON.stringify(called.value));
          // As parsed: the URL a browser would open.
          assert.equal(asked[0]?.url, "https://modelcontextprotocol.io/");
          assert.equal(asked[0]?.tool, "trigger-url-elicitation");
          assert.equal(asked[1]?.url, "https://example.com/error-path");
        },
      );
      await t.step("trigger-sampling-request: answered by onSample", async () => {
        const called = await harness.call("everything", "trigger-sampling-request", {
          prompt: "Say something",
        });
        assert.ok(called.ok, JSON.stringify(called));
        assert.match(textOf(called.value), /sampled by the harness/);
        assert.equal(sampled[0]?.server, "everything");
      });
      await t.step("get-roots-list: the roots given to boot", async () => {
        const called = await harness.call("everything", "get-roots-list", {});
        assert.ok(called.ok, JSON.stringify(called));
        assert.match(textOf(called.value), /file:\/\/\/tmp\/loom-project/);
      });
    } finally {
      await harness.retire();
    }
  },
);
