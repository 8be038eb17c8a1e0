/**
 * What a long call reports while it runs (`codec/progress.ts`), as it
 * crosses from the worker: the worker reads it from the server and sends it
 * on (a `progress` event of `from_worker.ts`); the main thread decodes it
 * here, checked field by field, and hands it to the caller's `onProgress`,
 * its message sanitized (`client/_progress.ts`).
 *
 * @module
 */

import { type Fields, isOneOf, isRecord, isString } from "./guards.ts";
import { type CallProgress, progressOf, TASK_STATUSES } from "../../codec/progress.ts";

export {
  type CallProgress,
  progressOf,
  TASK_STATUSES,
  type TaskStatus,
} from "../../codec/progress.ts";

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
