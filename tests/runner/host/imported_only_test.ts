// Servers a program does not import cost it nothing: its type check is sent
// only the modules it imports (with cap.ts and tools.ts), and its sandbox's
// build root holds only those, however many servers the runner has.

import assert from "node:assert/strict";
import { ok } from "../../../codec/result.ts";
import {
  type CheckOptions,
  type CheckOutcome,
  ResidentChecker,
} from "../../../runner/host/checker.ts";
import type { RunModule } from "../../../runner/host/run.ts";
import { Runner } from "../../../runner/host/runner.ts";

function module(segment: string): RunModule {
  return {
    segment,
    source: 'import { invoke, type ToolResult } from "@loom/mcp/cap";\n' +
      "export function go(args: { n: number }): Promise<ToolResult> {\n" +
      `  return invoke("${segment}", "go", args);\n}\n`,
  };
}

const MODULES = new Map(
  Array.from({ length: 20 }, (_, i) => `server${i}`).map((name) => [name, module(name)]),
);

function call(server: string) {
  return Promise.resolve(
    ok({ content: [{ type: "text" as const, text: server }], isError: false }),
  );
}

/** A resident checker that records the files of each check. */
class RecordingChecker extends ResidentChecker {
  readonly checked: string[][] = [];

  override check(files: [string, string][], options: CheckOptions): Promise<CheckOutcome> {
    this.checked.push(files.map(([path]) => path));
    return super.check(files, options);
  }
}

const PROGRAM = 'import { go as a } from "./mcp/server3.ts";\n' +
  'import { go as b } from "./mcp/server11.ts";\n' +
  'import { go as c } from "./mcp/server17.ts";\n' +
  "const texts = await Promise.all([a({ n: 1 }), b({ n: 2 }), c({ n: 3 })]);\n" +
  "export default texts.map((result) => result.text);\n";

Deno.test("a program importing 3 of 20 servers is checked against those 3 alone", async () => {
  const checker = new RecordingChecker();
  const runner = new Runner({ modules: MODULES, call, checker });
  try {
    const report = await runner.run(PROGRAM);
    assert.deepEqual(report.outcome, {
      kind: "returned",
      value: ["server3", "server11", "server17"],
    });
    assert.deepEqual(checker.checked, [[
      "program.ts",
      "cap.ts",
      "tools.ts",
      "mcp/server3.ts",
      "mcp/server11.ts",
      "mcp/server17.ts",
    ]]);
  } finally {
    await runner.retire();
  }
});

Deno.test("a program's build root holds only the modules it imports", async () => {
  const runner = new Runner({ modules: MODULES, call });
  try {
    // Unchecked, so that it may look at its own build root.
    const report = await runner.run(
      PROGRAM.replace(
        "export default texts.map((result) => result.text);\n",
        "void texts;\n" +
          'export default [...Deno.readDirSync(new URL("./mcp/", import.meta.url))]\n' +
          "  .map((entry) => entry.name).sort();\n",
      ),
      { typeCheck: false },
    );
    assert.deepEqual(report.outcome, {
      kind: "returned",
      value: ["server11.ts", "server17.ts", "server3.ts"],
    });
  } finally {
    await runner.retire();
  }
});
