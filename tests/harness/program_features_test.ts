// A program reaches the servers' prompts and resources through `./tools.ts`:
// listPrompts, getPrompt, listResources and readResource, type-checked,
// answered by the harness's own, each a call of the run's report; a get and
// a read ask the approval hook first, a listing does not; a server the
// harness does not have is refused.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import type { ApprovalRequest } from "../../runner/host/approval.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const PROGRAM = [
  'import { getPrompt, listPrompts, listResources, readResource } from "./tools.ts";',
  "const prompts = await listPrompts();",
  'const prompt = await getPrompt("offer", prompts[0]!.name, { name: "Ada" });',
  'const [resource] = await listResources("offer");',
  "const read = await readResource(resource!.server, resource!.uri);",
  "const first = prompt.messages[0]!.content;",
  "export default {",
  "  prompts: prompts.map((each) => `${each.server}/${each.name}`),",
  '  said: first.type === "text" ? first.text : first.type,',
  "  read: read.text,",
  "};",
].join("\n");

function offer() {
  return fixture("offer", "offering_server.ts");
}

Deno.test(
  "a program lists and gets prompts and lists and reads resources through tools.ts",
  OPENS_CUSTODIAN,
  async () => {
    const harness = await boot([offer()]);
    try {
      const report = await harness.run(PROGRAM);
      assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
      assert.deepEqual(report.outcome.kind === "returned" && report.outcome.value, {
        prompts: ["offer/greet"],
        said: "Hello, Ada",
        read: "a note",
      });
      assert.deepEqual(
        report.calls.map((call) => `${call.server} ${call.tool}`),
        [" prompts/list", "offer prompts/get", "offer resources/list", "offer resources/read"],
      );
      assert.deepEqual(report.calls[1]?.args, { name: "greet", arguments: { name: "Ada" } });
    } finally {
      await harness.retire();
    }
  },
);

Deno.test("a program's getPrompt asks the approval hook and its listings do not", async () => {
  const asked: ApprovalRequest[] = [];
  const harness = await boot([offer()], {
    approve: (request) => {
      asked.push(request);
      return { allow: false, reason: "no prompts today" };
    },
  });
  try {
    const report = await harness.run(
      'import { getPrompt, listPrompts } from "./tools.ts";\n' +
        "await listPrompts();\n" +
        'await getPrompt("offer", "greet", { name: "Ada" });\n',
    );
    assert.equal(report.outcome.kind, "threw", JSON.stringify(report.outcome));
    assert.match(report.outcome.kind === "threw" ? report.outcome.message : "", /denied/);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.tool, "prompts/get");
    assert.equal(asked[0]?.prompt, "greet");
    assert.ok(asked[0]?.run !== undefined);
  } finally {
    await harness.retire();
  }
});

Deno.test("a program's listPrompts of a server the harness does not have is refused", async () => {
  const harness = await boot([offer()]);
  try {
    const report = await harness.run(
      'import { listPrompts } from "./tools.ts";\n' +
        'export default await listPrompts("nowhere").catch((error) => error.code);',
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "unknown_server" });
  } finally {
    await harness.retire();
  }
});
