/**
 * Which tools a client calls as tasks. A server runs
 * task-augmented tool calls when it says so (legacy: its `tasks` capability
 * lists `requests.tools.call`; modern: its capabilities name the tasks
 * extension); a tool is then called as a task when its listing's
 * `execution.taskSupport` is `"required"`, or `"optional"` and the caller
 * asks. Without the server's word no call is ever augmented, as the
 * specification requires, whatever the tool says.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import type { ToolDescriptor } from "../codec/protocol.ts";
import type { ServerInfo } from "./thread/server_info.ts";
import { eraCodec } from "./thread/era.ts";

/** How a tool may run as a task, when it may. */
export type TaskSupport = "required" | "optional";

/** Whether a server runs task-augmented tool calls, by what it said of itself. */
export function serverRunsTasks(info: ServerInfo | undefined): boolean {
  return info !== undefined && eraCodec(info.era).runsTasks(info.capabilities);
}

/** The tools of a listing that may run as tasks, by wire name (none when the server runs none). */
export function taskTools(
  info: ServerInfo | undefined,
  tools: readonly ToolDescriptor[],
): Map<string, TaskSupport> {
  const found = new Map<string, TaskSupport>();
  if (!serverRunsTasks(info)) return found;
  for (const tool of tools) {
    const execution: JsonValue | undefined = tool.execution;
    const support = isJsonObject(execution) ? execution.taskSupport : undefined;
    if (support === "required" || support === "optional") found.set(tool.name, support);
  }
  return found;
}
