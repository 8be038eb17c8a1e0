/**
 * What a schema says about a value beyond its type, as short notes for the
 * member's doc comment: `integer`, its `format`, bounds, `pattern`, `default`,
 * and the keywords no TypeScript type can say. Notes carry server text: they
 * are sanitized where they are rendered, like every description.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import { MAX_NOTE_CHARS, truncate } from "./text.ts";

/** The most characters of a value (a `default`, an example) a note quotes. */
export const MAX_NOTE_VALUE_CHARS = 60;

// Keywords read as "name: value", in this order.
const BOUNDS = [
  "format",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "contentEncoding",
  "contentMediaType",
] as const;

// Keywords that constrain a value in ways the rendered type does not say.
const UNSAID = [
  "not",
  "if",
  "dependentSchemas",
  "dependentRequired",
  "dependencies",
  "propertyNames",
  "contains",
  "unevaluatedProperties",
  "unevaluatedItems",
] as const;

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Compact JSON of at most `max` characters, cut with an ellipsis; bounded work. */
export function quoteValue(value: JsonValue, max: number = MAX_NOTE_VALUE_CHARS): string {
  let out = "";
  const write = (node: JsonValue): boolean => {
    if (out.length > max) return false;
    if (typeof node === "bigint") out += `${node}`;
    else if (node === null || typeof node !== "object") out += JSON.stringify(node);
    else if (Array.isArray(node)) {
      out += "[";
      for (let i = 0; i < node.length; i++) {
        if (i > 0) out += ",";
        if (!write(node[i] as JsonValue)) return false;
      }
      out += "]";
    } else {
      out += "{";
      let first = true;
      for (const key of Object.keys(node)) {
        out += `${first ? "" : ","}${JSON.stringify(key)}:`;
        first = false;
        if (!write(node[key] as JsonValue)) return false;
      }
      out += "}";
    }
    return out.length <= max;
  };
  write(value);
  return truncate(out, max);
}

function isInteger(schema: JsonObject): boolean {
  const type = own(schema, "type");
  return type === "integer" || (Array.isArray(type) && type.includes("integer"));
}

function onlyMember(schema: JsonObject): JsonObject | undefined {
  for (const keyword of ["anyOf", "oneOf"]) {
    const list = own(schema, keyword);
    if (!Array.isArray(list)) continue;
    const members = list.filter((member) => !(isJsonObject(member) && member.type === "null"));
    const only = members[0];
    if (members.length === 1 && isJsonObject(only)) return only;
  }
  return undefined;
}

/**
 * The notes of one member's schema, each at most {@linkcode MAX_NOTE_CHARS}
 * characters. A nullable union of one type (pydantic's `Optional[int]`,
 * `anyOf: [{type: integer, minimum: 1}, {type: null}]`) adds the notes of
 * that type.
 */
export function notesOf(schema: JsonObject): string[] {
  const notes: string[] = [];
  const add = (text: string) => notes.push(truncate(text, MAX_NOTE_CHARS));
  const from = (node: JsonObject) => {
    if (isInteger(node)) add("integer");
    for (const keyword of BOUNDS) {
      const value = own(node, keyword);
      // zod bounds every integer by the safe range, which says nothing.
      if (value === undefined || value === Number.MAX_SAFE_INTEGER) continue;
      if (value === Number.MIN_SAFE_INTEGER) continue;
      if (typeof value === "boolean") {
        if (value) add(keyword === "exclusiveMinimum" ? "minimum exclusive" : "maximum exclusive");
      } else add(`${keyword}: ${typeof value === "string" ? value : quoteValue(value)}`);
    }
    if (own(node, "uniqueItems") === true) add("items unique");
  };
  from(schema);
  const member = onlyMember(schema);
  if (member !== undefined) from(member);
  if (Object.hasOwn(schema, "default")) {
    add(`default: ${quoteValue(own(schema, "default") ?? null)}`);
  }
  const examples = own(schema, "examples");
  if (Array.isArray(examples) && examples.length > 0) {
    add(`example: ${quoteValue(examples[0] ?? null)}`);
  }
  if (own(schema, "deprecated") === true) add("deprecated");
  const unsaid = UNSAID.filter((keyword) => Object.hasOwn(schema, keyword));
  if (unsaid.length > 0) {
    add(`also constrained by ${unsaid.map((k) => `"${k}"`).join(", ")}, not in the type`);
  }
  return [...new Set(notes)];
}
