/**
 * Generation time for a listing of MAX_TOOLS tools with realistic schemas,
 * and, for each official server's real listing, its surface size as a share
 * of its raw tools/list JSON.
 */

import { decodeToolsPage, parseJson } from "../../codec/mod.ts";
import type { ToolDescriptor } from "../../codec/protocol.ts";
import { generate, MAX_TOOLS } from "../../codegen/mod.ts";

const REAL = ["everything", "filesystem", "memory", "sequential-thinking"];
const DATA = new URL("../codegen/data/", import.meta.url);

function realTools(server: string): { tools: ToolDescriptor[]; rawBytes: number } {
  const parsed = parseJson(Deno.readTextFileSync(new URL(`${server}.json`, DATA)));
  if (!parsed.ok) throw new Error(parsed.error.message);
  const page = decodeToolsPage(parsed.value);
  if (!page.ok) throw new Error(page.error.message);
  // The wire form is compact JSON, one line.
  const rawBytes = new TextEncoder().encode(JSON.stringify(JSON.parse(
    Deno.readTextFileSync(new URL(`${server}.json`, DATA)),
  ))).length;
  return { tools: page.value.tools, rawBytes };
}

// MAX_TOOLS tools drawn round-robin from the real listings, renamed apart.
const pool = REAL.flatMap((server) => realTools(server).tools);
const listing: ToolDescriptor[] = Array.from({ length: MAX_TOOLS }, (_, i) => {
  const tool = pool[i % pool.length]!;
  return { ...tool, name: `${tool.name}_${i}` };
});

for (const server of REAL) {
  const { tools, rawBytes } = realTools(server);
  const result = generate(server, tools);
  if (!result.ok) throw new Error(result.error.message);
  const surfaceBytes = new TextEncoder().encode(result.value.surface).length;
  console.log(
    `${server}: ${tools.length} tool(s), surface ${surfaceBytes} B / raw ${rawBytes} B = ` +
      `${(surfaceBytes / rawBytes).toFixed(3)}`,
  );
}
{
  const result = generate("bench", listing);
  if (!result.ok) throw new Error(result.error.message);
  console.log(
    `${MAX_TOOLS} tools: source ${result.value.source.length} chars, surface ` +
      `${new TextEncoder().encode(result.value.surface).length} B`,
  );
}

Deno.bench(`generate() ${MAX_TOOLS} tools with realistic schemas`, () => {
  const result = generate("bench", listing);
  if (!result.ok) throw new Error(result.error.message);
});

Deno.bench("generate() the filesystem server's real listing", () => {
  generate("filesystem", realTools("filesystem").tools);
});
