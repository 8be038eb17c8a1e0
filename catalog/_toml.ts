// Private to catalog/: the TOML front end, the `[mcp.<name>]` tables of a
// TOML file.

import { parse as parseToml, TomlError } from "./_toml_parser.ts";
import { MAX_JSON_DEPTH } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { CatalogError } from "./types.ts";
import { type Collected, type Mode, readServers } from "./_entry.ts";
import { isTable } from "./_fields.ts";
import { describe, renderKey, sentenceTail, stripByteOrderMark } from "./_text.ts";

const TOML_PREFIX = "Invalid TOML document: ";
const TOML_TABLE_HEADER =
  /^\s*\[\s*mcp\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]/;

/**
 * A TOML document's servers, read in `mode`, and warnings about tables it
 * does not read. The `[mcp.<name>]` tables are read in file order; other
 * top-level keys are ignored (the catalog may live in a larger file), and a
 * document without `mcp` lists no servers.
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
  const warnings = lookAlikes(document, file);
  const mcp = document["mcp"];
  if (mcp === undefined) return ok({ servers: [], skipped: [], renamed: [], warnings });
  if (!isTable(mcp)) {
    return err({
      kind: "invalid_catalog",
      file,
      key: "mcp",
      message: `${file}: key "mcp": expected a table of [mcp.<name>] tables, found ${
        describe(mcp, "toml")
      }`,
    });
  }
  const read = readServers(mcp, { file, syntax: "toml", root: "mcp" }, mode);
  return read.ok ? ok({ ...read.value, warnings }) : read;
}

// Top-level tables that look meant as server tables but are not read: a
// typo of "mcp", or the prefix of another tool's format (Codex's
// [mcp_servers.<name>], the JSON files' mcpServers).
function lookAlikes(document: Record<string, unknown>, file: string): string[] {
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(document)) {
    if (key === "mcp" || !isTable(value)) continue;
    const normal = key.toLowerCase().replace(/[-_]/g, "");
    const servers = Object.entries(value).filter(([, entry]) =>
      isTable(entry) && entry["command"] !== undefined
    );
    const similar = normal === "mcpservers" || normal === "servers" || nearMcp(normal);
    if (!similar && servers.length === 0) continue;
    const first = servers[0]?.[0] ?? Object.keys(value)[0] ?? "<name>";
    warnings.push(
      `${file}: [${renderKey(key, "toml")}.${
        renderKey(first, "toml")
      }] is not read: server tables are [mcp.<name>]; write [mcp.${renderKey(first, "toml")}]`,
    );
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
    const header = TOML_TABLE_HEADER.exec(source.split("\n")[line - 1] ?? "");
    if (header !== null) {
      const name = header[1] !== undefined
        ? unescapeBasic(header[1])
        : header[2] ?? header[3] ?? "";
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
  }
  return {
    kind: "invalid_toml",
    file,
    line,
    column,
    message: `${file}: invalid TOML at line ${line}, column ${column}: ${sentenceTail(reason)}`,
  };
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
