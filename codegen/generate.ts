/**
 * The generator: one server's tool listing becomes a TypeScript module source
 * (`mcp/<segment>.ts`) and the surface a model reads. Values, never files.
 *
 * Server text reaches the source only three ways: sanitized inside doc
 * comments, escaped inside string literals, or mangled into identifiers. The
 * {@linkcode backstop} then re-lexes the source to prove it.
 *
 * @module
 */

import type { ToolDescriptor } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { backstop } from "./backstop.ts";
import { mangle, moduleSegment, sha256Hex } from "./names.ts";
import { type Param, type ParamType, type Plan, plan } from "./schema.ts";
import {
  docComment,
  escapeString,
  MAX_DESCRIPTION_CHARS,
  MAX_NOTE_CHARS,
  sanitize,
  truncate,
} from "./text.ts";

/** The most tools one server may list; past it the server is refused. */
export const MAX_TOOLS = 256;

/** The largest surface of one server, in UTF-8 bytes after truncation. */
export const MAX_SURFACE_BYTES = 64 * 1024;

/** The most structured-part notes one parameter's doc comment lists. */
export const MAX_NOTES_PER_PARAM = 8;

/** The specifier generated modules import by default. */
export const DEFAULT_CAP_SPECIFIER = "@loom/mcp/cap";

/** Options of {@linkcode generate}. */
export type GenerateOptions = {
  /** The specifier of the cap seam; default {@linkcode DEFAULT_CAP_SPECIFIER}. */
  capSpecifier?: string;
  /** Lowercase hex digest of a string; default SHA-256 ({@linkcode sha256Hex}). */
  digest?: (s: string) => string;
};

/** One server's generated module and surface. */
export type Generated = {
  /** The module's path in a build root: `mcp/<segment>.ts`. */
  moduleName: string;
  /** The module segment: the server name, checked by `moduleSegment`. */
  segment: string;
  /** The TypeScript source of the module. */
  source: string;
  /** The block of the model's surface for this server. */
  surface: string;
  /** Each exported identifier mapped to the wire name of its tool, in module order. */
  manifest: ReadonlyMap<string, string>;
};

/** Why a server's listing cannot become a module. */
export type GenerateError =
  | { kind: "too_many_tools"; count: number; limit: number; message: string }
  | {
    kind: "tool_name_collision";
    identifier: string;
    first: string;
    second: string;
    message: string;
  }
  | { kind: "surface_too_large"; bytes: number; limit: number; message: string }
  | { kind: "sanitizer_breach"; offset: number; message: string };

type Entry = { identifier: string; tool: ToolDescriptor; plan: Plan };

/**
 * Generates the module and surface of one server from its tool listing.
 * Refuses the whole server past {@linkcode MAX_TOOLS}, on an identifier
 * collision (naming both originals), on a surface past
 * {@linkcode MAX_SURFACE_BYTES}, and when the backstop finds anything outside
 * comments and string literals that the generator did not write.
 *
 * A `server` that is not a valid module segment is caller misuse (the
 * catalog checks names with `moduleSegment`) and throws `TypeError`.
 *
 * @example Generate a module for one tool
 * ```ts
 * import { generate } from "@loom/mcp/codegen";
 * const result = generate("files", [{
 *   name: "read_file",
 *   description: "Reads a file.",
 *   inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
 * }]);
 * if (result.ok) console.log(result.value.surface.split("\n")[1]);
 * // readFile_c9f8123b(args: { path: string }): Promise<ToolResult>  // Reads a file.
 * ```
 */
export function generate(
  server: string,
  tools: readonly ToolDescriptor[],
  options: GenerateOptions = {},
): Result<Generated, GenerateError> {
  const segment = moduleSegment(server);
  if (!segment.ok) throw new TypeError(segment.error.message);
  if (!Array.isArray(tools)) throw new TypeError("Cannot generate module: tools is not an array");
  const capSpecifier = options.capSpecifier ?? DEFAULT_CAP_SPECIFIER;
  if (typeof capSpecifier !== "string" || capSpecifier.length === 0) {
    throw new TypeError("Cannot generate module: capSpecifier is not a non-empty string");
  }
  const digest = options.digest ?? sha256Hex;
  const where = `Cannot generate module for server "${server}"`;
  if (tools.length > MAX_TOOLS) {
    return err({
      kind: "too_many_tools",
      count: tools.length,
      limit: MAX_TOOLS,
      message: `${where}: it lists ${tools.length} tools, more than ${MAX_TOOLS}`,
    });
  }
  const byIdentifier = new Map<string, Entry>();
  for (const tool of tools) {
    const identifier = mangle(tool.name, digest);
    const earlier = byIdentifier.get(identifier);
    if (earlier !== undefined) {
      const first = earlier.tool.name;
      return err({
        kind: "tool_name_collision",
        identifier,
        first,
        second: tool.name,
        message: `${where}: tools ${quote(first)} and ${quote(tool.name)} both become ` +
          `"${identifier}"; rename one of them on the server`,
      });
    }
    byIdentifier.set(identifier, { identifier, tool, plan: plan(tool.inputSchema) });
  }
  const entries = [...byIdentifier.values()].sort((a, b) =>
    a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0
  );
  const source = renderModule(server, entries, capSpecifier);
  const minted = new Set(entries.map((entry) => entry.identifier));
  const checked = backstop(source, minted);
  if (!checked.ok) {
    return err({
      kind: "sanitizer_breach",
      offset: checked.error.offset,
      message: `${where}: the generated source failed the backstop: ${checked.error.message}`,
    });
  }
  const surface = renderSurface(server, entries);
  const bytes = new TextEncoder().encode(surface).length;
  if (bytes > MAX_SURFACE_BYTES) {
    return err({
      kind: "surface_too_large",
      bytes,
      limit: MAX_SURFACE_BYTES,
      message: `${where}: its surface is ${bytes} bytes, more than ${MAX_SURFACE_BYTES}; ` +
        "the server lists too many tools or parameters",
    });
  }
  const manifest = new Map(entries.map((entry) => [entry.identifier, entry.tool.name]));
  return ok({ moduleName: `mcp/${server}.ts`, segment: server, source, surface, manifest });
}

// Server text in an error message: escaped and short, so it cannot fake a line.
function quote(text: string): string {
  return escapeString(truncate(text, 80));
}

function renderModule(server: string, entries: readonly Entry[], capSpecifier: string): string {
  const count = `${entries.length} tool${entries.length === 1 ? "" : "s"}`;
  let out = `// Generated by @loom/mcp from the tools/list of server "${server}" (${count}). ` +
    "Do not edit.\n";
  if (entries.length === 0) return out + "export {};\n";
  const types = new Set<string>();
  for (const entry of entries) collectTypeNames(entry.plan, types);
  const names = ["invoke", ...[...types].sort().map((name) => `type ${name}`)];
  out += `import { ${names.join(", ")} } from ${escapeString(capSpecifier)};\n`;
  for (const entry of entries) out += "\n" + renderFunction(server, entry);
  return out;
}

function collectTypeNames(planned: Plan, into: Set<string>): void {
  into.add("ToolResult");
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

function renderFunction(server: string, entry: Entry): string {
  const { tool, plan: planned, identifier } = entry;
  const paragraphs: string[] = [];
  if (tool.title !== undefined) paragraphs.push(truncate(sanitize(tool.title), MAX_NOTE_CHARS));
  if (tool.description !== undefined) {
    paragraphs.push(truncate(sanitize(tool.description), MAX_DESCRIPTION_CHARS));
  }
  let args: string;
  if (planned.kind === "whole_value") {
    paragraphs.push(
      `Takes any JSON object: ${planned.reason}, so its parameters are not typed here.`,
    );
    args = "JsonObject";
  } else if (planned.params.length === 0) {
    args = "Record<string, never>";
  } else {
    const lines = planned.params.map((param) => {
      const doc = docComment(paramNotes(param), "  ");
      const mark = param.required ? "" : "?";
      return `${doc}  ${escapeString(param.name)}${mark}: ${renderType(param.type, "source")};\n`;
    });
    args = `{\n${lines.join("")}}`;
  }
  return docComment(paragraphs, "") +
    `export function ${identifier}(args: ${args}): Promise<ToolResult> {\n` +
    `  return invoke(${escapeString(server)}, ${escapeString(tool.name)}, args);\n}\n`;
}

function paramNotes(param: Param): string[] {
  const notes: string[] = [];
  if (param.description !== undefined) {
    notes.push(truncate(sanitize(param.description), MAX_NOTE_CHARS));
  }
  const found: string[] = [];
  collectReasons(param.type, [], found);
  for (const note of found.slice(0, MAX_NOTES_PER_PARAM)) {
    notes.push(truncate(sanitize(note), MAX_NOTE_CHARS));
  }
  if (found.length > MAX_NOTES_PER_PARAM) {
    notes.push(`And ${found.length - MAX_NOTES_PER_PARAM} more parts typed JsonValue.`);
  }
  return notes;
}

function collectReasons(type: ParamType, path: string[], into: string[]): void {
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

type Mode = "source" | "surface";

const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function renderKey(name: string, mode: Mode): string {
  return mode === "surface" && BARE_KEY.test(name) ? name : escapeString(name);
}

function renderType(type: ParamType, mode: Mode): string {
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
    case "object": {
      if (type.properties.length === 0) return mode === "surface" ? "{}" : "Record<string, never>";
      const fields = type.properties.map((param) =>
        `${renderKey(param.name, mode)}${param.required ? "" : "?"}: ${
          renderType(param.type, mode)
        }`
      );
      return `{ ${fields.join("; ")} }`;
    }
    case "map":
      return `{ [key: string]: ${renderType(type.values, mode)} }`;
    case "any_object":
      return "JsonObject";
    case "structured":
      return "JsonValue";
  }
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

function renderSurface(server: string, entries: readonly Entry[]): string {
  const count = `${entries.length} tool${entries.length === 1 ? "" : "s"}`;
  const lines = [`// mcp/${server}.ts (server "${server}", ${count})`];
  for (const { identifier, tool, plan: planned } of entries) {
    let args: string;
    if (planned.kind === "whole_value") args = "JsonObject";
    else if (planned.params.length === 0) args = "{}";
    else {
      args = renderType({ kind: "object", properties: planned.params }, "surface");
    }
    const summary = summaryOf(tool);
    lines.push(
      `${identifier}(args: ${args}): Promise<ToolResult>` +
        (summary.length > 0 ? `  // ${summary}` : ""),
    );
  }
  return lines.join("\n") + "\n";
}

const SENTENCE_END = /[.!?](?= |$)/;

function summaryOf(tool: ToolDescriptor): string {
  const text = sanitize(tool.description ?? tool.title ?? "");
  const end = SENTENCE_END.exec(text);
  const sentence = end === null ? text : text.slice(0, end.index + 1);
  return truncate(sentence, MAX_NOTE_CHARS);
}
