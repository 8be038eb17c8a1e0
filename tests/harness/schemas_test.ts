// Values checked against the tools' schemas on the call path: arguments that
// break the input schema are refused with the path and the rule and never
// reach the server (the fixture records every call it receives); a result
// whose structured content breaks the output schema is result_malformed, or
// with resultCheck "warn" arrives with a warning beside it.

import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 5_000 };

function governed(extra: { resultCheck?: "refuse" | "warn" } = {}) {
  return fixture("gov", "governed_tools.ts", { flags: ["--allow-env=DESCRIPTION"], ...extra });
}

async function received(harness: Harness): Promise<{ name: string; args: unknown }[]> {
  const result = await harness.call("gov", "received", {});
  assert.ok(result.ok, JSON.stringify(result));
  const block = result.value.content[0];
  return JSON.parse(block?.type === "text" ? block.text : "[]");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "arguments that break the input schema are refused with path and rule, and never sent",
  OPENS_CUSTODIAN,
  async (t) => {
    const harness = await boot([governed()], QUICK);
    try {
      const cases: { name: string; tool: string; args: unknown; path: string; rule: string }[] = [
        { name: "past a maximum", tool: "count", args: { n: 11 }, path: "$.n", rule: "maximum" },
        { name: "a wrong type", tool: "count", args: { n: "3" }, path: "$.n", rule: "type" },
        { name: "a missing property", tool: "count", args: {}, path: "$.n", rule: "required" },
        {
          name: "a string too long",
          tool: "echo",
          args: { text: "x".repeat(101) },
          path: "$.text",
          rule: "maxLength",
        },
        {
          name: "a nested wrong type",
          tool: "count",
          args: { n: 1, tags: "a" },
          path: "$.tags",
          rule: "type",
        },
      ];
      for (const { name, tool, args, path, rule } of cases) {
        await t.step(name, async () => {
          const refused = await harness.call("gov", tool, args);
          assert.ok(
            !refused.ok && refused.error.kind === "invalid_arguments",
            JSON.stringify(refused),
          );
          assert.equal(refused.error.path, path);
          assert.equal(refused.error.rule, rule);
          assert.match(refused.error.message, /its arguments break its input schema: \$/);
        });
      }
      await t.step("a program's call is refused the same way, as a McpCallError", async () => {
        const report = await harness.run(
          'import { count } from "./mcp/gov.ts";\nimport { McpCallError } from "@loom/mcp/cap";\n' +
            "try {\n  await count({ n: 99 });\n} catch (error) {\n" +
            "  if (error instanceof McpCallError) console.log(error.code, error.message);\n}\n",
        );
        assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
        assert.match(report.logs[0] ?? "", /^invalid_arguments .*\$\.n must be <= 10 \(it is 99\)/);
      });
      await t.step("nothing that broke a schema reached the server", async () => {
        assert.deepEqual(await received(harness), []);
        const ok = await harness.call("gov", "count", { n: 3 });
        assert.ok(ok.ok, JSON.stringify(ok));
        assert.deepEqual(await received(harness), [{ name: "count", args: { n: 3 } }]);
      });
    } finally {
      assert.ok((await harness.retire()).confirmed);
    }
  },
);

Deno.test("structured content that breaks the output schema is result_malformed, naming the path", async () => {
  const harness = await boot([governed()], QUICK);
  try {
    const result = await harness.call("gov", "bad_result", {});
    assert.ok(!result.ok && result.error.kind === "result_malformed", JSON.stringify(result));
    assert.match(result.error.message, /breaks its output schema: \$\.n must be an integer/);
    const good = await harness.call("gov", "echo", { text: "fine" });
    assert.ok(good.ok && good.value.warnings === undefined, JSON.stringify(good));
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

Deno.test("with resultCheck warn, the result still arrives with the mismatch recorded beside it", async () => {
  const harness = await boot([governed({ resultCheck: "warn" })], QUICK);
  try {
    const result = await harness.call("gov", "bad_result", {});
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.value.structuredContent, { n: "three" });
    assert.equal(result.value.warnings?.length, 1);
    assert.match(result.value.warnings?.[0] ?? "", /\$\.n must be an integer/);
    const report = await harness.run(
      'import { bad_result } from "./mcp/gov.ts";\nexport default (await bad_result({})).text;',
    );
    assert.deepEqual(report.outcome, { kind: "returned", value: "three" });
    assert.match(report.calls[0]?.warnings?.[0] ?? "", /breaks its output schema/);
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});
