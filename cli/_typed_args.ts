// Private to cli/: `call`'s key=value pairs typed from the tool's input
// schema. `message=123` sends the string "123" to a string property and the
// number 123 to a number property; a value for a property the schema does not
// describe is JSON when it parses as JSON, else a string, as before.

import { isJsonObject, type JsonObject, type JsonValue, parseJson } from "../codec/json.ts";

/** One `key=value` pair as written. */
export type Pair = { key: string; text: string };

/** The JSON types a value may take, from a property's schema; `undefined` when it does not say. */
function typesOf(
  schema: JsonValue | undefined,
  root: JsonObject,
  depth = 0,
): Set<string> | undefined {
  if (!isJsonObject(schema) || depth > 8) return undefined;
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    const defs = match === null ? undefined : root[match[1] as string];
    const target = isJsonObject(defs) ? defs[decodeURIComponent(match![2] as string)] : undefined;
    return typesOf(target, root, depth + 1);
  }
  const type = schema.type;
  if (typeof type === "string") return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === "string"));
  const literals = Array.isArray(schema.enum)
    ? schema.enum
    : "const" in schema
    ? [schema.const]
    : [];
  if (literals.length > 0) return new Set(literals.map(jsonType));
  for (const key of ["anyOf", "oneOf"] as const) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    const union = new Set<string>();
    for (const member of members) {
      const types = typesOf(member, root, depth + 1);
      if (types === undefined) return undefined;
      for (const t of types) union.add(t);
    }
    return union;
  }
  return undefined;
}

function jsonType(value: JsonValue | undefined): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "bigint") return "integer";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function fits(value: JsonValue, types: Set<string>): boolean {
  const type = jsonType(value);
  return types.has(type) || (type === "integer" && types.has("number"));
}

/**
 * The arguments of `pairs`, each value typed by the property's schema in
 * `inputSchema`: text that parses as JSON of a type the property takes is
 * that value; otherwise the text itself when the property takes a string;
 * otherwise (and for a property the schema does not describe) the JSON value
 * when the text parses, else the text.
 */
export function typedArguments(pairs: readonly Pair[], inputSchema: JsonValue): JsonObject {
  const root = isJsonObject(inputSchema) ? inputSchema : {};
  const properties = isJsonObject(root.properties) ? root.properties : {};
  const object: JsonObject = Object.create(null);
  for (const { key, text } of pairs) {
    const parsed = parseJson(text);
    const types = Object.hasOwn(properties, key) ? typesOf(properties[key], root) : undefined;
    if (types === undefined) {
      object[key] = parsed.ok ? parsed.value : text;
    } else if (parsed.ok && fits(parsed.value, types)) {
      object[key] = parsed.value;
    } else if (types.has("string")) {
      object[key] = text;
    } else {
      object[key] = parsed.ok ? parsed.value : text;
    }
  }
  return object;
}
