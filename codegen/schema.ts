/**
 * The schema plan: a total, three-tier reading of a tool's raw `inputSchema`.
 *
 * - **Typed**: parameters whose schemas fall in the subset rendered as
 *   TypeScript types (string, number, integer, boolean, null, literal `enum`
 *   and `const`, `type` arrays and typed `anyOf`/`oneOf` as unions, arrays of
 *   typed items, nested objects with required and optional keys, maps).
 * - **Structured(reason)**: any other parameter (or part of one), typed
 *   `JsonValue`, the reason kept for the doc comment.
 * - **WholeValue(reason)**: an unusable top level; the function takes one
 *   `JsonObject`.
 *
 * No parameter is ever dropped: a key listed in `required` without a schema is
 * a parameter too. Unknown keywords (a `tsType`, say) are ignored, never
 * rendered.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";

/** How many levels of nested objects, arrays and unions are typed before `JsonValue`. */
export const MAX_SCHEMA_DEPTH = 8;

/** The most members an `enum` may list and still be typed as literals. */
export const MAX_ENUM_MEMBERS = 64;

/** The longest string an `enum` or `const` may hold and still be typed as a literal. */
export const MAX_LITERAL_CHARS = 100;

/** A literal value a type can name. */
export type Literal = string | number | bigint | boolean | null;

/** The type of one parameter, or of one part of a parameter. */
export type ParamType =
  | { kind: "string" }
  | { kind: "number" }
  | { kind: "boolean" }
  | { kind: "null" }
  | { kind: "literal"; value: Literal }
  | { kind: "union"; members: ParamType[] }
  | { kind: "array"; items: ParamType }
  | { kind: "object"; properties: Param[] }
  | { kind: "map"; values: ParamType }
  | { kind: "any_object" }
  | { kind: "structured"; reason: string };

/** One named parameter, under its wire name. */
export type Param = {
  name: string;
  type: ParamType;
  required: boolean;
  description?: string;
};

/** The reading of one tool's input schema. */
export type Plan =
  | { kind: "typed"; params: Param[] }
  | { kind: "whole_value"; reason: string };

// Keywords whose meaning the typed subset cannot render.
const UNTYPED_KEYWORDS = [
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "allOf",
  "not",
  "if",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "prefixItems",
] as const;

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function structured(reason: string): ParamType {
  return { kind: "structured", reason };
}

/**
 * Reads a raw `inputSchema`. Total: any JSON value gives a plan, and every
 * property the schema names (or requires) is a parameter of it.
 *
 * @example Plan a small schema
 * ```ts
 * import { plan } from "@loom/mcp/codegen";
 * const result = plan({
 *   type: "object",
 *   properties: { path: { type: "string" }, tail: { type: "integer" } },
 *   required: ["path"],
 * });
 * if (result.kind === "typed") console.log(result.params.map((p) => p.name)); // ["path", "tail"]
 * ```
 */
export function plan(inputSchema: JsonValue): Plan {
  if (!isJsonObject(inputSchema)) {
    return { kind: "whole_value", reason: "the input schema is not an object" };
  }
  for (const keyword of [...UNTYPED_KEYWORDS, "anyOf", "oneOf", "enum", "const"]) {
    if (Object.hasOwn(inputSchema, keyword)) {
      return { kind: "whole_value", reason: `the input schema uses "${keyword}"` };
    }
  }
  const type = own(inputSchema, "type");
  if (type !== undefined && type !== "object") {
    return { kind: "whole_value", reason: 'the input schema\'s "type" is not "object"' };
  }
  const properties = own(inputSchema, "properties");
  if (properties !== undefined && !isJsonObject(properties)) {
    return { kind: "whole_value", reason: 'the input schema\'s "properties" is not an object' };
  }
  const params = planProperties(inputSchema, 0);
  if (params.length === 0) {
    const extra = own(inputSchema, "additionalProperties");
    if (extra !== undefined && extra !== false) {
      return {
        kind: "whole_value",
        reason: "the input schema names no properties and accepts any key",
      };
    }
  }
  return { kind: "typed", params };
}

function planProperties(schema: JsonObject, depth: number): Param[] {
  const properties = own(schema, "properties");
  const listed = isJsonObject(properties) ? properties : {};
  const requiredValue = own(schema, "required");
  const required = new Set<string>();
  if (Array.isArray(requiredValue)) {
    for (const key of requiredValue) if (typeof key === "string") required.add(key);
  }
  const params: Param[] = [];
  for (const name of Object.keys(listed)) {
    const child = listed[name] as JsonValue;
    const param: Param = { name, type: planType(child, depth + 1), required: required.has(name) };
    if (isJsonObject(child)) {
      const description = own(child, "description") ?? own(child, "title");
      if (typeof description === "string") param.description = description;
    }
    params.push(param);
  }
  for (const name of required) {
    if (!Object.hasOwn(listed, name)) {
      params.push({
        name,
        type: structured("it is required but the schema does not describe it"),
        required: true,
      });
    }
  }
  return params;
}

function planType(schema: JsonValue, depth: number): ParamType {
  if (schema === true) return structured("its schema allows any value");
  if (schema === false) return structured("its schema allows no value");
  if (!isJsonObject(schema)) return structured("its schema is not an object");
  if (depth > MAX_SCHEMA_DEPTH) {
    return structured(`it nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  for (const keyword of UNTYPED_KEYWORDS) {
    if (Object.hasOwn(schema, keyword)) return structured(`it uses "${keyword}"`);
  }
  if (Object.hasOwn(schema, "enum")) return planEnum(own(schema, "enum") ?? null);
  if (Object.hasOwn(schema, "const")) {
    const value = own(schema, "const") ?? null;
    return isLiteral(value) ? literal(value) : structured('its "const" is not a literal');
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    if (Object.hasOwn(schema, keyword)) return planAlternatives(schema, keyword, depth);
  }
  const type = own(schema, "type");
  if (type === undefined) {
    if (Object.hasOwn(schema, "properties")) return planNamed("object", schema, depth);
    if (Object.hasOwn(schema, "items")) return planNamed("array", schema, depth);
    return structured('its schema names no "type"');
  }
  if (typeof type === "string") return planNamed(type, schema, depth);
  if (Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === "string")) {
    const members = [...new Set(type as string[])].map((t) => planNamed(t, schema, depth));
    return union(members);
  }
  return structured('its "type" is neither a name nor a list of names');
}

function planNamed(type: string, schema: JsonObject, depth: number): ParamType {
  switch (type) {
    case "string":
      return { kind: "string" };
    case "number":
    case "integer":
      return { kind: "number" };
    case "boolean":
      return { kind: "boolean" };
    case "null":
      return { kind: "null" };
    case "array": {
      const items = own(schema, "items");
      if (items === undefined) return { kind: "array", items: structured("any item") };
      if (Array.isArray(items)) return structured('its "items" is a list (a tuple)');
      return { kind: "array", items: planType(items, depth + 1) };
    }
    case "object": {
      const properties = own(schema, "properties");
      if (properties !== undefined && !isJsonObject(properties)) {
        return structured('its "properties" is not an object');
      }
      const params = planProperties(schema, depth);
      if (params.length > 0) return { kind: "object", properties: params };
      const extra = own(schema, "additionalProperties");
      if (extra === false) return { kind: "object", properties: [] };
      if (extra === undefined || extra === true) return { kind: "any_object" };
      return { kind: "map", values: planType(extra, depth + 1) };
    }
    default:
      return structured('its "type" is not a JSON Schema type name');
  }
}

function planAlternatives(schema: JsonObject, keyword: string, depth: number): ParamType {
  const list = own(schema, keyword);
  if (!Array.isArray(list) || list.length === 0) {
    return structured(`its "${keyword}" is not a non-empty list`);
  }
  for (const sibling of ["type", "properties", "items", "anyOf", "oneOf"]) {
    if (sibling !== keyword && Object.hasOwn(schema, sibling)) {
      return structured(`it combines "${keyword}" with "${sibling}"`);
    }
  }
  const members = list.map((member) => planType(member, depth + 1));
  if (members.some((member) => member.kind === "structured")) {
    return structured(`a member of its "${keyword}" is not typed`);
  }
  return union(members);
}

function planEnum(values: JsonValue): ParamType {
  if (!Array.isArray(values) || values.length === 0) {
    return structured('its "enum" is not a non-empty list');
  }
  if (!values.every(isLiteral)) return structured('its "enum" holds a value that is not a literal');
  const distinct = [...new Set(values as Literal[])];
  const tooLong = distinct.some((v) => typeof v === "string" && v.length > MAX_LITERAL_CHARS);
  if (distinct.length > MAX_ENUM_MEMBERS || tooLong) {
    // Too many or too long to read as literals: widen to the base types, which stay sound.
    return union(distinct.map(baseType));
  }
  return union(distinct.map(literal));
}

function isLiteral(value: JsonValue): value is Literal {
  return value === null || typeof value !== "object";
}

function literal(value: Literal): ParamType {
  if (typeof value === "string" && value.length > MAX_LITERAL_CHARS) return { kind: "string" };
  return { kind: "literal", value };
}

function baseType(value: Literal): ParamType {
  if (value === null) return { kind: "null" };
  if (typeof value === "string") return { kind: "string" };
  if (typeof value === "boolean") return { kind: "boolean" };
  return { kind: "number" };
}

function union(members: ParamType[]): ParamType {
  const flat: ParamType[] = [];
  const seen = new Set<string>();
  for (const member of members) {
    for (const part of member.kind === "union" ? member.members : [member]) {
      const key = JSON.stringify(part, (_k, v) => typeof v === "bigint" ? { bigint: `${v}` } : v);
      if (!seen.has(key)) {
        seen.add(key);
        flat.push(part);
      }
    }
  }
  const structuredPart = flat.find((part) => part.kind === "structured");
  if (structuredPart !== undefined) return structuredPart;
  return flat.length === 1 && flat[0] !== undefined ? flat[0] : { kind: "union", members: flat };
}
