/**
 * The catalog: which MCP servers a harness runs, read from the `[mcp.<name>]`
 * tables of a TOML file, or from the JSON `mcpServers` form that `.mcp.json`,
 * Claude Desktop and VS Code use. Both become the same `ServerSpec`s after the
 * same validation; every mistake is a {@linkcode CatalogError} whose message
 * names the file, the table and the key, and says what to write.
 *
 * Parsing is pure; only {@linkcode loadCatalog} touches the file system.
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
export * from "./names.ts";
export * from "./toml.ts";
export * from "./mcp_json.ts";
export * from "./load.ts";
