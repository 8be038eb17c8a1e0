/**
 * Reading the configuration files people already have: the `.mcp.json` of
 * Claude Code, Claude Desktop's and Cursor's files, VS Code's `mcp.json`
 * (`servers`, `inputs`, `${env:VAR}`, `${workspaceFolder}`), and the TOML
 * catalog. An entry that cannot be served (disabled, or remote over a
 * transport or with a sign-in this library does not speak) is skipped and
 * reported by name; a malformed one is skipped alone unless `strict`.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import type { Catalog, CatalogError, CatalogFormat, ReadCatalogOptions } from "./types.ts";
import { DEFAULT_FILE, type Mode } from "./_entry.ts";
import { variablesOf } from "./_expand.ts";
import { readToml } from "./toml.ts";
import { readMcpJson } from "./mcp_json.ts";

/**
 * Reads a catalog's text in either syntax and says what it yields: the
 * servers, every entry it left out with the reason, the names it derived,
 * and warnings. Variables expand from `options.env` only (none by default):
 * reading text stays pure.
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
 */
export function readCatalog(
  text: string,
  options: ReadCatalogOptions = {},
): Result<Catalog, CatalogError> {
  if (typeof text !== "string") throw new TypeError("readCatalog() expects the catalog's text");
  const file = options.file ?? DEFAULT_FILE;
  const format: CatalogFormat = options.format ?? (/\.json$/i.test(file) ? "json" : "toml");
  const mode: Mode = {
    strict: options.strict ?? false,
    skipUnservable: true,
    deriveNames: format === "json",
  };
  const variables = variablesOf(options);
  if (variables !== undefined) mode.variables = variables;
  const read = format === "json" ? readMcpJson(text, file, mode) : readToml(text, file, mode);
  if (!read.ok) return err(read.error);
  const { servers, skipped, renamed, warnings } = read.value;
  return ok({ file, format, servers, skipped, renamed, warnings });
}
