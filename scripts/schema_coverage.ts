/**
 * Prints, for every real listing in a folder (default
 * `tests/corpus/servers/`, a copy of the shared corpus), how many schema
 * nodes of its input and output schemas constrain their value and how many of
 * them the generated module renders as `JsonValue`, and how many top-level
 * input schemas accept any object yet take no argument
 * (`scripts/_schema_coverage.ts` says what counts).
 *
 * Run: `deno run --allow-read scripts/schema_coverage.ts [folder]`; add
 * `--json` for the figures as JSON, and `--before <file.json>` to print them
 * beside figures saved by an earlier `--json` run.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { decodeToolsPage, isJsonObject, parseJson } from "../codec/mod.ts";
import { type Coverage, schemaCoverage } from "./_schema_coverage.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { json: { type: "boolean" }, before: { type: "string" } },
  allowPositionals: true,
});
const folder = positionals[0] ?? new URL("../tests/corpus/servers/", import.meta.url).pathname;

const figures: Record<string, Coverage> = {};
const files = [...Deno.readDirSync(folder)]
  .map((entry) => entry.name)
  .filter((name) => name.endsWith(".tools.json"))
  .sort();
for (const file of files) {
  const parsed = parseJson(await Deno.readTextFile(`${folder}/${file}`));
  if (!parsed.ok || !isJsonObject(parsed.value)) throw new Error(`${file} is not a JSON object`);
  const page = decodeToolsPage({ tools: parsed.value.tools ?? null });
  if (!page.ok) throw new Error(`${file} holds no tools/list page: ${page.error.message}`);
  figures[file.replace(/\.tools\.json$/, "")] = schemaCoverage(page.value.tools);
}

if (values.json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const before: Record<string, Coverage> = values.before === undefined
    ? {}
    : JSON.parse(await Deno.readTextFile(values.before));
  const cell = (now: number, then: number | undefined) =>
    then === undefined || then === now ? `${now}` : `${then} → ${now}`;
  const rows = [[
    "server",
    "input nodes",
    "input JsonValue",
    "open read closed",
    "output nodes",
    "output JsonValue",
  ]];
  const total: Coverage = {
    input: { constraining: 0, untyped: 0, openReadClosed: 0, untypedAt: [] },
    output: { constraining: 0, untyped: 0, openReadClosed: 0, untypedAt: [] },
  };
  const totalBefore: Coverage = structuredClone(total);
  for (const [server, now] of [...Object.entries(figures), ["total", total] as const]) {
    const then = server === "total" ? totalBefore : before[server];
    if (server !== "total") {
      for (const side of ["input", "output"] as const) {
        for (const key of ["constraining", "untyped", "openReadClosed"] as const) {
          total[side][key] += now[side][key];
          totalBefore[side][key] += then?.[side][key] ?? now[side][key];
        }
      }
    }
    rows.push([
      server,
      cell(now.input.constraining, then?.input.constraining),
      cell(now.input.untyped, then?.input.untyped),
      cell(now.input.openReadClosed, then?.input.openReadClosed),
      cell(now.output.constraining, then?.output.constraining),
      cell(now.output.untyped, then?.output.untyped),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(rows[0]!));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows.slice(1)) console.log(line(row));
}
