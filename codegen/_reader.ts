/**
 * The reader behind {@linkcode plan} and {@linkcode planOutput}: one schema
 * node becomes one planned type, recursively, within the bounds of
 * `schema.ts`. Local `$ref`s become definitions (named type aliases, so
 * recursion is allowed); a remote `$ref` is never followed.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import { notesOf } from "./_notes.ts";
import {
  type Definition,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  MAX_TUPLE_ITEMS,
  MAX_TYPE_ALIASES,
  type Param,
  type ParamType,
} from "./plan.ts";
import { intersection, literalType, own, readEnum, structured, union } from "./_combine.ts";
import {
  closureKey,
  type DefinitionKeys,
  definitionKeys,
  isSimple,
  nameHint,
  resolveLocal,
} from "./_refs.ts";

/** What one reading of a schema document carries from node to node. */
export type Reading = {
  /** The document `$ref`s resolve against. */
  root: JsonValue;
  /** Definitions made so far, by the pointer of their target, in order. */
  definitions: Map<string, Definition>;
  /** Targets read as types too simple to name, by pointer. */
  inlined: Map<string, ParamType>;
  /** Schema nodes read so far. */
  nodes: number;
  /** The keys of the definitions, within their budget for this document. */
  keys: DefinitionKeys;
};

/** A fresh reading of `root`. */
export function reading(root: JsonValue): Reading {
  return { root, definitions: new Map(), inlined: new Map(), nodes: 0, keys: definitionKeys(root) };
}

/** Reads one schema node at `depth` levels below its root. Total. */
export function readType(schema: JsonValue, depth: number, at: Reading): ParamType {
  if (++at.nodes > MAX_SCHEMA_NODES) {
    return structured(`the schema holds more than ${MAX_SCHEMA_NODES} nodes`);
  }
  if (schema === true) return structured("its schema allows any value");
  if (schema === false) return structured("its schema allows no value");
  if (!isJsonObject(schema)) return structured("its schema is not an object");
  if (depth > MAX_SCHEMA_DEPTH) {
    return structured(`it nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  const parts: ParamType[] = [];
  if (Object.hasOwn(schema, "$ref")) parts.push(readRef(own(schema, "$ref") ?? null, at));
  if (own(schema, "$recursiveRef") === "#") parts.push(readRef("#", at));
  else if (Object.hasOwn(schema, "$recursiveRef")) {
    parts.push(structured('it uses "$recursiveRef"'));
  }
  if (Object.hasOwn(schema, "$dynamicRef")) parts.push(structured('it uses "$dynamicRef"'));
  const self = readOwn(schema, depth, at);
  if (self !== undefined) parts.push(self);
  for (const keyword of ["anyOf", "oneOf"] as const) {
    if (Object.hasOwn(schema, keyword)) parts.push(readAlternatives(schema, keyword, depth, at));
  }
  const all = own(schema, "allOf");
  if (Array.isArray(all)) {
    if (all.length === 0) parts.push(structured('its "allOf" is empty'));
    for (const member of all) parts.push(readType(member, depth + 1, at));
  } else if (all !== undefined) parts.push(structured('its "allOf" is not a list'));
  if (parts.length === 0) return structured('its schema names no "type"');
  const type = intersection(parts);
  return own(schema, "nullable") === true && type.kind !== "structured"
    ? union([type, { kind: "null" }])
    : type;
}

function readOwn(schema: JsonObject, depth: number, at: Reading): ParamType | undefined {
  if (Object.hasOwn(schema, "enum")) return readEnum(own(schema, "enum") ?? null);
  if (Object.hasOwn(schema, "const")) return literalType(own(schema, "const") ?? null);
  const type = own(schema, "type");
  if (typeof type === "string") return readNamed(type, schema, depth, at);
  if (Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === "string")) {
    return union([...new Set(type as string[])].map((t) => readNamed(t, schema, depth, at)));
  }
  if (type !== undefined) return structured('its "type" is neither a name nor a list of names');
  for (const keyword of ["properties", "additionalProperties", "patternProperties"]) {
    if (Object.hasOwn(schema, keyword)) return readNamed("object", schema, depth, at);
  }
  for (const keyword of ["items", "prefixItems"]) {
    if (Object.hasOwn(schema, keyword)) return readNamed("array", schema, depth, at);
  }
  return undefined;
}

function readNamed(type: string, schema: JsonObject, depth: number, at: Reading): ParamType {
  switch (type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return { kind: type };
    case "integer":
      return { kind: "number" };
    case "array":
      return readArray(schema, depth, at);
    case "object":
      return readObject(schema, depth, at);
    default:
      return structured('its "type" is not a JSON Schema type name');
  }
}

function readArray(schema: JsonObject, depth: number, at: Reading): ParamType {
  const items = own(schema, "items");
  const prefix = own(schema, "prefixItems");
  // Draft-07 writes a tuple as a list of `items`, the rest in `additionalItems`.
  const [list, rest] = Array.isArray(prefix)
    ? [prefix, items]
    : Array.isArray(items)
    ? [items, own(schema, "additionalItems")]
    : [undefined, items];
  if (list === undefined) {
    if (rest === false) return { kind: "tuple", items: [], required: 0 };
    if (rest === undefined || rest === true) {
      return { kind: "array", items: structured("any item") };
    }
    return { kind: "array", items: readType(rest, depth + 1, at) };
  }
  const minItems = own(schema, "minItems");
  const maxItems = own(schema, "maxItems");
  const least = typeof minItems === "number" ? Math.max(0, Math.floor(minItems)) : 0;
  const closed = rest === false || (typeof maxItems === "number" && maxItems <= list.length);
  const kept = typeof maxItems === "number" && maxItems < list.length
    ? list.slice(0, Math.max(0, Math.floor(maxItems)))
    : list;
  if (kept.length > MAX_TUPLE_ITEMS) {
    const all = [...kept, ...(closed || rest === undefined || rest === true ? [] : [rest])];
    return { kind: "array", items: union(all.map((item) => readType(item, depth + 1, at))) };
  }
  const tuple: ParamType = {
    kind: "tuple",
    items: kept.map((item) => readType(item, depth + 1, at)),
    required: Math.min(least, kept.length),
  };
  if (!closed) {
    tuple.rest = rest === undefined || rest === true
      ? structured("any item")
      : readType(rest, depth + 1, at);
  }
  return tuple;
}

function readObject(schema: JsonObject, depth: number, at: Reading): ParamType {
  const properties = own(schema, "properties");
  if (properties !== undefined && !isJsonObject(properties)) {
    return structured('its "properties" is not an object');
  }
  const params = readProperties(schema, depth, at);
  const extra = readExtra(schema, depth, at);
  if (params.length > 0) {
    return extra === undefined
      ? { kind: "object", properties: params }
      : { kind: "object", properties: params, additional: extra };
  }
  if (extra !== undefined) return { kind: "map", values: extra };
  if (own(schema, "additionalProperties") === false) return { kind: "object", properties: [] };
  return { kind: "any_object" };
}

/**
 * The type of the values under keys that `properties` does not name: the
 * union of the `patternProperties` and of an `additionalProperties` schema;
 * `undefined` when neither constrains them.
 */
export function readExtra(schema: JsonObject, depth: number, at: Reading): ParamType | undefined {
  const parts: ParamType[] = [];
  const patterns = own(schema, "patternProperties");
  if (isJsonObject(patterns)) {
    for (const key of Object.keys(patterns)) {
      parts.push(readType(patterns[key] as JsonValue, depth + 1, at));
    }
  }
  const extra = own(schema, "additionalProperties");
  if (isJsonObject(extra)) parts.push(readType(extra, depth + 1, at));
  else if (extra === true && parts.length > 0) parts.push(structured("any other key"));
  return parts.length === 0 ? undefined : union(parts);
}

/** Every property a schema names or requires, each one a parameter. */
export function readProperties(schema: JsonObject, depth: number, at: Reading): Param[] {
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
    const type = readType(child, depth + 1, at);
    const param: Param = { name, type, required: required.has(name) };
    if (isJsonObject(child)) {
      const description = own(child, "description") ?? own(child, "title");
      if (typeof description === "string") param.description = description;
      const notes = notesOf(child);
      if (notes.length > 0) param.notes = notes;
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

function readAlternatives(
  schema: JsonObject,
  keyword: "anyOf" | "oneOf",
  depth: number,
  at: Reading,
): ParamType {
  const list = own(schema, keyword);
  if (!Array.isArray(list) || list.length === 0) {
    return structured(`its "${keyword}" is not a non-empty list`);
  }
  const members = list.map((member) => readType(member, depth + 1, at));
  const untyped = members.find((member) => member.kind === "structured");
  if (untyped !== undefined && untyped.kind === "structured") {
    return structured(`a member of its "${keyword}" is not typed (${untyped.reason})`);
  }
  return union(members);
}

function readRef(ref: JsonValue, at: Reading): ParamType {
  if (typeof ref !== "string") return structured('its "$ref" is not a string');
  if (!ref.startsWith("#")) {
    return structured("its $ref points outside the schema, and remote schemas are never fetched");
  }
  const pointer = ref === "#/" ? "#" : ref;
  const inlined = at.inlined.get(pointer);
  if (inlined !== undefined) return inlined;
  if (at.definitions.has(pointer)) return { kind: "ref", ref: pointer };
  const target = resolveLocal(at.root, pointer);
  if (target === undefined) return structured("its $ref names no part of the schema");
  if (at.definitions.size >= MAX_TYPE_ALIASES) {
    return structured(`the schema defines more than ${MAX_TYPE_ALIASES} types`);
  }
  const definition: Definition = {
    ref: pointer,
    name: nameHint(pointer),
    type: structured("it is being read"),
    key: "",
  };
  at.definitions.set(pointer, definition);
  const type = readType(target, 0, at);
  if (isSimple(type)) {
    at.definitions.delete(pointer);
    at.inlined.set(pointer, type);
    return type;
  }
  definition.type = type;
  if (isJsonObject(target)) {
    const description = own(target, "description") ?? own(target, "title");
    if (typeof description === "string") definition.description = description;
  }
  definition.key = closureKey(at.keys, pointer);
  return { kind: "ref", ref: pointer };
}
