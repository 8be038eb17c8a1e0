import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import { fixture } from "../client/_fixtures.ts";

const QUICK = { retirementTimeoutMs: 5_000 };

function text(result: Awaited<ReturnType<Harness["call"]>>): string {
  assert.ok(result.ok, JSON.stringify(result));
  return result.value.content.map((block) => block.type === "text" ? block.text : "").join("");
}

Deno.test("harness.call() and programs reach a tool by its wire name or its function's name", async (t) => {
  const harness = await boot([fixture("named", "named_tools.ts")], QUICK);
  try {
    const generated = harness.modules.get("named");
    assert.ok(generated !== undefined, JSON.stringify([...harness.reports.values()]));

    await t.step("a name that must change changes in one obvious way", () => {
      assert.deepEqual([...generated.manifest], [["_then", "then"], ["get_sum", "get-sum"]]);
      assert.match(harness.surface, /^get_sum\(args: \{\}\): Promise<ToolResult>$/m);
    });
    await t.step("the wire name and the function's name reach the same tool", async () => {
      assert.equal(text(await harness.call("named", "get-sum", {})), "called get-sum");
      assert.equal(text(await harness.call("named", "get_sum", {})), "called get-sum");
      assert.equal(text(await harness.call("named", "_then", {})), "called then");
    });
    await t.step("a guess is refused with the closest names", async () => {
      const guess = await harness.call("named", "getSum", {});
      assert.ok(!guess.ok && guess.error.kind === "unknown_tool", JSON.stringify(guess));
      assert.deepEqual(guess.error.suggestions, ["get_sum"]);
      assert.match(guess.error.message, /did you mean get_sum\?$/);
    });
    await t.step("a task-required tool is left out and refused as task_required", async () => {
      assert.deepEqual([...generated.omitted], [["research", "task_required"]]);
      assert.match(harness.surface, /^\/\/ Left out, not callable from a program: "research" /m);
      const denied = await harness.call("named", "research", {});
      assert.ok(!denied.ok && denied.error.kind === "task_required", JSON.stringify(denied));
      assert.equal(denied.error.tool, "research");
    });
    await t.step("a program calls by the function's name, and the wire name travels", async () => {
      const report = await harness.run(
        'import { _then, get_sum } from "./mcp/named.ts";\n' +
          "export default [(await get_sum({})).text, (await _then({})).text];",
      );
      assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
      assert.ok(report.outcome.kind === "returned");
      assert.deepEqual(report.outcome.value, ["called get-sum", "called then"]);
      assert.deepEqual(report.calls.map((call) => call.tool), ["get-sum", "then"]);
    });
  } finally {
    const retired = await harness.retire();
    assert.equal(retired.confirmed, true);
  }
});
