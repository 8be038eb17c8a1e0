// Private to gateway/ and the command line: what `describe_tool` answers
// besides the tool's block, as data a host's program can read (the server,
// the tool's wire name and its input schema as the server listed it), and
// what a local `call` types its `key=value` arguments by.

import type { JsonObject } from "../codec/json.ts";
import type { Harness } from "../harness/mod.ts";

/**
 * The structured part of a `describe_tool` answer for `tool` (a wire or a
 * function name) of `server`, or undefined when the server is not ready or
 * did not list it.
 */
export function describedTool(
  harness: Harness,
  server: string,
  tool: string,
): JsonObject | undefined {
  const report = harness.reports.get(server);
  if (report?.state !== "ready") return undefined;
  const wire = report.generated.manifest.get(tool) ?? tool;
  const descriptor = report.tools.find((listed) => listed.name === wire);
  if (descriptor === undefined) return undefined;
  return { server, tool: wire, inputSchema: descriptor.inputSchema };
}
