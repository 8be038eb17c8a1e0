/**
 * The catalog: which MCP servers a harness runs, read from the `[mcp.<name>]`
 * tables of a TOML file, or from the JSON files other tools write (the
 * `mcpServers` of `.mcp.json`, Claude Desktop and Cursor, VS Code's
 * `servers`). Both become the same `ServerSpec`s after the same validation:
 * a server started from a `command`, or a remote server at a `url`
 * (Streamable HTTP) with optional `headers` whose `${VAR}` expand from the
 * harness's environment;
 * every mistake is a {@linkcode CatalogError} whose message names the file,
 * the table and the key, and says what to write.
 *
 * {@linkcode parseCatalog}, {@linkcode parseMcpServersJson} and
 * {@linkcode loadCatalog} are strict: the first mistake refuses the file.
 * {@linkcode readCatalog} and {@linkcode openCatalog} read real configuration
 * files: disabled entries and remote ones that cannot be served (the older
 * HTTP+SSE transport, WebSocket, an OAuth sign-in) are skipped and reported, a malformed
 * entry is skipped alone (unless `strict`), variables expand. Only
 * {@linkcode loadCatalog} and {@linkcode openCatalog} touch the file system.
 *
 * @example Parse a catalog
 * ```ts
 * import { parseCatalog } from "@loom/mcp";
 * const result = parseCatalog('[mcp.memory]\ncommand = "deno"\n', { file: "loom.toml" });
 * if (result.ok) console.log(result.value[0]?.name); // "memory"
 * ```
 *
 * @module
 */

export * from "./types.ts";
export { isServerName, SERVER_NAME_PATTERN } from "./names.ts";
export { parseCatalog } from "./toml.ts";
export { parseMcpServersJson } from "./mcp_json.ts";
export { readCatalog } from "./read.ts";
export { CATALOG_FILES, findCatalog, loadCatalog, openCatalog } from "./load.ts";
