/**
 * What is wrong with a spec, said of its key: the vocabulary of
 * {@linkcode SpecProblem}s and the small helpers each rule of `check.ts`
 * (and of the files it keeps rules in) builds them with.
 *
 * @module
 */

import { MAX_TIMEOUT_MS } from "./limits.ts";

/** The timeout rule in words, for every message that refuses a deadline. */
export const TIMEOUT_RULE: string = `a positive number of milliseconds, at most ${MAX_TIMEOUT_MS}`;

/**
 * Whether a value is a deadline a timer can keep: a number of milliseconds
 * above zero and at most {@linkcode MAX_TIMEOUT_MS}. The one statement of
 * the rule, for every deadline of the library: a spec's, a call's, a
 * retirement's, a listing's and a run's.
 */
export function isTimeoutMs(value: unknown): value is number {
  return typeof value === "number" && value > 0 && value <= MAX_TIMEOUT_MS;
}

/** A key of a {@linkcode ServerSpec}: where a {@linkcode SpecProblem} is. */
export type SpecKey =
  | "name"
  | "command"
  | "args"
  | "env"
  | "inheritEnv"
  | "cwd"
  | "stderr"
  | "url"
  | "headers"
  | "oauth"
  | "connectTimeoutMs"
  | "callTimeoutMs"
  | "era"
  | "versions"
  | "enabledTools"
  | "disabledTools"
  | "resultCheck"
  | "logLevel"
  | "restart"
  | "roots";

/**
 * What is wrong with a spec, before anyone says where it came from.
 *
 * @example The problem of an unknown stderr mode
 * ```ts
 * import { checkSpec } from "@loom/mcp";
 * const checked = checkSpec({ name: "x", command: "x", stderr: "merge" });
 * if (!checked.ok) console.log(checked.error);
 * // { kind: "wrong_type", key: "stderr", message: 'expected "tail" or "forward", found "merge"' }
 * ```
 */
export type SpecProblem = {
  /**
   * `wrong_type`: a value of the wrong type or shape (the census throws
   * `TypeError`); `out_of_range`: a deadline or a version outside what is
   * supported (`RangeError`).
   */
  kind: "wrong_type" | "out_of_range";
  /** The key at fault; absent when the spec is not an object at all. */
  key?: SpecKey;
  /** What is wrong, said of that key: what was expected and what was found. */
  message: string;
};

/** How a message says what was found. */
export type Describe = (value: unknown) => string;

/** A problem of a value of the wrong type or shape at `key`. */
export function wrongType(key: SpecKey | undefined, message: string): SpecProblem {
  return key === undefined ? { kind: "wrong_type", message } : { kind: "wrong_type", key, message };
}

/** A problem of a value outside what is supported at `key`. */
export function outOfRange(key: SpecKey, message: string): SpecProblem {
  return { kind: "out_of_range", key, message };
}

/** Whether a value is a plain record (an object, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `"a", "b" or "c"`. */
export function oneOf(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length < 2
    ? quoted.join("")
    : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}
