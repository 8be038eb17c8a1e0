/**
 * Type guards for data that crossed the worker boundary: both sides decode
 * what they receive with these, the worker in `to_worker.ts`, the main
 * thread in `from_worker.ts` and the decoders beside each shape.
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";

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

/**
 * Whether `value` is one of `values`: the guard of a union derived from an
 * `as const` array, which its decoder reads with this.
 */
export function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}

/** Whether `value` is a record of strings. */
export function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every(isString);
}

/**
 * A short, safe description of a value that failed to decode, for a
 * message: a string quoted and cut short, anything else by its type (no
 * conversion that could throw, such as `String` of an object without a
 * prototype).
 */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

/**
 * Decodes a `Result` that crossed the boundary, its value and its error each
 * with their own decoder; `undefined` when either part does not decode.
 */
export function decodeResult<T, E>(
  value: unknown,
  decodeValue: (value: unknown) => T | undefined,
  decodeError: (value: unknown) => E | undefined,
): Result<T, E> | undefined {
  if (!isRecord(value)) return undefined;
  if (value.ok === true) {
    const decoded = decodeValue(value.value);
    return decoded === undefined ? undefined : ok(decoded);
  }
  if (value.ok === false) {
    const decoded = decodeError(value.error);
    return decoded === undefined ? undefined : err(decoded);
  }
  return undefined;
}
