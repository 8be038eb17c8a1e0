/**
 * Combining planned types (unions, intersections) and typing literal JSON
 * values, for the schema reader.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../codec/json.ts";
import {
  type Literal,
  MAX_ENUM_MEMBERS,
  MAX_LITERAL_CHARS,
  MAX_LITERAL_NODES,
  type Param,
  type ParamType,
} from "./plan.ts";

/** An own property, never an inherited one. */
export function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** A part typed `JsonValue`, with the reason its doc comment gives. */
export function structured(reason: string): ParamType {
  return { kind: "structured", reason };
}

/** JSON with sorted keys and exact integers: equal texts for equal values. */
export function canonical(value: JsonValue): string {
  if (typeof value === "bigint") return `${value}`;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`)}}`;
}

// ---------------------------------------------------------------- literals

export function readEnum(values: JsonValue): ParamType {
  if (!Array.isArray(values) || values.length === 0) {
    return structured('its "enum" is not a non-empty list');
  }
  const seen = new Set<string>();
  const distinct = values.filter((value) => {
    const key = canonical(value);
    return seen.has(key) ? false : (seen.add(key), true);
  });
  if (distinct.length > MAX_ENUM_MEMBERS) {
    // Too many to read as literals: widened to their base types, which stay sound.
    return union(distinct.map((value) => literalType(value, 0)));
  }
  return union(distinct.map((value) => literalType(value)));
}

/**
 * The type of exactly one JSON value: a literal, an object of literal members
 * or a closed tuple of literals, within {@linkcode MAX_LITERAL_NODES} (past it,
 * or when `budget` is 0, the value's base type).
 */
export function literalType(value: JsonValue, budget = MAX_LITERAL_NODES): ParamType {
  const left = { nodes: budget };
  const read = (node: JsonValue): ParamType => {
    left.nodes--;
    if (node === null || typeof node !== "object") {
      if (left.nodes < 0) return baseType(node);
      if (typeof node === "string" && node.length > MAX_LITERAL_CHARS) return { kind: "string" };
      return { kind: "literal", value: node as Literal };
    }
    if (Array.isArray(node)) {
      if (left.nodes < 0 || node.length > budget) {
        return { kind: "array", items: structured("any item") };
      }
      const items = node.map(read);
      return { kind: "tuple", items, required: items.length };
    }
    const keys = Object.keys(node);
    if (left.nodes < 0 || keys.length > budget) return { kind: "any_object" };
    if (keys.length === 0) return { kind: "object", properties: [] };
    return {
      kind: "object",
      properties: keys.map((name) => ({
        name,
        type: read(node[name] as JsonValue),
        required: true,
      })),
    };
  };
  return read(value);
}

function baseType(value: Literal): ParamType {
  if (value === null) return { kind: "null" };
  if (typeof value === "string") return { kind: "string" };
  if (typeof value === "boolean") return { kind: "boolean" };
  return { kind: "number" };
}

// ---------------------------------------------------------------- combining

function keyOf(type: ParamType): string {
  return JSON.stringify(type, (_k, v) => typeof v === "bigint" ? { bigint: `${v}` } : v);
}

/** A union, flattened and without repeats; one `JsonValue` member makes it `JsonValue`. */
export function union(members: readonly ParamType[]): ParamType {
  const flat: ParamType[] = [];
  const seen = new Set<string>();
  for (const member of members) {
    for (const part of member.kind === "union" ? member.members : [member]) {
      const key = keyOf(part);
      if (!seen.has(key)) {
        seen.add(key);
        flat.push(part);
      }
    }
  }
  const untyped = flat.find((part) => part.kind === "structured");
  if (untyped !== undefined) return untyped;
  return flat.length === 1 && flat[0] !== undefined ? flat[0] : { kind: "union", members: flat };
}

type Family = "object" | "array" | "string" | "number" | "boolean" | "null";
const EVERY: readonly Family[] = ["object", "array", "string", "number", "boolean", "null"];

// Which JSON types a planned type admits; a ref admits any, as far as the
// intersection's sense is concerned.
function families(type: ParamType): Set<Family> {
  switch (type.kind) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return new Set([type.kind]);
    case "literal": {
      const value = type.value;
      if (value === null) return new Set(["null"]);
      return new Set([typeof value === "bigint" ? "number" : typeof value as Family]);
    }
    case "union":
      return new Set(type.members.flatMap((member) => [...families(member)]));
    case "intersection":
      return type.members.map(families).reduce((a, b) => new Set([...a].filter((f) => b.has(f))));
    case "array":
    case "tuple":
      return new Set(["array"]);
    case "object":
    case "map":
    case "any_object":
      return new Set(["object"]);
    default:
      return new Set(EVERY);
  }
}

/**
 * All of `members` at once. Untyped members constrain nothing a type can say
 * and drop out; objects without index signatures merge into one; members that
 * share no JSON type make the whole value.
 */
export function intersection(members: readonly ParamType[]): ParamType {
  const flat = members.flatMap((member) =>
    member.kind === "intersection" ? member.members : [member]
  );
  // Beside an object type, "any object" says nothing more.
  const shaped = flat.some((member) => member.kind === "object" || member.kind === "map");
  const typed = flat.filter((member) =>
    member.kind !== "structured" && !(shaped && member.kind === "any_object")
  );
  if (typed.length === 0) return flat[0] ?? structured("its schema names no type");
  if (typed.length === 1) return typed[0] as ParamType;
  const common = typed.map(families).reduce((a, b) => new Set([...a].filter((f) => b.has(f))));
  if (common.size === 0) return structured("its parts share no JSON type, so no value fits all");
  const plain = typed.filter((member) => member.kind === "object" && !member.additional);
  const others = typed.filter((member) => !plain.includes(member));
  if (plain.length < 2) return { kind: "intersection", members: typed };
  const merged = new Map<string, Param>();
  for (const member of plain) {
    if (member.kind !== "object") continue;
    for (const param of member.properties) {
      const before = merged.get(param.name);
      merged.set(
        param.name,
        before === undefined ? { ...param } : {
          ...before,
          type: intersection([before.type, param.type]),
          required: before.required || param.required,
        },
      );
    }
  }
  const object: ParamType = { kind: "object", properties: [...merged.values()] };
  return others.length === 0 ? object : { kind: "intersection", members: [object, ...others] };
}
