// Private to cli/: what --allow-tool and --deny-tool do to the servers, and
// how the command line says what a list left out. Each flag's tool is added
// to its server's `enabledTools` or `disabledTools` before the boot, for a
// catalog's server and an ad hoc one alike (so the catalog's own lists still
// hold, and a tool in both is denied); the library then leaves the tool out
// of the module and the surface, refuses a call to it as `tool_disabled`, and
// warns of a name its server does not list. Here those refusals and warnings
// are said in the words of where the list came from: the flag, or the
// catalog's table.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { identifierFor } from "../codegen/names.ts";
import type { BootWarning } from "../harness/mod.ts";
import type { ServerSpec } from "../settings/mod.ts";
import type { Common, ToolRef } from "./_args.ts";
import { printable, printableLine } from "./_render.ts";

/** The tools each flag names, by server name (the name the source gives it). */
export type ToolFlags = {
  allow: ReadonlyMap<string, readonly string[]>;
  deny: ReadonlyMap<string, readonly string[]>;
};

/** No flag given. */
export const NO_TOOL_FLAGS: ToolFlags = { allow: new Map(), deny: new Map() };

/** Where the servers came from, to check the flags' server names against. */
type Known = { origin: string; aliases: ReadonlyMap<string, string> };

/**
 * The specs with each flag's tool added to its server's list, and the flags
 * by server; a flag naming a server the source does not have is refused.
 */
export function applyToolFlags(
  specs: readonly ServerSpec[],
  common: Pick<Common, "allowTools" | "denyTools">,
  known: Known,
): Result<{ specs: ServerSpec[]; flags: ToolFlags }, string> {
  const names = new Set(specs.map((spec) => spec.name));
  const byServer = (flag: string, refs: readonly ToolRef[]) => {
    const found = new Map<string, string[]>();
    for (const ref of refs) {
      const server = known.aliases.get(ref.server) ?? ref.server;
      if (!names.has(server)) {
        const list = specs.length === 0 ? "none" : [...names].join(", ");
        return err(
          `--${flag} ${quote(`${ref.server}.${ref.tool}`)} names the server ${
            quote(ref.server)
          }, but ${printable(known.origin)} has no such server; its servers: ${list}`,
        );
      }
      found.set(server, [...(found.get(server) ?? []), ref.tool]);
    }
    return ok(found);
  };
  const allow = byServer("allow-tool", common.allowTools);
  if (!allow.ok) return allow;
  const deny = byServer("deny-tool", common.denyTools);
  if (!deny.ok) return deny;
  const flags: ToolFlags = { allow: allow.value, deny: deny.value };
  return ok({
    specs: specs.map((spec) => {
      const allowed = allow.value.get(spec.name);
      const denied = deny.value.get(spec.name);
      if (allowed === undefined && denied === undefined) return spec;
      const out: ServerSpec = { ...spec };
      if (allowed !== undefined) out.enabledTools = [...(spec.enabledTools ?? []), ...allowed];
      if (denied !== undefined) out.disabledTools = [...(spec.disabledTools ?? []), ...denied];
      return out;
    }),
    flags,
  });
}

// A flag names a tool by its wire name or by its function's name.
function names(given: string, wire: string): boolean {
  return given === wire || given === identifierFor(wire);
}

/**
 * A boot warning (a listed name the server does not list) in the words of
 * where the name came from: the flag when a flag gave it.
 */
export function warningText(server: string, warning: BootWarning, flags: ToolFlags): string {
  const flag = warning.list === "enabledTools" ? "allow-tool" : "deny-tool";
  const given = (warning.list === "enabledTools" ? flags.allow : flags.deny).get(server) ?? [];
  const message = printable(warning.message);
  if (!given.includes(warning.tool)) return message;
  const said = message.replace(`which its ${warning.list} names`, `which --${flag} names`);
  return said === message ? `${message} (given by --${flag} ${server}.${warning.tool})` : said;
}

/**
 * Why a tool is left out, for the refusal of a call to it: the --deny-tool
 * that names it, the catalog's `disabled_tools`, the --allow-tool list that
 * does not name it, or else the catalog's lists (`where`: its table and file).
 */
export function leftOutBy(
  spec: ServerSpec,
  wire: string,
  flags: ToolFlags,
  where: string | undefined,
): string {
  const server = spec.name;
  const tool = `tool ${quote(wire)} of ${quote(server)}`;
  const denied = flags.deny.get(server)?.find((given) => names(given, wire));
  if (denied !== undefined) {
    return `--deny-tool ${printableLine(`${server}.${denied}`)} leaves out ${tool}; ` +
      "drop that flag to call it";
  }
  const catalog = `the tool lists (enabled_tools, disabled_tools) of ${
    where ?? quote(server)
  } leave out ${tool}`;
  if (spec.disabledTools?.some((given) => names(given, wire))) return catalog;
  const allowed = flags.allow.get(server);
  if (allowed !== undefined && !allowed.some((given) => names(given, wire))) {
    return `--allow-tool names only ${allowed.map((name) => quote(name)).join(", ")} of ` +
      `${quote(server)}, which leaves out ${tool}; add --allow-tool ${
        printableLine(`${server}.${wire}`)
      } to call it`;
  }
  return catalog;
}

/**
 * What left a server's tools out, in a few words, for the count `tools`
 * shows: the flags, the catalog's lists (`listed`: whether its entry has
 * any), or both.
 */
export function leftOutWords(server: string, flags: ToolFlags, listed: boolean): string {
  const given = [flags.allow.has(server) && "--allow-tool", flags.deny.has(server) && "--deny-tool"]
    .filter((flag) => flag !== false);
  const lists = "its enabled_tools or disabled_tools";
  if (given.length === 0) return lists;
  return listed ? `${given.join(", ")} or ${lists}` : given.join(" and ");
}
