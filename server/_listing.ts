// Private to server/: the serve loop's `tools/list` listing: each tool as its
// descriptor says it on the wire, in the order of their names.

import type { JsonObject } from "../codec/json.ts";
import type { Tool } from "./tool.ts";

export function byName(a: Tool, b: Tool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function descriptor(tool: Tool): JsonObject {
  const out: JsonObject = { name: tool.name };
  if (tool.title !== undefined) out.title = tool.title;
  out.description = tool.description;
  out.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  return out;
}
