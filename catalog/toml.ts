/**
 * The TOML front end: the `[mcp.<name>]` tables of a TOML file.
 *
 * @module
 */

import { parse as parseToml, TomlError } from "./_toml_parser.ts";
import { MAX_JSON_DEPTH } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ServerSpec } from "../client/spec.ts";
import type { CatalogError, CatalogOptions } from "./types.ts";
import { DEFAULT_FILE, readServers } from "./_entry.ts";
import { isTable } from "./_fields.ts";
import { describe, renderKey, sentenceTail, stripByteOrderMark } from "./_text.ts";

const TOML_PREFIX = "Invalid TOML document: ";
const TOML_TABLE_HEADER =
  /^\s*\[\s*mcp\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]/;

/**
 * Reads the `[mcp.<name>]` tables of a TOML document as server specs, in file
 * order. Other top-level keys are ignored (the catalog may live in a larger
 * file); a document without `mcp` lists no servers. Never throws on bad input:
 * the first mistake comes back as a {@linkcode CatalogError}.
 *
 * @example Parse a catalog
 * ```ts
 * import { parseCatalog } from "@loom/mcp";
 * const result = parseCatalog(`
 * [mcp.memory]
 * command = "deno"
 * args = ["run", "-A", "npm:@modelcontextprotocol/server-memory"]
 * `, { file: "harness.toml" });
 * if (result.ok) console.log(result.value[0]?.name); // "memory"
 * else console.log(result.error.message);
 * ```
 */
export function parseCatalog(
  text: string,
  options: CatalogOptions = {},
): Result<ServerSpec[], CatalogError> {
  if (typeof text !== "string") throw new TypeError("parseCatalog() expects the TOML text");
  const file = options.file ?? DEFAULT_FILE;
  const source = stripByteOrderMark(text);
  let document: Record<string, unknown>;
  try {
    document = parseToml(source, { integersAsBigInt: "asNeeded", maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    return err(tomlError(file, source, error));
  }
  const mcp = document["mcp"];
  if (mcp === undefined) return ok([]);
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
  return readServers(mcp, { file, syntax: "toml", root: "mcp" });
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
