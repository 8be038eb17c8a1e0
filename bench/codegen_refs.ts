/**
 * Generation time for listings whose input schemas are strongly connected
 * `$ref` graphs (every definition reaches every other), the shape whose
 * definition keys once cost the square of the schema's size: one tool, and
 * sixteen tools each holding the same graph, p50 ms over the rounds, this
 * checkout beside `--against DIR` (another checkout) in alternating order.
 *
 *   deno run -A bench/codegen_refs.ts [rounds] [--against DIR]
 */

import type { ToolDescriptor } from "../codec/protocol.ts";
import { inTurn, treesAgainst } from "./_trees.ts";

const rounds = Number(Deno.args.find((arg) => /^\d+$/.test(arg)) ?? 3);
const at = Deno.args.indexOf("--against");
const trees = treesAgainst(at === -1 ? undefined : Deno.args[at + 1]);

/** `count` tools, each an object whose one property refers into `size` definitions of ten refs. */
function denseListing(count: number, size: number): ToolDescriptor[] {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) {
    const properties = Object.fromEntries(
      Array.from(
        { length: 10 },
        (_, j) => [`p${j}`, { $ref: `#/$defs/d${(i * 7 + j * 13) % size}` }],
      ),
    );
    defs[`d${i}`] = { type: "object", properties };
  }
  return Array.from({ length: count }, (_, k) => ({
    name: `t${k}`,
    inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/d0" } }, $defs: defs },
  })) as unknown as ToolDescriptor[];
}

type Generate = (server: string, tools: readonly ToolDescriptor[]) => { ok: boolean };
const generators = new Map<string, Generate>();
for (const tree of trees) {
  generators.set(tree, (await import(`${tree}codegen/mod.ts`)).generate as Generate);
}

const cases: [string, ToolDescriptor[]][] = [
  ["1 tool, 200 definitions", denseListing(1, 200)],
  ["16 tools, 200 definitions each", denseListing(16, 200)],
];
const samples = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const tree of inTurn(trees, round)) {
    for (const [name, tools] of cases) {
      const started = performance.now();
      const generated = generators.get(tree)!("bench", tools);
      const ms = performance.now() - started;
      if (!generated.ok) throw new Error(`${tree}: ${name} was not generated`);
      const key = `${tree}\0${name}`;
      samples.set(key, [...(samples.get(key) ?? []), ms]);
    }
  }
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1] ?? NaN;
console.log(
  `| listing | ${trees.map((tree, i) => i === 0 ? "this checkout" : tree).join(" | ")} |`,
);
console.log(`| --- | ${trees.map(() => "---:").join(" | ")} |`);
for (const [name] of cases) {
  const cells = trees.map((tree) => median(samples.get(`${tree}\0${name}`) ?? []).toFixed(1));
  console.log(`| ${name}, p50 ms | ${cells.join(" | ")} |`);
}
