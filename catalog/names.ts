/**
 * Which server names a catalog accepts: each name is used verbatim as its
 * generated module's segment, so the rule is the generator's own.
 *
 * @module
 */

import { MAX_SEGMENT_CHARS, moduleSegment, SEGMENT_PATTERN } from "../codegen/names.ts";

/**
 * What a server name must look like: a lowercase ASCII letter, then lowercase
 * letters, digits, `_` or `-`, at most 64 characters, and not a name Windows
 * reserves for a device. A name is used verbatim as its generated module's
 * segment (`mcp/<name>.ts`), so two valid names never map to the same module;
 * the rule is the generator's own (`moduleSegment`, `SEGMENT_PATTERN`).
 */
export const SERVER_NAME_PATTERN: RegExp = SEGMENT_PATTERN;

/**
 * Tells whether a name is a valid server name: the module-segment rule
 * (`moduleSegment`), which {@linkcode SERVER_NAME_PATTERN} states but for the
 * device names.
 *
 * @example Check names
 * ```ts
 * import { isServerName } from "@loom/mcp";
 * console.log(isServerName("github"), isServerName("My Server")); // true false
 * ```
 */
export function isServerName(name: string): boolean {
  return moduleSegment(name).ok;
}

/** A valid name close to `name`, to suggest in a message; `undefined` when none is. */
export function suggestName(name: string): string | undefined {
  let candidate = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^[_-]+|[_-]+$/g, "");
  if (candidate === "") return undefined;
  if (!/^[a-z]/.test(candidate)) candidate = `server_${candidate}`;
  candidate = candidate.slice(0, MAX_SEGMENT_CHARS);
  return isServerName(candidate) ? candidate : undefined;
}
