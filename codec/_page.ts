// Private to codec/: one page of a paginated list result (`prompts/list`,
// `resources/list`, `resources/templates/list`), its entries decoded one by
// one and its cursor checked, every fault naming the entry it is in.

import { isJsonObject, type JsonValue } from "./json.ts";
import type { ProtocolFault } from "./protocol.ts";
import { describeValue } from "./quote.ts";
import { err, ok, type Result } from "./result.ts";

/** The fault of a result that is not what it should be, at an entry when there is one. */
export function invalid(message: string, index?: number): { ok: false; error: ProtocolFault } {
  return err(
    index === undefined
      ? { kind: "invalid_result", message }
      : { kind: "invalid_result", message, index },
  );
}

/**
 * The entries of a page under `key`, each decoded by `decode` (an entry, or
 * a phrase saying why it is refused), and its cursor: absent, or a string.
 */
export function decodePage<T>(
  where: string,
  value: JsonValue,
  key: string,
  decode: (entry: JsonValue) => T | string,
  noun = "entry",
): Result<{ entries: T[]; nextCursor?: string }, ProtocolFault> {
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const list = value[key];
  if (!Array.isArray(list)) {
    return invalid(`${where}: "${key}" is ${describeValue(list)}, not an array`);
  }
  const entries: T[] = [];
  for (let index = 0; index < list.length; index++) {
    const entry = decode(list[index] as JsonValue);
    if (typeof entry === "string") return invalid(`${where}: ${noun} ${index} ${entry}`, index);
    entries.push(entry);
  }
  const cursor = value.nextCursor;
  if (cursor === undefined || cursor === null) return ok({ entries });
  if (typeof cursor !== "string") {
    return invalid(`${where}: "nextCursor" is ${describeValue(cursor)}, not a string`);
  }
  return ok({ entries, nextCursor: cursor });
}
