// The approval hook: asked about every call a program makes (concurrent ones,
// a loop of 200, and frames the program forges itself) and every call of
// harness.call, exactly once each, in the order they were made; a denial is
// a typed error a program can catch; a hook that throws or outlives the
// call's deadline denies; a run's own hook replaces the harness's.

import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import type { ApprovalRequest } from "../../runner/host/approval.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const GOVERNED = fixture("gov", "governed_tools.ts", { flags: ["--allow-env=DESCRIPTION"] });
const QUICK = { retirementTimeoutMs: 5_000 };

async function received(harness: Harness): Promise<{ name: string; args: unknown }[]> {
  const result = await harness.call("gov", "received", {});
  assert.ok(result.ok, JSON.stringify(result));
  const block = result.value.content[0];
  return JSON.parse(block?.type === "text" ? block.text : "[]");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "every call of a program passes the hook exactly once, in order of issue",
  OPENS_CUSTODIAN,
  async () => {
    const asked: ApprovalRequest[] = [];
    const harness = await boot([GOVERNED], {
      ...QUICK,
      approve: (request) => {
        asked.push(request);
        return true;
      },
    });
    try {
      const report = await harness.run(
        'import { echo } from "./mcp/gov.ts";\n' +
          "const all = await Promise.all(Array.from({ length: 200 }, (_, i) => echo({ text: `c${i}` })));\n" +
          "// A frame the program forges itself, past the module and invoke.\n" +
          "const scope = globalThis as unknown as { postMessage(message: unknown): void };\n" +
          'scope.postMessage({ kind: "call", id: 1e9, server: "gov", tool: "echo", args: { text: "forged" } });\n' +
          "// A frame printed without the nonce is only output.\n" +
          'console.log(JSON.stringify({ kind: "call", id: 7, server: "gov", tool: "echo", args: {} }));\n' +
          'await echo({ text: "after" });\n' +
          "export default all.length;",
        { maxCalls: 300, programName: "loop.ts" },
      );
      assert.deepEqual(
        report.outcome,
        { kind: "returned", value: 200 },
        JSON.stringify(report.outcome),
      );
      const texts = asked.map((request) => (request.args as { text?: string }).text);
      const expected = [...Array.from({ length: 200 }, (_, i) => `c${i}`), "forged", "after"];
      assert.deepEqual(texts, expected, "each call asked about once, in the order it was made");
      assert.deepEqual(report.calls.map((call) => (call.args as { text?: string }).text), expected);
      assert.ok(report.calls.every((call) => call.outcome.ok));
      for (const request of asked) {
        assert.equal(request.server, "gov");
        assert.equal(request.tool, "echo");
        assert.equal(request.name, "echo");
        assert.deepEqual(request.annotations, {});
        assert.equal(request.run?.programName, "loop.ts");
        assert.equal(request.run?.id, asked[0]?.run?.id);
      }
      assert.match(asked[0]?.run?.source ?? "", /Promise\.all/);
      assert.equal(report.logs.length, 1, JSON.stringify(report.logs));
      // The server got exactly the calls the hook allowed.
      assert.equal((await received(harness)).length, 202);
    } finally {
      assert.ok((await harness.retire()).confirmed);
    }
  },
);

Deno.test("a denial reaches the program as a McpCallError it can catch, with the reason", async () => {
  const harness = await boot([GOVERNED], {
    ...QUICK,
    approve: ({ tool, annotations }) =>
      tool === "received" || annotations.readOnlyHint === true ||
      { allow: false, reason: "only read-only tools" },
  });
  try {
    const caught = await harness.run(
      'import { delete_all, read_note } from "./mcp/gov.ts";\n' +
        'import { McpCallError } from "@loom/mcp/cap";\n' +
        "const read = (await read_note({})).text;\n" +
        "let denial: { code: string; kind: string; reason?: string; tool: string } | undefined;\n" +
        "try {\n  await delete_all({});\n} catch (error) {\n" +
        "  if (!(error instanceof McpCallError)) throw error;\n" +
        "  denial = { code: error.code, kind: error.kind, reason: error.reason, tool: error.tool };\n}\n" +
        "export default { read, denial };",
    );
    assert.deepEqual(caught.outcome, {
      kind: "returned",
      value: {
        read: "called read-note",
        denial: {
          code: "denied",
          kind: "denied",
          reason: "only read-only tools",
          tool: "delete_all",
        },
      },
    }, JSON.stringify(caught.outcome));
    const record = caught.calls[1];
    assert.ok(record !== undefined && !record.outcome.ok);
    assert.equal(record.outcome.error.kind, "denied");
    assert.match(record.outcome.error.message, /denied: only read-only tools/);
    assert.deepEqual((await received(harness)).map((call) => call.name), ["read-note"]);
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

Deno.test("harness.call passes the hook too, with the listing's annotations as given", async () => {
  const asked: ApprovalRequest[] = [];
  const harness = await boot([GOVERNED], {
    ...QUICK,
    approve: (request) => {
      asked.push(request);
      return request.tool !== "delete_all";
    },
  });
  try {
    const read = await harness.call("gov", "read_note", {});
    assert.ok(read.ok, JSON.stringify(read));
    const denied = await harness.call("gov", "delete_all", {});
    assert.ok(!denied.ok && denied.error.kind === "denied", JSON.stringify(denied));
    assert.equal(denied.error.reason, "the approval hook refused it");
    assert.deepEqual(asked.map((r) => [r.tool, r.name, r.annotations, r.run]), [
      ["read-note", "read_note", { readOnlyHint: true }, undefined],
      ["delete_all", "delete_all", { destructiveHint: true, readOnlyHint: false }, undefined],
    ]);
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

Deno.test("a hook that throws, answers nonsense or outlives the call's deadline denies", async (t) => {
  let mode: "throw" | "nonsense" | "hang" = "throw";
  const harness = await boot([GOVERNED], {
    ...QUICK,
    approve: () => {
      if (mode === "throw") throw new Error("the approver broke");
      if (mode === "nonsense") return "yes" as unknown as boolean;
      return new Promise<boolean>(() => {});
    },
  });
  try {
    await t.step("throws", async () => {
      const denied = await harness.call("gov", "echo", { text: "x" });
      assert.ok(!denied.ok && denied.error.kind === "denied", JSON.stringify(denied));
      assert.equal(denied.error.reason, "the approval hook threw: the approver broke");
    });
    await t.step("answers neither true, false nor a denial", async () => {
      mode = "nonsense";
      const denied = await harness.call("gov", "echo", { text: "x" });
      assert.ok(!denied.ok && denied.error.kind === "denied", JSON.stringify(denied));
      assert.match(denied.error.reason, /answered neither true, false nor/);
    });
    await t.step("outlives the call's deadline", async () => {
      mode = "hang";
      const started = performance.now();
      const denied = await harness.call("gov", "echo", { text: "x" }, { timeoutMs: 300 });
      assert.ok(!denied.ok && denied.error.kind === "denied", JSON.stringify(denied));
      assert.match(denied.error.reason, /did not answer within the call's deadline of 300 ms/);
      assert.ok(performance.now() - started < 5_000);
    });
    await t.step("counts in the run's deadline", async () => {
      const started = performance.now();
      const report = await harness.run(
        'import { echo } from "./mcp/gov.ts";\nawait echo({ text: "x" });',
        { timeoutMs: 1_500 },
      );
      assert.equal(report.outcome.kind === "killed" && report.outcome.reason, "timeout");
      assert.ok(performance.now() - started < 10_000);
      const record = report.calls[0];
      assert.ok(record !== undefined && !record.outcome.ok, JSON.stringify(record));
      assert.ok(["denied", "call_abandoned"].includes(record.outcome.error.kind));
    });
    mode = "throw";
    // Nothing reached the server; `received` itself is refused too, so ask with a run's hook.
    const report = await harness.run(
      'import { received } from "./mcp/gov.ts";\nexport default (await received({})).text;',
      { approve: () => true },
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "[]" });
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

Deno.test("a run's own hook replaces the harness's for that run's calls", async () => {
  const harnessAsked: string[] = [];
  const runAsked: string[] = [];
  const harness = await boot([GOVERNED], {
    ...QUICK,
    approve: ({ tool }) => {
      harnessAsked.push(tool);
      return false;
    },
  });
  try {
    const report = await harness.run(
      'import { echo } from "./mcp/gov.ts";\nexport default (await echo({ text: "ok" })).text;',
      {
        approve: ({ tool }) => {
          runAsked.push(tool);
          return true;
        },
      },
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "ok" });
    assert.deepEqual(runAsked, ["echo"]);
    assert.deepEqual(harnessAsked, []);
    const denied = await harness.call("gov", "echo", { text: "no" });
    assert.ok(!denied.ok && denied.error.kind === "denied");
    assert.deepEqual(harnessAsked, ["echo"]);
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

Deno.test("a read frame the program forges itself passes the hook like a module's read", async () => {
  const asked: ApprovalRequest[] = [];
  const harness = await boot([fixture("long", "long_server.ts")], {
    ...QUICK,
    approve: (request) => {
      asked.push(request);
      return { allow: false, reason: "no reads" };
    },
  });
  try {
    const report = await harness.run(
      'import { read_resource } from "./mcp/long.ts";\n' +
        "const scope = globalThis as unknown as { postMessage(message: unknown): void };\n" +
        "// Reads posted past the module and cap.ts: to a server the catalog lacks, to one it has.\n" +
        'scope.postMessage({ kind: "read", id: 1e9, server: "nowhere", uri: "fixture://text" });\n' +
        'scope.postMessage({ kind: "read", id: 1e9 + 1, server: "long", uri: "fixture://blob" });\n' +
        "// The module's own read waits in the same queue, behind the forged one.\n" +
        'const code = await read_resource("fixture://text").then(() => "read", (e) => e.code);\n' +
        "export default code;",
      { programName: "forged.ts" },
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "denied" });
    assert.deepEqual(
      report.calls.map((call) => [call.server, call.tool, call.args]),
      [
        ["nowhere", "resources/read", { uri: "fixture://text" }],
        ["long", "resources/read", { uri: "fixture://blob" }],
        ["long", "resources/read", { uri: "fixture://text" }],
      ],
    );
    const kinds = report.calls.map((call) => call.outcome.ok || call.outcome.error.kind);
    assert.deepEqual(kinds, ["unknown_server", "denied", "denied"]);
    assert.deepEqual(asked.map((request) => [request.server, request.resource]), [
      ["long", "fixture://blob"],
      ["long", "fixture://text"],
    ]);
    assert.equal(asked[0]?.run?.programName, "forged.ts");
  } finally {
    await harness.retire();
  }
});

Deno.test("a program's read of a resource passes the hook too, in its run's queue", async () => {
  const asked: ApprovalRequest[] = [];
  const harness = await boot([fixture("long", "long_server.ts")], {
    ...QUICK,
    approve: (request) => {
      asked.push(request);
      return request.resource !== "fixture://blob" ||
        { allow: false, reason: "no blobs" };
    },
  });
  try {
    const report = await harness.run(
      'import { read_resource, whoami } from "./mcp/long.ts";\n' +
        'import { McpCallError } from "@loom/mcp/cap";\n' +
        "await whoami({});\n" +
        'const text = (await read_resource("fixture://text")).text;\n' +
        "let refused = '';\n" +
        'try { await read_resource("fixture://blob"); } catch (e) {\n' +
        "  if (e instanceof McpCallError) refused = `${e.code}: ${e.reason}`;\n}\n" +
        "export default { text, refused };",
    );
    assert.deepEqual(report.outcome, {
      kind: "returned",
      value: { text: "a text resource", refused: "denied: no blobs" },
    });
    assert.deepEqual(
      asked.map((request) => [request.tool, request.resource, { ...request.args }]),
      [
        ["whoami", undefined, {}],
        ["resources/read", "fixture://text", { uri: "fixture://text" }],
        ["resources/read", "fixture://blob", { uri: "fixture://blob" }],
      ],
    );
    assert.ok(asked.every((request) => request.run !== undefined));
    assert.equal(asked[1]?.run, asked[0]?.run);
    // The harness's own reads are its author's, not a program's: not asked about.
    assert.ok((await harness.readResource("long", "fixture://blob")).ok);
    assert.equal(asked.length, 3);
  } finally {
    await harness.retire();
  }
});
