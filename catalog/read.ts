/**
 * The door for a catalog's text, in either syntax: the `[mcp.<name>]` tables
 * of a TOML file, or the JSON files other tools write (the `.mcp.json` of
 * Claude Code, Claude Desktop's and Cursor's files, VS Code's `mcp.json` with
 * its `servers`, `inputs`, `${env:VAR}` and `${workspaceFolder}`).
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import { utf8Bytes } from "../codec/_utf8.ts";
import {
  type Catalog,
  CATALOG_MODES,
  type CatalogError,
  type CatalogFormat,
  type CatalogOptions,
  MAX_CATALOG_BYTES,
} from "./types.ts";
import { DEFAULT_FILE, modeOf } from "./_entry.ts";
import { readToml } from "./_toml.ts";
import { readMcpJson } from "./_mcp_json.ts";

/** The syntax of a file by its name: JSON for a name ending in `.json`, whatever its case. */
export function formatOf(file: string): CatalogFormat {
  return /\.json$/i.test(file) ? "json" : "toml";
}

/**
 * Reads a catalog's text and says what it yields: the servers (each with its
 * defaults written out), every entry it left out with the reason, the names
 * it derived, and warnings. Never throws on bad text: a mistake that refuses
 * the catalog is a {@linkcode CatalogError} naming the file, the table and
 * the key, and saying what to write instead.
 *
 * It reads a file the way the tool that wrote it does: an entry that cannot
 * be served (remote over the older HTTP+SSE transport, WebSocket or an OAuth
 * sign-in) is skipped and reported, a disabled one is listed in `disabled`,
 * a JSON name that is not a server name (`"GitHub"`) gets one (`github`). A
 * malformed entry is skipped alone, or with `mode: "strict"` refuses the
 * catalog; `format` says the syntax when the file name does not. A text of
 * more than `MAX_CATALOG_BYTES` (as UTF-8) is refused unread, as a file is.
 * Variables expand from `options.env` only (none by default): reading text
 * stays pure.
 *
 * @example Read a file with a remote entry that needs an OAuth sign-in
 * ```ts
 * import { readCatalog } from "@loom/mcp";
 * const result = readCatalog(JSON.stringify({
 *   mcpServers: {
 *     GitHub: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] },
 *     notion: { type: "http", url: "https://mcp.notion.com/mcp", oauth: { clientId: "x" } },
 *   },
 * }), { file: "claude_desktop_config.json" });
 * if (result.ok) {
 *   console.log(result.value.servers.map((s) => s.name)); // ["github"]
 *   console.log(result.value.skipped[0]?.message); // ... notion skipped: ... OAuth ...
 * }
 * ```
 *
 * @example Refuse a loom catalog at its first mistake
 * ```ts
 * import { readCatalog } from "@loom/mcp";
 * const result = readCatalog('[mcp.github]\ncommand = "npx -y server-github"\n', {
 *   file: "loom.toml",
 *   mode: "strict",
 * });
 * if (!result.ok) console.log(result.error.message);
 * // loom.toml: [mcp.github] key "command": expected one executable, found a shell string ...
 * ```
 */
export function readCatalog(
  text: string,
  options: CatalogOptions = {},
): Result<Catalog, CatalogError> {
  if (typeof text !== "string") throw new TypeError("readCatalog() expects the catalog's text");
  const file = options.file ?? DEFAULT_FILE;
  const format = options.format ?? formatOf(file);
  if (format !== "toml" && format !== "json") {
    throw new TypeError(`readCatalog() expects format "toml" or "json", got ${String(format)}`);
  }
  if (options.mode !== undefined && !CATALOG_MODES.includes(options.mode)) {
    throw new TypeError(
      `readCatalog() expects mode "lenient" or "strict", got ${String(options.mode)}`,
    );
  }
  // Three UTF-8 bytes a UTF-16 unit at most: only a text that may be past the bound is counted.
  const bytes = text.length * 3 > MAX_CATALOG_BYTES ? utf8Bytes(text) : text.length;
  if (bytes > MAX_CATALOG_BYTES) {
    return err({
      kind: "invalid_catalog",
      file,
      message: `${file}: the catalog is ${bytes} bytes, more than the ${MAX_CATALOG_BYTES} ` +
        "allowed; is this the right file?",
    });
  }
  const read = format === "json"
    ? readMcpJson(text, file, (inputs) => modeOf(options, format, inputs))
    : readToml(text, file, modeOf(options, format));
  if (!read.ok) return err(read.error);
  const { servers, skipped, disabled, renamed, warnings, substitutions, envFiles, tables } =
    read.value;
  return ok({
    file,
    format,
    servers,
    skipped,
    disabled,
    renamed,
    warnings,
    substitutions,
    envFiles,
    tables,
  });
}
