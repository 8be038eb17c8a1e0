/**
 * What a long call reports while it runs: a server's `notifications/progress`
 * for the call, and the status of the task a task-augmented call runs as.
 * The worker reads either from the server and sends it on (a `progress`
 * event of `from_worker.ts`); the main thread decodes it here, checked field
 * by field, and hands it to the caller's `onProgress`, its message
 * sanitized (`client/_progress.ts`).
 *
 * @module
 */

import { type Fields, isOneOf, isRecord, isString } from "./guards.ts";

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
 * import { progressOf } from "./progress.ts";
 * console.log(progressOf({ progressToken: 3, progress: 2, total: 5 }));
 * // { kind: "progress", progress: 2, total: 5 }
 * ```
 */
export function progressOf(params: unknown): CallProgress | undefined {
  if (!isRecord(params) || !isFiniteNumber(params.progress)) return undefined;
  const { total, message } = params;
  if (total !== undefined && !isFiniteNumber(total)) return undefined;
  if (message !== undefined && !isString(message)) return undefined;
  const progress: CallProgress = { kind: "progress", progress: params.progress };
  if (total !== undefined) progress.total = total;
  if (message !== undefined) progress.message = message;
  return progress;
}

/** Decodes a report that crossed the boundary. */
export function decodeCallProgress(value: unknown): CallProgress | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === "progress") return progressOf(value);
  if (value.kind !== "task") return undefined;
  const { taskId, status, message } = value as Fields;
  if (!isString(taskId) || !isOneOf(TASK_STATUSES, status)) return undefined;
  if (message !== undefined && !isString(message)) return undefined;
  return message === undefined
    ? { kind: "task", taskId, status }
    : { kind: "task", taskId, status, message };
}
