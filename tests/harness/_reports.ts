// Boot reports made in process, without servers: each listing group of
// tests/fixtures/_listings.ts generated as boot would, with the server info
// a replay server gives. For the tests of the surface, search and describe.

import type { ToolDescriptor } from "../../codec/protocol.ts";
import { generate } from "../../codegen/generate.ts";
import type { ServerInfo } from "../../client/errors.ts";
import type { ServerReport } from "../../harness/types.ts";
import { groupTools, LISTING_GROUPS, type ListingGroup } from "../fixtures/_listings.ts";

/** The server info of a server named `name` that says `instructions`. */
export function infoOf(name: string, instructions?: string): ServerInfo {
  return {
    protocolVersion: "2025-11-25",
    era: "legacy",
    capabilities: { tools: {} },
    serverInfo: { name, version: "1.0.0" },
    ...(instructions === undefined ? {} : { instructions }),
  };
}

/** The ready report of a server that listed `tools`. */
export function readyReport(
  name: string,
  tools: readonly ToolDescriptor[],
  info: ServerInfo = infoOf(name),
): ServerReport {
  const generated = generate(name, tools);
  if (!generated.ok) throw new Error(generated.error.message);
  return {
    state: "ready",
    name,
    info,
    tools,
    generated: generated.value,
    withheld: new Map(),
    warnings: [],
    elapsedMs: 0,
  };
}

/** The reports of the listing groups, in catalog order, as boot would make them. */
export function listingReports(
  groups: readonly ListingGroup[] = LISTING_GROUPS,
): Map<string, ServerReport> {
  return new Map(groups.map((group) => [
    group.name,
    readyReport(
      group.name,
      groupTools(group) as unknown as ToolDescriptor[],
      infoOf(group.name, group.instructions),
    ),
  ]));
}
