/**
 * Rendering planned types as TypeScript, for a module's source (every key a
 * quoted string literal) and for the surface (keys bare where they can be),
 * and the walks over a plan that the module needs: the cap types it uses and
 * the reasons of its untyped parts.
 *
 * @module
 */

import type { Param, ParamType, Plan } from "./schema.ts";
import { escapeString } from "./text.ts";

/** Where a type is rendered: a module's source or the surface. */
export type Mode = "source" | "surface";

const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function renderKey(name: string, mode: Mode): string {
  return mode === "surface" && BARE_KEY.test(name) ? name : escapeString(name);
}

/** Renders one planned type on one line. */
export function renderType(type: ParamType, mode: Mode): string {
  switch (type.kind) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return type.kind;
    case "literal":
      return renderLiteral(type.value);
    case "union":
      return type.members.map((member) => renderType(member, mode)).join(" | ");
    case "array": {
      const inner = renderType(type.items, mode);
      return type.items.kind === "union" ? `(${inner})[]` : `${inner}[]`;
    }
    case "object":
      return renderObject(type.properties, mode);
    case "map":
      return `{ [key: string]: ${renderType(type.values, mode)} }`;
    case "any_object":
      return "JsonObject";
    case "structured":
      return "JsonValue";
  }
}

/** Renders an object type of named properties on one line. */
export function renderObject(properties: readonly Param[], mode: Mode): string {
  if (properties.length === 0) return mode === "surface" ? "{}" : "Record<string, never>";
  const fields = properties.map((param) =>
    `${renderKey(param.name, mode)}${param.required ? "" : "?"}: ${renderType(param.type, mode)}`
  );
  return `{ ${fields.join("; ")} }`;
}

function renderLiteral(value: string | number | bigint | boolean | null): string {
  if (typeof value === "string") return escapeString(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") {
    // JSON numbers are finite; -0 reads as 0, as a type it is the same literal.
    return Number.isFinite(value) ? String(value === 0 ? 0 : value) : "number";
  }
  return String(value);
}

/** Adds to `into` the cap types (`JsonValue`, `JsonObject`) a plan's rendering names. */
export function collectTypeNames(planned: Plan, into: Set<string>): void {
  if (planned.kind === "whole_value") {
    into.add("JsonObject");
    return;
  }
  const visit = (type: ParamType): void => {
    switch (type.kind) {
      case "structured":
        into.add("JsonValue");
        return;
      case "any_object":
        into.add("JsonObject");
        return;
      case "union":
        return type.members.forEach(visit);
      case "array":
        return visit(type.items);
      case "map":
        return visit(type.values);
      case "object":
        return type.properties.forEach((param) => visit(param.type));
      default:
        return;
    }
  };
  planned.params.forEach((param) => visit(param.type));
}

/** Adds to `into` one note per untyped part of `type`, with its path and reason. */
export function collectReasons(type: ParamType, path: string[], into: string[]): void {
  switch (type.kind) {
    case "structured": {
      const at = path.length === 0 ? "" : ` at ${path.join(".").replaceAll(".[", "[")}`;
      into.push(`JsonValue${at}: ${type.reason}.`);
      return;
    }
    case "union":
      return type.members.forEach((member) => collectReasons(member, path, into));
    case "array":
      return collectReasons(type.items, [...path, "[]"], into);
    case "map":
      return collectReasons(type.values, [...path, "[key]"], into);
    case "object":
      return type.properties.forEach((p) => collectReasons(p.type, [...path, p.name], into));
    default:
      return;
  }
}
