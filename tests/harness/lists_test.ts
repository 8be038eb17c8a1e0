// A server's enabledTools and disabledTools: a tool left out is absent from
// the module and the surface, refused by harness.call as tool_disabled, and
// unknown to a program's type check; a name that matches nothing is a
// warning of the boot, said once.

import assert from "node:assert/strict";
import { boot } from "../../harness/harness.ts";
import { fixture } from "../client/_fixtures.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

const QUICK = { retirementTimeoutMs: 5_000 };

function governed(name: string, lists: { enabledTools?: string[]; disabledTools?: string[] }) {
  return fixture(name, "governed_tools.ts", { flags: ["--allow-env=DESCRIPTION"], ...lists });
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "a disabled tool is absent from surface and module and refused by harness.call",
  OPENS_CUSTODIAN,
  async (t) => {
    const reports: string[] = [];
    const harness = await boot([governed("gov", { disabledTools: ["delete_all", "read_note"] })], {
      ...QUICK,
      onServer: (report) => reports.push(report.name),
    });
    try {
      const generated = harness.modules.get("gov");
      assert.ok(generated !== undefined, JSON.stringify([...harness.reports.values()]));
      await t.step("absent from the module and the surface", () => {
        assert.doesNotMatch(generated.source, /delete_all|read-note|read_note/);
        assert.doesNotMatch(harness.surface, /delete_all|read_note/);
        assert.match(harness.surface, /^echo\(args: \{ text: string \}\)/m);
        assert.ok(![...generated.manifest.values()].includes("delete_all"));
      });
      await t.step("the report says what is withheld and why", () => {
        const report = harness.reports.get("gov");
        assert.ok(report?.state === "ready");
        assert.deepEqual([...report.withheld], [["read-note", "disabled"], [
          "delete_all",
          "disabled",
        ]]);
        assert.ok(
          report.tools.some((tool) => tool.name === "delete_all"),
          "the listing stays whole",
        );
      });
      await t.step("refused as tool_disabled by wire name and by function name", async () => {
        for (const name of ["delete_all", "read-note", "read_note"]) {
          const denied = await harness.call("gov", name, {});
          assert.ok(!denied.ok && denied.error.kind === "tool_disabled", JSON.stringify(denied));
          assert.match(denied.error.message, /enabledTools or disabledTools leave it out/);
        }
        const received = await harness.call("gov", "received", {});
        assert.ok(received.ok);
        assert.deepEqual(
          JSON.parse(
            received.value.content[0]?.type === "text" ? received.value.content[0].text : "",
          ),
          [],
        );
      });
      await t.step("search never finds it and describe says it is left out", () => {
        for (const match of harness.search("delete all notes", { limit: 50 })) {
          assert.notEqual(match.tool, "delete_all");
        }
        for (const name of ["delete_all", "read_note"]) {
          const described = harness.describe("gov", name);
          assert.ok(!described.ok && described.error.kind === "tool_disabled", name);
        }
        assert.ok(harness.describe("gov", "echo").ok);
      });
      await t.step(
        "a program naming it fails the type check, told what the module has",
        async () => {
          const report = await harness.run(
            'import { delete_all } from "./mcp/gov.ts";\nexport default await delete_all({});',
          );
          assert.equal(report.outcome.kind, "rejected", JSON.stringify(report.outcome));
          assert.ok(report.outcome.kind === "rejected");
          const messages = report.outcome.diagnostics.map((d) => d.message).join("\n");
          assert.match(messages, /has no export "delete_all"; its exports are bad_result, count,/);
          assert.equal(report.calls.length, 0);
        },
      );
      await t.step("a program calling it by its wire name through invoke is refused", async () => {
        const report = await harness.run(
          'import { invoke, McpCallError } from "@loom/mcp/cap";\n' +
            "let code: string | undefined;\n" +
            'try { await invoke("gov", "delete_all", {}); } catch (error) {\n' +
            "  if (error instanceof McpCallError) code = error.code;\n}\n" +
            "export default code;",
        );
        assert.deepEqual(report.outcome, { kind: "returned", value: "tool_disabled" });
      });
    } finally {
      assert.ok((await harness.retire()).confirmed);
    }
    assert.deepEqual(reports, ["gov"]);
  },
);

Deno.test("enabledTools exposes only the tools it names", async () => {
  const harness = await boot([governed("gov", { enabledTools: ["echo", "count"] })], QUICK);
  try {
    const generated = harness.modules.get("gov");
    assert.deepEqual([...(generated?.manifest.values() ?? [])], ["count", "echo"]);
    const denied = await harness.call("gov", "grow", {});
    assert.ok(!denied.ok && denied.error.kind === "tool_disabled", JSON.stringify(denied));
    const echoed = await harness.call("gov", "echo", { text: "hi" });
    assert.ok(echoed.ok, JSON.stringify(echoed));
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});

Deno.test("a name in a list that the server does not list is reported once at boot", async () => {
  const seen: string[] = [];
  const harness = await boot(
    [governed("gov", { enabledTools: ["echo", "ecko"], disabledTools: ["delete-all"] })],
    {
      ...QUICK,
      onServer: (report) => seen.push(JSON.stringify(report.state === "ready" && report.warnings)),
    },
  );
  try {
    const report = harness.reports.get("gov");
    assert.ok(report?.state === "ready");
    assert.deepEqual(report.warnings.map((w) => [w.kind, w.list, w.tool]), [
      ["unlisted_tool", "enabledTools", "ecko"],
      ["unlisted_tool", "disabledTools", "delete-all"],
    ]);
    assert.match(report.warnings[0]?.message ?? "", /lists no tool "ecko".*did you mean echo\?/);
    assert.match(report.warnings[1]?.message ?? "", /did you mean delete_all\?/);
    assert.equal(seen.length, 1, "told once, with the server's report");
    // A typo in enabledTools does not open everything: only echo is exposed.
    assert.deepEqual([...(harness.modules.get("gov")?.manifest.values() ?? [])], ["echo"]);
  } finally {
    assert.ok((await harness.retire()).confirmed);
  }
});
