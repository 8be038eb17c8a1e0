/**
 * What a long call reports while it runs, as MCP says it: a server's
 * `notifications/progress` for the call (`progressOf` reads its
 * parameters), and the status of the task a task-augmented call runs as.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "./json.ts";

/**
 * The statuses of a task, as both eras name them: `working`,
 * `input_required`, then one of the terminal `completed`, `failed`,
 * `cancelled`.
 */
export const TASK_STATUSES = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
] as const;

/** A task's status, one of {@linkcode TASK_STATUSES}. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * One report of a long call: `progress` (a server's progress notification:
 * how far, out of how much when it knows, and what it is doing) or `task`
 * (the task the call runs as changed status, or its status message).
 */
export type CallProgress =
  | { kind: "progress"; progress: number; total?: number; message?: string }
  | { kind: "task"; taskId: string; status: TaskStatus; message?: string };

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * The progress a server's `notifications/progress` parameters say, or
 * `undefined` when they say none a caller can read (no finite `progress`,
 * a `total` or `message` of the wrong type).
 *
 * @example A step of five
 * ```ts
 * import { progressOf } from "@loom/mcp/codec";
 * console.log(progressOf({ progressToken: 3, progress: 2, total: 5 }));
 * // { kind: "progress", progress: 2, total: 5 }
 * ```
 */
export function progressOf(params: unknown): CallProgress | undefined {
  if (!isJsonObject(params as JsonValue)) return undefined;
  const { progress: value, total, message } = params as Record<string, unknown>;
  if (!isFiniteNumber(value)) return undefined;
  if (total !== undefined && !isFiniteNumber(total)) return undefined;
  if (message !== undefined && typeof message !== "string") return undefined;
  const progress: CallProgress = { kind: "progress", progress: value };
  if (total !== undefined) progress.total = total;
  if (message !== undefined) progress.message = message;
  return progress;
}
