// The resident checkers of two checkouts of this library against each other,
// in one process, alternating check by check: how a change to the checker is
// measured on a machine whose load moves absolute figures by 2x.
//
//   deno run -A bench/checker_ab.ts <checkout A> <checkout B> [checks]
//
// Each checker checks the echo program (one call) against its generated
// module and `cap.ts`, warm, with a 50 ms pause before each check. Prints the
// p50 and p90 of each, in milliseconds.

import { CAP_SOURCE } from "../_generated/sandbox_sources.ts";
import { generate } from "../codegen/generate.ts";
import { median, quantile } from "./_mcp_clients.ts";

const [treeA, treeB, checksText = "60"] = Deno.args;
if (treeA === undefined || treeB === undefined) {
  throw new TypeError("Cannot compare: name two checkouts, e.g. /work/main /work/wt/mine");
}
const WARMUP = 5;

type Checker = {
  check(files: [string, string][], options: { timeoutMs: number }): Promise<{ kind: string }>;
  retire(): Promise<void>;
};

async function checker(root: string): Promise<Checker> {
  const url = new URL(`${root.replace(/\/$/, "")}/runner/checker.ts`, "file:///");
  const { ResidentChecker } = await import(url.href);
  return new ResidentChecker() as Checker;
}

const generated = generate("echo", [{
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
}]);
if (!generated.ok) throw new Error(generated.error.message);
const fn = [...generated.value.manifest.keys()][0];
const files: [string, string][] = [
  [
    "program.ts",
    `import { ${fn} } from "./mcp/echo.ts";\nexport default (await ${fn}({ text: "a" })).text;\n`,
  ],
  ["cap.ts", CAP_SOURCE],
  ["mcp/echo.ts", generated.value.source],
];

const sides = [
  { name: treeA, checker: await checker(treeA), samples: [] as number[] },
  { name: treeB, checker: await checker(treeB), samples: [] as number[] },
];
try {
  for (let round = 0; round < WARMUP + Number(checksText); round++) {
    for (const side of round % 2 === 0 ? sides : sides.toReversed()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      const outcome = await side.checker.check(files, { timeoutMs: 60_000 });
      const ms = performance.now() - started;
      if (outcome.kind !== "passed") throw new Error(JSON.stringify(outcome));
      if (round >= WARMUP) side.samples.push(ms);
    }
  }
  for (const side of sides) {
    console.log(
      `${side.name}: p50 ${median(side.samples).toFixed(1)} ms, ` +
        `p90 ${quantile(side.samples, 0.9).toFixed(1)} ms (${side.samples.length} checks)`,
    );
  }
} finally {
  for (const side of sides) await side.checker.retire();
}
