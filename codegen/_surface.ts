/**
 * Rendering one server's block of the surface: a header line, one line per
 * callable tool in `name(args: Type): Promise<ToolResult<Result>>  // what it
 * does` form, and the comment line naming the tools left out.
 *
 * @module
 */

import type { ToolDescriptor } from "../codec/protocol.ts";
import { MAX_SURFACE_DESCRIPTION_CHARS, sanitize, truncate } from "./text.ts";
import { renderObject } from "./_types.ts";
import { type Entry, type Omission, omissionLine } from "./_module.ts";

/** Renders the surface block of one server. */
export function renderSurface(
  server: string,
  entries: readonly Entry[],
  omitted: readonly Omission[],
): string {
  const count = `${entries.length} tool${entries.length === 1 ? "" : "s"}` +
    (omitted.length === 0 ? "" : `, ${omitted.length} left out`);
  const lines = [`// mcp/${server}.ts (server "${server}", ${count})`];
  for (const { identifier, tool, plan: planned, result } of entries) {
    const args = planned.kind === "whole_value" ? "JsonObject" : renderObject(
      planned.params,
      "surface",
    );
    const returns = result.kind === "typed"
      ? `ToolResult<${renderObject(result.params, "surface")}>`
      : result.kind === "untyped"
      ? "ToolResult<JsonValue>"
      : "ToolResult";
    const summary = summaryOf(tool);
    lines.push(
      `${identifier}(args: ${args}): Promise<${returns}>` +
        (summary.length > 0 ? `  // ${summary}` : ""),
    );
  }
  const left = omissionLine(omitted);
  if (left !== "") lines.push(left);
  return lines.join("\n") + "\n";
}

function summaryOf(tool: ToolDescriptor): string {
  return truncate(sanitize(tool.description ?? tool.title ?? ""), MAX_SURFACE_DESCRIPTION_CHARS);
}
