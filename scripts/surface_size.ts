/**
 * Prints, for each official server's recorded listing
 * (`tests/codegen/data/*.json`), the raw `tools/list` bytes beside the bytes
 * of the surface block and of the module generated from it.
 *
 * Run: `deno run --allow-read scripts/surface_size.ts`
 *
 * @module
 */

import { decodeToolsPage, parseJson } from "../codec/mod.ts";
import { generate } from "../codegen/mod.ts";

const SERVERS = ["everything", "filesystem", "memory", "sequential-thinking"];
const DATA = new URL("../tests/codegen/data/", import.meta.url);
const bytes = (text: string) => new TextEncoder().encode(text).length;

const rows = [[
  "server",
  "tools",
  "listing bytes",
  "surface bytes",
  "surface/listing",
  "module bytes",
]];
for (const server of SERVERS) {
  const text = await Deno.readTextFile(new URL(`${server}.json`, DATA));
  const parsed = parseJson(text);
  if (!parsed.ok) throw new Error(`${server}.json is not JSON: ${parsed.error.message}`);
  const page = decodeToolsPage(parsed.value);
  if (!page.ok) throw new Error(`${server}.json is not a tools/list page: ${page.error.message}`);
  const generated = generate(server, page.value.tools);
  if (!generated.ok) throw new Error(generated.error.message);
  const raw = bytes(JSON.stringify(JSON.parse(text)));
  const surface = bytes(generated.value.surface);
  rows.push([
    server,
    String(page.value.tools.length),
    String(raw),
    String(surface),
    `${(100 * surface / raw).toFixed(1)}%`,
    String(bytes(generated.value.source)),
  ]);
}
const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
for (const row of rows) console.log(row.map((cell, i) => cell.padStart(widths[i]!)).join("  "));
