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

Deno.test("a program's denied getPrompt names the prompt and carries the hook's reason", async () => {
  const harness = await boot([offer()], {
    approve: () => ({ allow: false, reason: "no prompts today" }),
  });
  try {
    const report = await harness.run(
      'import { getPrompt } from "./tools.ts";\n' +
        'export default await getPrompt("offer", "greet", { name: "Ada" }).then(\n' +
        "  () => null,\n" +
        "  (error) => ({ code: error.code, reason: error.reason ?? null, message: error.message }),\n" +
        ");",
    );
    assert.deepEqual(report.outcome, {
      kind: "returned",
      value: {
        code: "denied",
        reason: "no prompts today",
        message: 'Cannot get prompt "greet" of "offer": denied: no prompts today',
      },
    });
  } finally {
    await harness.retire();
  }
});

Deno.test("a program's getPrompt of a server the harness does not have says it was a get, under a hook", async () => {
  const asked: ApprovalRequest[] = [];
  const harness = await boot([offer()], {
    approve: (request) => {
      asked.push(request);
      return true;
    },
  });
  try {
    const report = await harness.run(
      'import { getPrompt } from "./tools.ts";\n' +
        'export default await getPrompt("nowhere", "greet").catch((error) => error.message);',
    );
    assert.deepEqual(report.outcome, {
      kind: "returned",
      value: 'Cannot get a prompt of "nowhere": no such server in the catalog',
    });
    assert.deepEqual(asked, []);
  } finally {
    await harness.retire();
  }
});

Deno.test("a program's listing still waiting at the run's end is cancelled with the run", async (t) => {
  const harness = await boot([fixture("stalled", "stalled_listings.ts")]);
  try {
    for (const op of ["listPrompts", "listResources"]) {
      await t.step(op, async () => {
        const report = await harness.run(
          `import { ${op} } from "./tools.ts";\nawait ${op}("stalled");`,
          { timeoutMs: 2_000, typeCheck: false },
        );
        assert.ok(report.outcome.kind === "killed" && report.outcome.reason === "timeout");
        const outcome = report.calls[0]?.outcome;
        // Given up by the run's end at once, not left to the server's deadline.
        assert.ok(outcome !== undefined && !outcome.ok, JSON.stringify(outcome));
        assert.equal(outcome.error.kind, "call_timed_out", JSON.stringify(outcome));
        assert.equal((outcome.error as { aborted?: boolean }).aborted, true);
      });
    }
  } finally {
    await harness.retire();
  }
});
