// Private to catalog/: the TOML front end, the `[mcp.<name>]` tables of a
// TOML file.

import { parse as parseToml, TomlError } from "./_toml_parser.ts";
import { MAX_JSON_DEPTH } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { CatalogError } from "./types.ts";
import { type Collected, emptyCollected, type Mode, readServers } from "./_entry.ts";
import { CODEX_KEY_NAMES, codexWarnings, fromCodex } from "./_codex.ts";
import { isTable } from "./_fields.ts";
import { describe, renderKey, sentenceTail, stripByteOrderMark } from "./_text.ts";

const TOML_PREFIX = "Invalid TOML document: ";
const TOML_TABLE_HEADER =
  /^\s*\[\s*mcp\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]/;

/**
 * A TOML document's servers, read in `mode`, and warnings about tables it
 * does not read. The `[mcp.<name>]` tables are read in file order, then
 * Codex's `[mcp_servers.<name>]`; other
 * top-level keys are ignored (the catalog may live in a larger file), and a
 * document without either lists no servers.
 */
export function readToml(
  text: string,
  file: string,
  mode: Mode,
): Result<Collected & { warnings: string[] }, CatalogError> {
  const source = stripByteOrderMark(text);
  let document: Record<string, unknown>;
  try {
    document = parseToml(source, { integersAsBigInt: "asNeeded", maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    return err(tomlError(file, source, error));
  }
  const deep = tooDeep(document);
  if (deep !== undefined) {
    return err({
      kind: "invalid_toml",
      file,
      message: `${file}: invalid TOML: tables or arrays nested deeper than ${MAX_JSON_DEPTH} ` +
        `levels, at ${deep}; write the catalog flatter`,
    });
  }
  const warnings = lookAlikes(document, file);
  const collected = emptyCollected();
  for (const root of ["mcp", "mcp_servers"]) {
    const servers = document[root];
    if (servers === undefined) continue;
    if (!isTable(servers)) {
      return err({
        kind: "invalid_catalog",
        file,
        key: root,
        message: `${file}: key "${root}": expected a table of [${root}.<name>] tables, found ${
          describe(servers, "toml")
        }`,
      });
    }
    const place = root === "mcp"
      ? { file, syntax: "toml" as const, root }
      : { file, syntax: "toml" as const, root, translate: fromCodex, keyNames: CODEX_KEY_NAMES };
    const read = readServers(servers, place, mode);
    if (!read.ok) return read;
    if (root === "mcp_servers") warnings.push(...codexWarnings(servers, file));
    const names = new Set(collected.servers.map((spec) => spec.name));
    for (const spec of read.value.servers) {
      if (!names.has(spec.name)) continue;
      return err({
        kind: "duplicate_name",
        file,
        table: `${root}.${spec.name}`,
        message: `${file}: [${root}.${
          renderKey(spec.name, "toml")
        }] has the name of an [mcp.<name>] table; keep one table per server`,
      });
    }
    collected.servers.push(...read.value.servers);
    collected.skipped.push(...read.value.skipped);
    collected.disabled.push(...read.value.disabled);
    collected.renamed.push(...read.value.renamed);
    collected.substitutions.push(...read.value.substitutions);
    collected.envFiles.push(...read.value.envFiles);
    collected.tables.push(...read.value.tables);
  }
  return ok({ ...collected, warnings });
}

// The keys leading to the first value nested past MAX_JSON_DEPTH (the
// document itself is the first level), shortened, or undefined: the parser
// bounds inline tables and arrays, but not dotted keys and headers
// (`a.a.a... = 1`). Iterative, linear in the values.
function tooDeep(document: Record<string, unknown>): string | undefined {
  type Frame = { value: unknown; depth: number; key: string; parent?: Frame };
  const stack: Frame[] = [{ value: document, depth: 1, key: "" }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value, depth } = frame;
    if (depth > MAX_JSON_DEPTH) {
      const keys: string[] = [];
      for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent) {
        keys.push(at.key);
      }
      keys.reverse();
      const shown = keys.slice(0, 4).map((key) => renderKey(key, "toml")).join(".");
      return keys.length > 4 ? `${shown}...` : shown;
    }
    // Only tables and arrays nest; a scalar is no level of its own.
    const keys = Array.isArray(value) ? value.keys() : Object.keys(value as object);
    for (const key of keys) {
      const item = (value as Record<string | number, unknown>)[key];
      if (typeof item !== "object" || item === null || item instanceof Date) continue;
      stack.push({ value: item, depth: depth + 1, key: String(key), parent: frame });
    }
  }
  return undefined;
}

// Top-level tables that look meant as server tables but are not read: a
// typo of "mcp", or the prefix of another tool's format (the JSON files'
// mcpServers). One
// warning per table of servers, so that none goes unsaid.
function lookAlikes(document: Record<string, unknown>, file: string): string[] {
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(document)) {
    if (key === "mcp" || key === "mcp_servers" || !isTable(value)) continue;
    const normal = key.toLowerCase().replace(/[-_]/g, "");
    const servers = Object.keys(value).filter((name) => {
      const entry = value[name];
      return isTable(entry) && (entry["command"] !== undefined || entry["url"] !== undefined);
    });
    const similar = normal === "mcpservers" || normal === "servers" || nearMcp(normal);
    if (!similar && servers.length === 0) continue;
    const tables = similar ? Object.keys(value).filter((name) => isTable(value[name])) : servers;
    for (const name of tables.length === 0 ? ["<name>"] : tables) {
      const server = name === "<name>" ? name : renderKey(name, "toml");
      warnings.push(
        `${file}: [${
          renderKey(key, "toml")
        }.${server}] is not read: server tables are [mcp.<name>]; write [mcp.${server}]`,
      );
    }
  }
  return warnings;
}

// One letter off "mcp": swapped, missing, added or changed.
function nearMcp(key: string): boolean {
  if (key === "mcp" || key.length < 2 || key.length > 4) return false;
  const sorted = [...key].sort().join("");
  if (key.length === 3 && sorted === "cmp") return true;
  let differences = 0;
  const [short, long] = key.length <= 3 ? [key, "mcp"] : ["mcp", key];
  if (short.length === long.length) {
    for (let i = 0; i < short.length; i++) if (short[i] !== long[i]) differences++;
    return differences === 1;
  }
  if (long.length - short.length !== 1) return false;
  for (let i = 0; i < long.length; i++) {
    if (long.slice(0, i) + long.slice(i + 1) === short) return true;
  }
  return false;
}

function tomlError(file: string, source: string, error: unknown): CatalogError {
  if (!(error instanceof TomlError)) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      kind: "invalid_toml",
      file,
      message: `${file}: invalid TOML: ${sentenceTail(reason)}`,
    };
  }
  const { line, column } = error;
  const firstLine = error.message.split("\n", 1)[0] ?? "";
  let reason = firstLine.startsWith(TOML_PREFIX) ? firstLine.slice(TOML_PREFIX.length) : firstLine;
  if (reason.includes("excessively nested")) {
    reason = `nested deeper than ${MAX_JSON_DEPTH} levels`;
  }
  if (reason.includes("redefine")) {
    const lines = source.split("\n");
    const name = headerName(lines[line - 1] ?? "");
    const before = lines.slice(0, Math.max(0, line - 1));
    if (name !== undefined && before.some((earlier) => headerName(earlier) === name)) {
      return {
        kind: "duplicate_name",
        file,
        table: `mcp.${name}`,
        line,
        column,
        message: `${file}: [mcp.${
          renderKey(name, "toml")
        }] is defined twice (again at line ${line}); keep one table per server`,
      };
    }
    if (name !== undefined) {
      // The header is its only one: a key written earlier (`mcp = ...`, a
      // dotted `mcp.<name>.key`, an inline table) already holds the name.
      return {
        kind: "invalid_toml",
        file,
        line,
        column,
        message:
          `${file}: invalid TOML at line ${line}, column ${column}: [mcp.${
            renderKey(name, "toml")
          }] cannot be a table: an earlier line already set mcp or mcp.${
            renderKey(name, "toml")
          } (as a value, a dotted key or an inline table); write each server as an ` +
          "[mcp.<name>] table of its own, and nothing else under mcp",
      };
    }
  }
  return {
    kind: "invalid_toml",
    file,
    line,
    column,
    message: `${file}: invalid TOML at line ${line}, column ${column}: ${sentenceTail(reason)}`,
  };
}

// The server an `[mcp.<name>]` header line names, unquoted, or undefined.
function headerName(text: string): string | undefined {
  const header = TOML_TABLE_HEADER.exec(text);
  if (header === null) return undefined;
  return header[1] !== undefined ? unescapeBasic(header[1]) : header[2] ?? header[3] ?? "";
}

// TOML basic-string escapes are JSON's plus \UXXXXXXXX; a name using the
// latter is shown as written.
function unescapeBasic(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}
