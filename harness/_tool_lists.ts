// Private to harness/: which listed tools a server's spec allows, by its
// `enabledTools` (only these) and `disabledTools` (never these, applied
// after). A name in a list matches a tool by its wire name or, when no
// tool has it as its wire name, by its function's name in the generated module. A name that matches no listed
// tool is a warning of the boot (a typo in `disabledTools` would otherwise
// silently leave the tool exposed).

import type { ToolDescriptor } from "../codec/protocol.ts";
import { quote } from "../codec/quote.ts";
import { closestNames, identifierFor } from "../codegen/names.ts";
import type { ServerSpec } from "../settings/mod.ts";
import type { BootWarning } from "./types.ts";

/** The wire names of the listed tools the lists leave out, and the names that matched nothing. */
export type ListVerdict = { disabled: Set<string>; warnings: BootWarning[] };

/** Judges a listing by the spec's lists (see the module doc). */
export function judgeLists(spec: ServerSpec, tools: readonly ToolDescriptor[]): ListVerdict {
  const byName = new Map<string, string[]>();
  for (const tool of tools) {
    const name = identifierFor(tool.name);
    byName.set(name, [...(byName.get(name) ?? []), tool.name]);
  }
  // A listed wire name names that tool alone, even where another tool's
  // function shares it: enabling "delete_all" never enables "delete-all".
  for (const tool of tools) byName.set(tool.name, [tool.name]);
  const warnings: BootWarning[] = [];
  const matched = (list: "enabledTools" | "disabledTools"): Set<string> | undefined => {
    const names = spec[list];
    if (names === undefined) return undefined;
    const wires = new Set<string>();
    for (const name of new Set(names)) {
      const found = byName.get(name);
      if (found !== undefined) {
        for (const wire of found) wires.add(wire);
        continue;
      }
      const close = closestNames(name, tools.map((tool) => tool.name));
      warnings.push({
        kind: "unlisted_tool",
        list,
        tool: name,
        message: `Server ${quote(spec.name)} lists no tool ${quote(name)}, which its ${list} ` +
          `names; check the spelling` +
          (close.length === 0 ? "" : ` (did you mean ${close.join(", ")}?)`),
      });
    }
    return wires;
  };
  const enabled = matched("enabledTools");
  const disabled = matched("disabledTools") ?? new Set<string>();
  if (enabled !== undefined) {
    for (const tool of tools) if (!enabled.has(tool.name)) disabled.add(tool.name);
  }
  return { disabled, warnings };
}
