// A fresh resident checker's first checks of programs as a model writes
// them, after it has sat idle for a while (the servers starting, or the
// model writing its program), this tree's checker against another
// checkout's with `--against DIR`, taking turns round by round, each round
// in fresh processes. Prints the p50 of: the process's start to its first
// answer (a scan), the check `Runner.prepare` sends (every module
// imported), a first program (array methods, promises, a Map), then a
// second of other kinds (a class, generics, a switch, regular expressions,
// narrowing JSON), then the first again with one change, and the process's
// resident memory a second after.
//
//   deno run -A bench/checker_first_check.ts [rounds] [--idle-ms N] [--against DIR]
//                                                    (default 7 rounds, 1000 ms idle)

import { parseArgs } from "node:util";
import { CAP_SOURCE, TOOLS_SOURCE } from "../_generated/sandbox_sources.ts";
import { generate } from "../codegen/generate.ts";
import { vouchedOf } from "../runner/host/_course.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { median, processRssMib } from "./_mcp_clients.ts";
import { inTurn, treesAgainst } from "./_trees.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" }, "idle-ms": { type: "string" } },
  allowPositionals: true,
});
const ROUNDS = Number(positionals[0] ?? 7);
const IDLE_MS = Number(values["idle-ms"] ?? 1_000);
const TREES = treesAgainst(values.against);

const TOOLS: ToolDescriptor[] = [
  {
    name: "list_issues",
    description: "Lists the issues of a repository.",
    inputSchema: {
      type: "object",
      properties: {
        repo: { type: "string" },
        state: { type: "string", enum: ["open", "closed", "all"] },
        labels: { type: "array", items: { type: "string" } },
      },
      required: ["repo"],
    },
    outputSchema: {
      type: "object",
      properties: {
        issues: {
          type: "array",
          items: {
            type: "object",
            properties: {
              number: { type: "integer" },
              title: { type: "string" },
              labels: { type: "array", items: { type: "string" } },
              comments: { type: "integer" },
            },
            required: ["number", "title"],
          },
        },
      },
      required: ["issues"],
    },
  },
  {
    name: "add_comment",
    description: "Comments on an issue.",
    inputSchema: {
      type: "object",
      properties: {
        repo: { type: "string" },
        number: { type: "integer" },
        body: { type: "string" },
      },
      required: ["repo", "number", "body"],
    },
  },
  {
    name: "read_file",
    description: "Reads a file.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
] as ToolDescriptor[];
const generated = generate("tracker", TOOLS);
if (!generated.ok) throw new Error(generated.error.message);
const MODULE: [string, string] = [generated.value.moduleName, generated.value.source];

const FIRST = (label: string) =>
  `import { add_comment, list_issues } from "./mcp/tracker.ts";
const listed = await list_issues({ repo: "acme/app", state: "open", labels: ["${label}"] });
const issues = listed.structuredContent.issues;
const busy = issues.filter((issue) => (issue.comments ?? 0) > 3).map((issue) => issue.number);
const byLabel = new Map<string, number[]>();
for (const issue of issues) {
  for (const label of issue.labels ?? []) byLabel.set(label, [...(byLabel.get(label) ?? []), issue.number]);
}
const titles = issues.map(({ number, title }) => \`#\${number} \${title.trim()}\`).sort();
await Promise.all(busy.slice(0, 2).map((number) => add_comment({ repo: "acme/app", number, body: "triaged" })));
export default { busy, titles: titles.slice(0, 5), labels: Object.fromEntries(byLabel) };
`;

const SECOND = `import { read_file } from "./mcp/tracker.ts";
class Tally<K extends string> {
  #counts = new Map<K, number>();
  add(key: K, by = 1): this {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + by);
    return this;
  }
  top(n: number): [K, number][] {
    return [...this.#counts].sort(([, a], [, b]) => b - a).slice(0, n);
  }
}
type Kind = "code" | "doc" | "other";
function kindOf(path: string): Kind {
  switch (path.split(".").pop()) {
    case "ts":
    case "js":
      return "code";
    case "md":
      return "doc";
    default:
      return "other";
  }
}
const text = (await read_file({ path: "package.json" })).text;
let data: unknown;
try {
  data = JSON.parse(text);
} catch {
  data = null;
}
const files = typeof data === "object" && data !== null && "files" in data && Array.isArray(data.files)
  ? data.files.filter((file): file is string => typeof file === "string")
  : [];
const tally = new Tally<Kind>();
let index = 0;
while (index < files.length) tally.add(kindOf(files[index++]!));
const words = text.replace(/[^a-z]+/gi, " ").toLowerCase().split(" ").filter(Boolean);
export default { top: tally.top(2), words: new Set(words).size } as const;
`;

function files(program: string, modules: [string, string][]): [string, string][] {
  return [["program.ts", program], ["cap.ts", CAP_SOURCE], ["tools.ts", TOOLS_SOURCE], ...modules];
}

const STEPS = [
  "start to the first answer",
  "the check `Runner.prepare` sends",
  "a first program",
  "a second, of other kinds",
  "the first again, changed",
  "the process 1 s after, MiB",
];

type Checker = {
  start(): void;
  scan(source: string, options: { timeoutMs: number }): Promise<unknown>;
  check(
    files: [string, string][],
    options: { timeoutMs: number; vouched?: string[] },
  ): Promise<{ kind: string }>;
  retire(): Promise<void>;
  stats(): { pid: number | undefined };
};

async function round(tree: string): Promise<number[]> {
  const { ResidentChecker } = await import(`${tree}runner/host/checker.ts`);
  const checker: Checker = new ResidentChecker();
  const figures: number[] = [];
  try {
    let started = performance.now();
    checker.start();
    await checker.scan("export default 1;\n", { timeoutMs: 60_000 });
    figures.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const programs = [
      `import "./${MODULE[0]}";\nexport {};\n`,
      FIRST("bug"),
      SECOND,
      FIRST("feature"),
    ];
    for (const program of programs) {
      const input = files(program, [MODULE]);
      started = performance.now();
      const outcome = await checker.check(input, { timeoutMs: 60_000, vouched: vouchedOf(input) });
      figures.push(performance.now() - started);
      if (outcome.kind !== "passed") throw new Error(JSON.stringify(outcome).slice(0, 600));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    figures.push(processRssMib(checker.stats().pid));
    return figures;
  } finally {
    await checker.retire();
  }
}

const samples = new Map<string, number[][]>();
for (let index = 0; index < ROUNDS; index++) {
  for (const tree of inTurn(TREES, index)) {
    samples.set(tree, [...(samples.get(tree) ?? []), await round(tree)]);
  }
}
console.log(
  `Deno ${Deno.version.deno}, load ${Deno.loadavg().join(" ")}, ${ROUNDS} rounds, ` +
    `${IDLE_MS} ms idle after the first answer, p50 ms`,
);
console.log(`\n| a fresh checker | ${TREES.join(" | ")} |`);
console.log(`| --- | ${TREES.map(() => "---:").join(" | ")} |`);
for (const [step, name] of STEPS.entries()) {
  const cells = TREES.map((tree) =>
    median((samples.get(tree) ?? []).map((row) => row[step] ?? 0)).toFixed(1)
  );
  console.log(`| ${name} | ${cells.join(" | ")} |`);
}
