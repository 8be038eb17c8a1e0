/**
 * The catalog: which MCP servers a harness runs, read from the `[mcp.<name>]`
 * tables of a TOML file, or from the JSON files other tools write (the
 * `mcpServers` of `.mcp.json`, Claude Desktop and Cursor, VS Code's
 * `servers`). Both become the same `ServerSpec`s after the same checks (the
 * spec's own, `checkSpec`): a server started from a `command`, or a remote
 * server at a `url` (Streamable HTTP) with optional `headers` whose `${VAR}`
 * expand from the harness's environment. Every mistake is a
 * {@linkcode CatalogError} whose message names the file, the table and the
 * key, and says what to write.
 *
 * Two doors, both yielding a {@linkcode Catalog} (the servers, what was
 * skipped and why, the names derived, warnings): {@linkcode readCatalog} for
 * a text, {@linkcode openCatalog} for a file, given or found in the usual
 * places. Each reads the way the tool that wrote the file does (an entry
 * that cannot be served is skipped and reported, a disabled one listed as
 * disabled), in one of two modes ({@linkcode CatalogMode}): `"lenient"`
 * skips a malformed entry alone, `"strict"` refuses the catalog at the
 * first; `format` says the syntax when the file name does not. Only
 * {@linkcode openCatalog} touches the file system.
 *
 * @example Read a catalog
 * ```ts
 * import { readCatalog } from "@loom/mcp";
 * const result = readCatalog('[mcp.memory]\ncommand = "deno"\n', { file: "loom.toml" });
 * if (result.ok) console.log(result.value.servers[0]?.name); // "memory"
 * ```
 *
 * @module
 */

export * from "./types.ts";
// What the catalog's own signatures name, so this entry stands alone.
export type { Result } from "../codec/result.ts";
export { SUPPORTED_VERSIONS, type SupportedVersion } from "../codec/protocol.ts";
export {
  type Authorize,
  ERA_MODES,
  type EraMode,
  LOG_LEVELS,
  type LogLevel,
  OAUTH_GRANTS,
  type OAuthGrant,
  type OAuthSettings,
  type RemoteServerSpec,
  type ResolvedRemoteSpec,
  type ResolvedServerSpec,
  type ResolvedStdioSpec,
  type RestartPolicy,
  type ResultCheck,
  type ServerSpec,
  type SpecCommon,
  type StderrMode,
  type StdioServerSpec,
  type Supplied,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
} from "../settings/mod.ts";
export { isServerName, SERVER_NAME_PATTERN } from "./names.ts";
export { readCatalog } from "./read.ts";
export { CATALOG_FILES, openCatalog } from "./open.ts";
export { userCatalogFiles, type UserPlaces } from "./user.ts";
