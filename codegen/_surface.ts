/**
 * Rendering one server's block of the surface: a header line, one line per
 * callable tool in `name(args: Type): Promise<ToolResult<Result>>  // what it
 * does` form, one `type Name = ...` line per type alias the signatures name,
 * and the comment line naming the tools left out.
 *
 * Server text here sits in `//` line comments, which nothing but a line break
 * ends, so it reads as the server wrote it but for what {@linkcode sanitizeLine}
 * takes out.
 *
 * @module
 */

import type { ToolDescriptor } from "../codec/protocol.ts";
import { MAX_SURFACE_DESCRIPTION_CHARS, sanitizeLine, truncate } from "./text.ts";
import type { AliasTable } from "./_aliases.ts";
import { renderMembers, renderType } from "./_types.ts";
import {
  type Entry,
  namesAt,
  type Omission,
  omissionLine,
  READ_RESOURCE_SUMMARY,
} from "./_module.ts";

/** Renders the surface block of one server. */
export function renderSurface(
  server: string,
  entries: readonly Entry[],
  omitted: readonly Omission[],
  table: AliasTable,
  resources = false,
): string {
  const count = `${entries.length} tool${entries.length === 1 ? "" : "s"}` +
    (omitted.length === 0 ? "" : `, ${omitted.length} left out`);
  const lines = [`// mcp/${server}.ts (server "${server}", ${count})`];
  entries.forEach(({ identifier, tool, plan: planned, result }, i) => {
    const [input, output] = namesAt(table, i);
    const args = planned.kind === "whole_value"
      ? "JsonObject"
      : renderMembers(planned.params, planned.additional, { mode: "surface", names: input });
    const returns = result.kind === "typed"
      ? `ToolResult<${renderType(result.type, { mode: "surface", names: output })}>`
      : result.kind === "untyped"
      ? "ToolResult<JsonValue>"
      : "ToolResult";
    const summary = summaryOf(tool);
    lines.push(
      `${identifier}(args: ${args}): Promise<${returns}>` +
        (summary.length > 0 ? `  // ${summary}` : ""),
    );
  });
  if (resources) {
    lines.push(`read_resource(uri: string): Promise<ResourceResult>  // ${READ_RESOURCE_SUMMARY}`);
  }
  const aliases = [...table.aliases].sort((a, b) => a.identifier < b.identifier ? -1 : 1);
  for (const { identifier, definition, names } of aliases) {
    lines.push(`type ${identifier} = ${renderType(definition.type, { mode: "surface", names })}`);
  }
  const left = omissionLine(omitted);
  if (left !== "") lines.push(left);
  return lines.join("\n") + "\n";
}

/** What a summary cut for the surface says of where the whole text is. */
const SURFACE_CUT_POINTER = " (the whole text: describe)";

function summaryOf(tool: ToolDescriptor): string {
  const clean = sanitizeLine(tool.description ?? tool.title ?? "");
  if (Array.from(clean).length <= MAX_SURFACE_DESCRIPTION_CHARS) return clean;
  const room = MAX_SURFACE_DESCRIPTION_CHARS - SURFACE_CUT_POINTER.length;
  return truncate(clean, room) + SURFACE_CUT_POINTER;
}
