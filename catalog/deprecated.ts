/**
 * The catalog's first doors, kept for the callers that know them: each is
 * one of the two doors ({@linkcode readCatalog}, {@linkcode openCatalog})
 * read `strict` and `literal`, and yields only the servers.
 *
 * @module
 */

import { ok, type Result } from "../codec/result.ts";
import type { ResolvedServerSpec } from "../settings/mod.ts";
import type { Catalog, CatalogError, CatalogOptions } from "./types.ts";
import { readCatalog } from "./read.ts";
import { openCatalog } from "./open.ts";
import { dirname, resolve } from "node:path";
import { pathOf } from "./_file.ts";

function servers(
  read: Result<Catalog, CatalogError>,
): Result<ResolvedServerSpec[], CatalogError> {
  return read.ok ? ok(read.value.servers) : read;
}

/**
 * Reads the `[mcp.<name>]` tables of a TOML document as server specs, in file
 * order, refusing the document at the first mistake.
 *
 * @deprecated Use `readCatalog(text, { format: "toml", strict: true, literal: true })`,
 * which says the same and also what it skipped and warns about.
 *
 * @example Parse a catalog
 * ```ts
 * import { parseCatalog } from "@loom/mcp";
 * const result = parseCatalog('[mcp.memory]\ncommand = "deno"\n', { file: "harness.toml" });
 * if (result.ok) console.log(result.value[0]?.name); // "memory"
 * ```
 */
export function parseCatalog(
  text: string,
  options: Pick<CatalogOptions, "file" | "env"> = {},
): Result<ResolvedServerSpec[], CatalogError> {
  if (typeof text !== "string") throw new TypeError("parseCatalog() expects the TOML text");
  return servers(readCatalog(text, { ...options, format: "toml", strict: true, literal: true }));
}

/**
 * Reads the JSON `mcpServers` form (`.mcp.json`, Claude Desktop) or VS Code's
 * `servers` form as server specs, refusing the document at the first mistake.
 *
 * @deprecated Use `readCatalog(text, { format: "json", strict: true, literal: true })`.
 *
 * @example Parse an .mcp.json file
 * ```ts
 * import { parseMcpServersJson } from "@loom/mcp";
 * const result = parseMcpServersJson('{"mcpServers": {"memory": {"command": "deno"}}}');
 * if (result.ok) console.log(result.value[0]?.name); // "memory"
 * ```
 */
export function parseMcpServersJson(
  text: string,
  options: Pick<CatalogOptions, "file" | "env"> = {},
): Result<ResolvedServerSpec[], CatalogError> {
  if (typeof text !== "string") throw new TypeError("parseMcpServersJson() expects the JSON text");
  return servers(readCatalog(text, { ...options, format: "json", strict: true, literal: true }));
}

/**
 * Reads a catalog file (`.json` in the `mcpServers` form, any other as
 * TOML), refusing the file at the first mistake; a relative `cwd`, or none,
 * means the file's folder.
 *
 * @deprecated Use `openCatalog(path, { strict: true, literal: true })`, which
 * also finds the file when none is given.
 *
 * @example Load a catalog
 * ```ts ignore
 * import { loadCatalog } from "@loom/mcp";
 * const catalog = await loadCatalog("harness.toml");
 * if (!catalog.ok) console.error(catalog.error.message);
 * ```
 */
export async function loadCatalog(
  path: string | URL,
): Promise<Result<ResolvedServerSpec[], CatalogError>> {
  const file = pathOf(path, "loadCatalog");
  // The file's own folder is the project, even for one kept in .vscode/.
  const workspaceFolder = dirname(resolve(file));
  return servers(await openCatalog(file, { strict: true, literal: true, workspaceFolder }));
}
