/**
 * Code mode for any MCP host: a harness served as an MCP server of exactly
 * three tools, `search_tools`, `describe_tool` and `run_program`.
 * `serveHarness` (in the root export, beside `boot`) serves it over stdio,
 * or over Streamable HTTP with its `http` option; this entry holds what
 * goes with it: {@linkcode hostHandlers}, given to `boot`, let the
 * downstream servers ask, and each question goes up to the host whose
 * program's call asked it; and the tools' names and limits.
 *
 * @example Serve a catalog's servers to a host over stdio
 * ```ts ignore
 * import { boot, openCatalog, serveHarness } from "@loom/mcp";
 * import { hostHandlers } from "@loom/mcp/gateway";
 * const catalog = await openCatalog("loom.toml");
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * const harness = await boot(catalog.value.servers, { ...hostHandlers() });
 * try {
 *   await serveHarness(harness, { approve: true });
 * } finally {
 *   await harness.retire();
 * }
 * ```
 *
 * @module
 */

export * from "./host_handlers.ts";
export * from "./limits.ts";
export { GATEWAY_TOOLS, type GatewayTool } from "./tools.ts";
export { GATEWAY_VERSION, SESSION_CLOSED } from "./session.ts";
// What this entry's signatures name, so that it stands alone.
export type { Root, ServerRequestHandlers } from "../client/handlers.ts";
export type { JsonArray, JsonObject, JsonValue } from "../codec/json.ts";
export type { Annotated, ContentBlock, ResourceContents } from "../codec/protocol.ts";
