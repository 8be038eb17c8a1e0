// Private to codec/: how a received value is quoted in an error message.

import type { JsonValue } from "./json.ts";

/** Quotes a received value briefly: short scalars verbatim, containers by kind. */
export function describe(value: JsonValue | undefined): string {
  if (value === undefined) return "absent";
  if (typeof value === "bigint") return `${value}`;
  if (typeof value === "object" && value !== null) {
    return Array.isArray(value) ? "an array" : "an object";
  }
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
