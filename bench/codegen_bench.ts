/**
 * Generation time for the largest listing of realistic tools the generator
 * accepts (past MAX_SURFACE_BYTES of surface it refuses one) and for
 * MAX_TOOLS of them, refused; and, for each official server's real listing,
 * its surface size as a share of its raw tools/list JSON.
 */

import { decodeToolsPage, parseJson } from "../codec/mod.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import { generate, MAX_SURFACE_BYTES, MAX_TOOLS } from "../codegen/mod.ts";

const REAL = ["everything", "filesystem", "memory", "sequential-thinking"];
const DATA = new URL("../tests/codegen/data/", import.meta.url);

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

// Tools drawn round-robin from the real listings, renamed apart.
const pool = REAL.flatMap((server) => realTools(server).tools);
const drawn = (count: number): ToolDescriptor[] =>
  Array.from({ length: count }, (_, i) => {
    const tool = pool[i % pool.length]!;
    return { ...tool, name: `${tool.name}_${i}` };
  });

// The most of them a module can be made of: past MAX_SURFACE_BYTES the
// generator refuses the listing, as it does MAX_TOOLS of these tools.
let fits = 0;
for (let low = 1, high = MAX_TOOLS; low <= high;) {
  const middle = (low + high) >> 1;
  if (generate("bench", drawn(middle)).ok) {
    fits = middle;
    low = middle + 1;
  } else {
    high = middle - 1;
  }
}
const listing = drawn(fits);
const tooLarge = drawn(MAX_TOOLS);

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
    `${fits} tools (the most that fit ${MAX_SURFACE_BYTES} bytes of surface): source ` +
      `${result.value.source.length} chars, surface ` +
      `${new TextEncoder().encode(result.value.surface).length} B`,
  );
  const refused = generate("bench", tooLarge);
  if (refused.ok) throw new Error(`${MAX_TOOLS} tools were not refused`);
  console.log(`${MAX_TOOLS} tools: refused (${refused.error.kind})`);
}

Deno.bench(`generate() ${fits} tools with realistic schemas, the most that fit`, () => {
  const result = generate("bench", listing);
  if (!result.ok) throw new Error(result.error.message);
});

Deno.bench(`generate() ${MAX_TOOLS} tools, refused past MAX_SURFACE_BYTES`, () => {
  const result = generate("bench", tooLarge);
  if (result.ok) throw new Error("not refused");
});

Deno.bench("generate() the filesystem server's real listing", () => {
  generate("filesystem", realTools("filesystem").tools);
});
