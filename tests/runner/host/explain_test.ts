import assert from "node:assert/strict";
import { decodeToolsPage, parseJson } from "../../../codec/mod.ts";
import { generate } from "../../../codegen/mod.ts";
import {
  explainDiagnostics,
  MAX_LISTED_EXPORTS,
  unrootText,
} from "../../../runner/host/_explain.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { runProgram } from "../../../runner/host/runner.ts";

const EXPORTS = new Map([["everything", ["echo", "get_env", "get_sum"]]]);

function explain(message: string, exports = EXPORTS) {
  const [shown] = explainDiagnostics([{ file: "program.ts", line: 1, column: 10, message }], {
    exports,
    hostRoots: ["file:///tmp/loom-run-0123/root/", "/tmp/loom-run-0123/root/"],
  });
  return shown?.message;
}

Deno.test("explainDiagnostics() names the closest export of a missing one", async (t) => {
  const table: [string, string][] = [
    [
      `'"file:///tmp/loom-run-0123/root/mcp/everything.ts"' has no exported member named ` +
      `'getSum'. Did you mean 'get_sum'?`,
      'Module "./mcp/everything.ts" has no export "getSum"; did you mean get_sum?',
    ],
    [
      `Module '"file:///tmp/loom-run-0123/root/mcp/everything.ts"' has no exported member 'Echo'.`,
      'Module "./mcp/everything.ts" has no export "Echo"; did you mean echo?',
    ],
    [
      `Property 'getEnv' does not exist on type 'typeof import("file:///tmp/loom-run-0123/root/` +
      `mcp/everything.ts", { with: { "resolution-mode": "import" } })'. Did you mean 'get_env'?`,
      'Module "./mcp/everything.ts" has no export "getEnv"; did you mean get_env?',
    ],
  ];
  for (const [message, expected] of table) {
    await t.step(expected, () => assert.equal(explain(message), expected));
  }
});

Deno.test("explainDiagnostics() names the export that shares a word with a missing one", () => {
  const message = `Module '"./mcp/everything.ts"' has no exported member 'sumOfNumbers'.`;
  assert.equal(
    explain(message),
    'Module "./mcp/everything.ts" has no export "sumOfNumbers"; did you mean get_sum?',
  );
});

Deno.test("explainDiagnostics() lists a module's exports when none is close", () => {
  const message = `Module '"./mcp/everything.ts"' has no exported member 'launchRockets'.`;
  assert.equal(
    explain(message),
    'Module "./mcp/everything.ts" has no export "launchRockets"; its exports are echo, get_env, get_sum',
  );
  const many = new Map([["everything", Array.from({ length: 20 }, (_, i) => `tool_${i}`)]]);
  assert.match(explain(message, many) ?? "", new RegExp(`and ${20 - MAX_LISTED_EXPORTS} more$`));
});

Deno.test("unrootText() leaves no host path of a build root", () => {
  const text = "at file:///tmp/loom-run-ab12/root/mcp/x.ts and /var/tmp/loom-run-cd34/cache/deps";
  assert.equal(unrootText(text, []), "at ./mcp/x.ts and ./cache/deps");
  assert.equal(unrootText("/r/root/program.ts", ["/r/root/"]), "./program.ts");
});

function everything(): RunModule {
  const parsed = parseJson(
    Deno.readTextFileSync(new URL("../../codegen/data/everything.json", import.meta.url)),
  );
  assert.ok(parsed.ok);
  const page = decodeToolsPage(parsed.value);
  assert.ok(page.ok);
  const generated = generate("everything", page.value.tools);
  assert.ok(generated.ok);
  return generated.value;
}

Deno.test("a camelCased guess is rejected with a did-you-mean and no host path", async () => {
  const report = await runProgram(
    'import { getSum } from "./mcp/everything.ts";\nexport default await getSum({ a: 1, b: 2 });',
    { modules: new Map([["everything", everything()]]), call: () => Promise.reject() },
  );
  assert.equal(report.outcome.kind, "rejected", JSON.stringify(report.outcome));
  assert.ok(report.outcome.kind === "rejected");
  const [first] = report.outcome.diagnostics;
  assert.equal(first?.file, "program.ts");
  assert.equal(first?.line, 1);
  assert.match(first?.message ?? "", /has no export "getSum"; did you mean get_sum\?$/);
  const whole = JSON.stringify(report);
  assert.doesNotMatch(whole, /loom-run-|file:\/\/|\/tmp\//);
});
