// Private to harness/: the surface, what the model reads: the program
// convention, then every ready server's block, in catalog order.

import type { Generated } from "../codegen/generate.ts";
import { PROGRAM_CONVENTION } from "../runner/host/run.ts";

/** The surface of these modules. */
export function renderSurface(modules: ReadonlyMap<string, Generated>): string {
  const blocks = [...modules.values()].map((generated) => generated.surface.trimEnd());
  const header = PROGRAM_CONVENTION.trimEnd();
  return blocks.length === 0
    ? `${header}\n\n// No MCP server is available.\n`
    : `${header}\n\n${blocks.join("\n\n")}\n`;
}
