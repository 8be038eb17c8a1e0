/**
 * Type guards for data that crossed the worker boundary: both sides decode
 * what they receive with these, the worker in `messages.ts`, the main thread
 * in `thread/settlements.ts`.
 *
 * @module
 */

import type { Drain } from "./outcomes.ts";

/** A plain record of fields, not yet checked. */
export type Fields = Record<string, unknown>;

/** Whether `value` is a non-array object. */
export function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is a string. */
export function isString(value: unknown): value is string {
  return typeof value === "string";
}

/** Whether `value` is a safe integer, zero or more. */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Whether `value` is a finite number of milliseconds, zero or more. */
export function isDuration(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/** Whether `value` is a drain verdict. */
export function isDrain(value: unknown): value is Drain {
  return value === true || value === false || value === "unknown";
}

/** Whether `value` is a record of strings. */
export function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every(isString);
}
