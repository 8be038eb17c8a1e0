/**
 * The one result shape of the library: every outcome that untrusted input or
 * a peer can cause is a value of this type, never an exception.
 *
 * @module
 */

/** A success carrying `value`, or a failure carrying `error`. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/**
 * Wraps a value as a success.
 *
 * @example Make a success
 * ```ts
 * import { ok } from "@loom/mcp/codec";
 * const result = ok(42);
 * console.log(result.ok); // true
 * ```
 */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/**
 * Wraps an error as a failure.
 *
 * @example Make a failure
 * ```ts
 * import { err } from "@loom/mcp/codec";
 * const result = err({ kind: "oops" });
 * console.log(result.ok); // false
 * ```
 */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
