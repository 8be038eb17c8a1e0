// A program's prompts and resource listings through `./tools.ts` reach the
// runner's `features` (the harness's, here a fake one): decoded as untrusted
// on the host, each recorded as one of the run's calls and counted against
// its cap; a runner given none refuses them as a value.

import assert from "node:assert/strict";
import { err, ok } from "../../../codec/result.ts";
import type { FeatureFunction, FeatureRequest } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";
import type { PromptDescriptor } from "../../../codec/prompts.ts";
import type { ResourceDescriptor } from "../../../codec/resource_lists.ts";
import type { PromptEntry, ResourceEntry } from "../../../runner/sandbox/tools.ts";

function call() {
  return Promise.resolve(ok({ content: [{ type: "text" as const, text: "ok" }], isError: false }));
}

function fakeFeatures(asked: FeatureRequest[]): FeatureFunction {
  return (request) => {
    asked.push(request);
    if (request.op === "listPrompts") {
      return Promise.resolve(ok([{ server: "s", name: "greet", arguments: [] }]));
    }
    if (request.op === "getPrompt") {
      return Promise.resolve(ok({
        messages: [{ role: "user", content: { type: "text", text: `hi ${request.args.who}` } }],
      }));
    }
    return Promise.resolve(err({ kind: "resources_not_declared", message: "no resources" }));
  };
}

async function withRunner(
  features: FeatureFunction | undefined,
  body: (runner: Runner) => Promise<void>,
): Promise<void> {
  const runner = new Runner({
    modules: new Map(),
    call,
    ...(features === undefined ? {} : { features }),
  });
  try {
    await body(runner);
  } finally {
    await runner.retire();
  }
}

Deno.test("a program's listPrompts and getPrompt reach the runner's features as calls", async () => {
  const asked: FeatureRequest[] = [];
  await withRunner(fakeFeatures(asked), async (runner) => {
    const report = await runner.run(
      'import { getPrompt, listPrompts } from "./tools.ts";\n' +
        "const [first] = await listPrompts();\n" +
        'const got = await getPrompt(first!.server, first!.name, { who: "Ada" });\n' +
        "const block = got.messages[0]!.content;\n" +
        'export default block.type === "text" ? block.text : "";\n',
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "hi Ada" });
    assert.deepEqual(asked, [
      { op: "listPrompts" },
      { op: "getPrompt", server: "s", name: "greet", args: { who: "Ada" } },
    ]);
    assert.deepEqual(report.calls.map((each) => each.tool), ["prompts/list", "prompts/get"]);
  });
});

Deno.test("a refusal of features is the program's McpCallError with its code", async () => {
  await withRunner(fakeFeatures([]), async (runner) => {
    const report = await runner.run(
      'import { listResources } from "./tools.ts";\n' +
        'export default await listResources("s").catch((error) => error.code);\n',
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "resources_not_declared" });
    assert.equal(report.calls[0]?.outcome.ok, false);
  });
});

Deno.test("a getPrompt whose arguments are not strings is refused before features", async () => {
  const asked: FeatureRequest[] = [];
  await withRunner(fakeFeatures(asked), async (runner) => {
    const report = await runner.run(
      'import { getPrompt } from "./tools.ts";\n' +
        'export default await getPrompt("s", "greet", { who: 3 } as never)' +
        ".catch((error) => error.code);\n",
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "invalid_arguments" });
    assert.deepEqual(asked, []);
  });
});

Deno.test("a program's listings count against the run's cap on calls", async () => {
  await withRunner(fakeFeatures([]), async (runner) => {
    const report = await runner.run(
      'import { listPrompts } from "./tools.ts";\nfor (let i = 0; i < 3; i++) await listPrompts();\n',
      { maxCalls: 2 },
    );
    assert.ok(report.outcome.kind === "killed" && report.outcome.reason === "calls");
  });
});

Deno.test("a runner given no features refuses a program's listPrompts as a value", async () => {
  await withRunner(undefined, async (runner) => {
    const report = await runner.run(
      'import { listPrompts } from "./tools.ts";\n' +
        "export default await listPrompts().catch((error) => error.code);\n",
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "features_unavailable" });
  });
});

// The sandbox's tools.ts imports nothing of the host's, so it mirrors the
// types; the type check of this file fails when they differ.
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false;
const MIRRORED: [
  Same<PromptEntry, PromptDescriptor & { server: string }>,
  Same<ResourceEntry, ResourceDescriptor & { server: string }>,
] = [true, true];
Deno.test("the sandbox's prompt and resource entries mirror the harness's", () => {
  assert.deepEqual(MIRRORED, [true, true]);
});
