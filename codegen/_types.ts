/**
 * Rendering planned types as TypeScript, for a module's source (every key a
 * quoted string literal, an object whose members say something written one
 * member a line under its doc comment) and for the surface (one line, keys
 * bare where they can be), and the walks over a plan that the module needs:
 * the cap types it uses and the reasons of its untyped parts.
 *
 * @module
 */

import type { Param, ParamType } from "./schema.ts";
import { MAX_TYPE_ALIASES } from "./schema.ts";
import {
  docComment,
  escapeString,
  MAX_DESCRIPTION_CHARS,
  MAX_NOTES_PER_PARAM,
  sanitize,
  truncate,
} from "./text.ts";

/** Where a type is rendered: a module's source or the surface. */
export type Mode = "source" | "surface";

/** The alias identifier of a definition, by its `$ref`; `undefined` past the module's cap. */
export type Names = (ref: string) => string | undefined;

/** How one rendering reads: where, and the alias names of the plan the type came from. */
export type Style = { mode: Mode; names: Names };

const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function renderKey(name: string, mode: Mode): string {
  return mode === "surface" && BARE_KEY.test(name) ? name : escapeString(name);
}

// A type that needs parentheses inside `[]`, `...` or `&`.
function compound(type: ParamType): boolean {
  return type.kind === "union" || type.kind === "intersection" ||
    (type.kind === "tuple" && type.required < type.items.length);
}

function wrapped(type: ParamType, style: Style, indent: string): string {
  const text = renderType(type, style, indent);
  return compound(type) ? `(${text})` : text;
}

/** Renders one planned type; a source object whose members carry docs takes several lines. */
export function renderType(type: ParamType, style: Style, indent = ""): string {
  switch (type.kind) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return type.kind;
    case "literal":
      return renderLiteral(type.value);
    case "union":
      return type.members.map((member) => renderType(member, style, indent)).join(" | ");
    case "intersection":
      return type.members.map((member) => wrapped(member, style, indent)).join(" & ");
    case "array":
      return `${wrapped(type.items, style, indent)}[]`;
    case "tuple": {
      // Optional elements would admit `undefined`, which is no JSON value: each
      // length from the required ones up is a tuple of its own.
      const items = type.items.map((item) => renderType(item, style, indent));
      const shapes: string[] = [];
      for (let length = type.required; length < items.length; length++) {
        shapes.push(`[${items.slice(0, length).join(", ")}]`);
      }
      const full = [...items];
      if (type.rest !== undefined) full.push(`...${wrapped(type.rest, style, indent)}[]`);
      shapes.push(`[${full.join(", ")}]`);
      return shapes.join(" | ");
    }
    case "object":
      return renderMembers(type.properties, type.additional, style, indent);
    case "map":
      return `{ [key: string]: ${renderType(type.values, style, indent)} }`;
    case "any_object":
      return "JsonObject";
    case "ref":
      return style.names(type.ref) ?? "JsonValue";
    case "structured":
      return "JsonValue";
  }
}

/** The doc comment paragraphs of a member: its description, then its notes on one line. */
export function memberDocs(param: Param): string[] {
  const paragraphs: string[] = [];
  if (param.description !== undefined) {
    // Whole, as the tool's own description: the module is where the whole text is.
    paragraphs.push(truncate(sanitize(param.description), MAX_DESCRIPTION_CHARS));
  }
  const notes = (param.notes ?? []).slice(0, MAX_NOTES_PER_PARAM);
  if (notes.length > 0) {
    const line = notes.join("; ");
    paragraphs.push(line.charAt(0).toUpperCase() + line.slice(1));
  }
  return paragraphs;
}

/**
 * Renders an object type of named members, and an index signature for the
 * keys they do not name. On the surface, and in source when no member says
 * anything, on one line; else one member a line under its doc comment, the
 * lines indented past `indent`.
 */
export function renderMembers(
  properties: readonly Param[],
  additional: ParamType | undefined,
  style: Style,
  indent = "",
  docs: (param: Param) => string[] = memberDocs,
  multiline = false,
): string {
  if (properties.length === 0 && additional === undefined) {
    return style.mode === "surface" ? "{}" : "Record<string, never>";
  }
  if (properties.length === 0 && additional !== undefined) {
    return renderType({ kind: "map", values: additional }, style, indent);
  }
  const inner = `${indent}  `;
  const written = properties.map((param) => ({ param, doc: docs(param) }));
  const lines = style.mode === "source" && (multiline || written.some(({ doc }) => doc.length > 0));
  const fields = written.map(({ param, doc }) => {
    const key = `${renderKey(param.name, style.mode)}${param.required ? "" : "?"}`;
    const type = renderType(param.type, style, lines ? inner : indent);
    return lines ? `${docComment(doc, inner)}${inner}${key}: ${type};\n` : `${key}: ${type}`;
  });
  const named = lines ? `{\n${fields.join("")}${indent}}` : `{ ${fields.join("; ")} }`;
  if (additional === undefined) return named;
  // Every named value must fit the index signature too, so it admits their types.
  const values = [additional, ...properties.map((param) => param.type)];
  const seen = new Set<string>();
  const parts = values.map((each) => renderType(each, style, indent)).filter((text) =>
    seen.has(text) ? false : (seen.add(text), true)
  );
  return `${named} & { [key: string]: ${
    parts.includes("JsonValue") ? "JsonValue" : parts.join(" | ")
  } }`;
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

/** Calls `visit` on every part of a type, not through refs. */
export function eachPart(type: ParamType, visit: (part: ParamType) => void): void {
  visit(type);
  switch (type.kind) {
    case "union":
    case "intersection":
      return type.members.forEach((member) => eachPart(member, visit));
    case "array":
      return eachPart(type.items, visit);
    case "tuple":
      type.items.forEach((item) => eachPart(item, visit));
      if (type.rest !== undefined) eachPart(type.rest, visit);
      return;
    case "map":
      return eachPart(type.values, visit);
    case "object":
      type.properties.forEach((param) => eachPart(param.type, visit));
      if (type.additional !== undefined) eachPart(type.additional, visit);
      return;
    default:
      return;
  }
}

/** Adds to `into` the cap types (`JsonValue`, `JsonObject`) a type's rendering names. */
export function collectTypeNames(type: ParamType, names: Names, into: Set<string>): void {
  eachPart(type, (part) => {
    if (part.kind === "structured") into.add("JsonValue");
    else if (part.kind === "any_object") into.add("JsonObject");
    else if (part.kind === "ref" && names(part.ref) === undefined) into.add("JsonValue");
    else if (part.kind === "object" && part.additional !== undefined) {
      // An index signature that admits an untyped member is JsonValue.
      if (part.properties.some((param) => param.type.kind === "structured")) into.add("JsonValue");
    }
  });
}

/** Adds to `into` one note per untyped part of `type`, with its path and reason. */
export function collectReasons(type: ParamType, path: string[], names: Names, into: string[]) {
  const note = (reason: string) => {
    const at = path.length === 0 ? "" : ` at ${path.join(".").replaceAll(".[", "[")}`;
    into.push(`JsonValue${at}: ${reason}.`);
  };
  switch (type.kind) {
    case "structured":
      return note(type.reason);
    case "ref":
      if (names(type.ref) === undefined) {
        note(`the module already holds ${MAX_TYPE_ALIASES} type aliases`);
      }
      return;
    case "union":
    case "intersection":
      return type.members.forEach((member) => collectReasons(member, path, names, into));
    case "array":
      return collectReasons(type.items, [...path, "[]"], names, into);
    case "tuple":
      type.items.forEach((item, i) => collectReasons(item, [...path, `[${i}]`], names, into));
      if (type.rest !== undefined && type.rest.kind !== "structured") {
        collectReasons(type.rest, [...path, "[]"], names, into);
      }
      return;
    case "map":
      return collectReasons(type.values, [...path, "[key]"], names, into);
    case "object":
      type.properties.forEach((p) => collectReasons(p.type, [...path, p.name], names, into));
      if (type.additional !== undefined) {
        collectReasons(type.additional, [...path, "[key]"], names, into);
      }
      return;
    default:
      return;
  }
}
