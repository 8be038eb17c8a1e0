// The resident checker alone, warm, checks back to back and after a pause:
// what one type check costs once the compiler is loaded, for a one-call
// program against the echo fixture's module and against all four official
// servers' modules (tests/codegen/data/).
//
//   deno run -A bench/checker_warm.ts [checks]     (part of deno task bench)
//
// Prints p50 and p90 in milliseconds, and a bare JSON round trip to the
// checker's process (a scan of a one-line program) as the floor.

import { CAP_SOURCE } from "../_generated/sandbox_sources.ts";
import { generate } from "../codegen/generate.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { ResidentChecker } from "../runner/host/checker.ts";
import { quantile } from "./_mcp_clients.ts";

const CHECKS = Number(Deno.args[0] ?? "100");
const WARMUP = 20;
const OFFICIAL = ["everything", "filesystem", "memory", "sequential-thinking"];

function module(segment: string, tools: ToolDescriptor[]): [string, string] {
  const generated = generate(segment, tools);
  if (!generated.ok) throw new Error(generated.error.message);
  return [generated.value.moduleName, generated.value.source];
}

const echo = module("echo", [{
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
}]);
const official = await Promise.all(OFFICIAL.map(async (segment) => {
  const url = new URL(`../codegen/data/${segment}.json`, import.meta.url);
  const listing = JSON.parse(await Deno.readTextFile(url)) as { tools: ToolDescriptor[] };
  return module(segment.replaceAll("-", "_"), listing.tools);
}));

function program(n: number, withOfficial: boolean): string {
  const imports = withOfficial
    ? official.map(([path], index) => `import * as m${index} from "./${path}";\n`).join("") +
      `void [${official.map((_, index) => `m${index}`).join(", ")}];\n`
    : "";
  return `${imports}import { echo } from "./mcp/echo.ts";\n` +
    `const r = await echo({ text: "hi ${n}" });\nexport default r.text;\n`;
}

function files(n: number, withOfficial: boolean): [string, string][] {
  return [
    ["program.ts", program(n, withOfficial)],
    ["cap.ts", CAP_SOURCE],
    echo,
    ...(withOfficial ? official : []),
  ];
}

const checker = new ResidentChecker();
try {
  console.log(
    `Deno ${Deno.version.deno}, load ${Deno.loadavg().join(" ")}, ${CHECKS} checks a row`,
  );
  console.log("\n| row | p50 ms | p90 ms |\n| --- | ---: | ---: |");
  for (const withOfficial of [false, true]) {
    for (const pauseMs of [0, 400]) {
      for (let i = 0; i < WARMUP; i++) {
        const outcome = await checker.check(files(i, withOfficial), { timeoutMs: 60_000 });
        if (outcome.kind !== "passed") throw new Error(JSON.stringify(outcome));
      }
      const samples: number[] = [];
      const rounds = pauseMs === 0 ? CHECKS : Math.min(CHECKS, 30);
      for (let i = 0; i < rounds; i++) {
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        const started = performance.now();
        await checker.check(files(WARMUP + i, withOfficial), { timeoutMs: 60_000 });
        samples.push(performance.now() - started);
      }
      const what = withOfficial ? "echo + four official modules" : "echo";
      const how = pauseMs === 0 ? "back to back" : `${pauseMs} ms apart`;
      console.log(
        `| check, ${what}, ${how} | ${quantile(samples, 0.5).toFixed(1)} | ${
          quantile(samples, 0.9).toFixed(1)
        } |`,
      );
    }
  }
  const trips: number[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const started = performance.now();
    await checker.scan("export default 1;\n", { timeoutMs: 60_000 });
    trips.push(performance.now() - started);
  }
  console.log(
    `| round trip to the checker (a scan) | ${quantile(trips, 0.5).toFixed(2)} | ${
      quantile(trips, 0.9).toFixed(2)
    } |`,
  );
} finally {
  await checker.retire();
}
