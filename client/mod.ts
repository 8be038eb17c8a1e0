/**
 * The client side of MCP on the main thread: the census of clients, each a
 * thin handle on one Web Worker that runs the server's client (and owns its
 * process, or its HTTP session).
 *
 * @example Run every server of a catalog
 * ```ts ignore
 * import { Census } from "@loom/mcp/client";
 * import { openCatalog } from "@loom/mcp/catalog";
 *
 * const catalog = await openCatalog("loom.toml", { mode: "strict" });
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * const census = Census.prepare(catalog.value.servers);
 * await census.connectAll();
 * await census.retire();
 * ```
 *
 * @module
 */

export * from "./errors.ts";
export * from "./client.ts";
export * from "./census.ts";
export {
  type GenerationEnd,
  type GenerationEvent,
  type GenerationRecord,
  replacementRefusal,
  RESTART_REFUSALS,
  type RestartPlan,
  type RestartRefusal,
} from "./supervisor.ts";
export * from "./resources.ts";
export * from "./prompts.ts";
export * from "./skills.ts";
export * from "./logs.ts";
export type {
  ListedResource,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
} from "../codec/resource_lists.ts";
export * from "./handlers.ts";
export {
  type CreateMessageRequest,
  type ElicitChoice,
  type ElicitField,
  type ElicitFieldBase,
  type SamplingMessage,
} from "../codec/server_requests.ts";
export { type CallProgress, TASK_STATUSES, type TaskStatus } from "../codec/progress.ts";
// What the client's own signatures name, so this entry stands alone.
export type { Result } from "../codec/result.ts";
export type { JsonArray, JsonObject, JsonValue } from "../codec/json.ts";
export type { RpcError } from "../codec/jsonrpc.ts";
export {
  type Annotated,
  type CallToolResult,
  type ContentBlock,
  type Era,
  type Implementation,
  type InitializeResult,
  SUPPORTED_VERSIONS,
  type SupportedVersion,
  type ToolDescriptor,
} from "../codec/protocol.ts";
export type {
  ClientOrigin,
  OAuthFailure,
  OAuthStatus,
  StoredEntry,
  StoredGrant,
  StoredRegistration,
  StoreFailure,
  StoreKey,
  TokenStore,
} from "../oauth/mod.ts";
export { FOUND_RECORDED, SERVER_MARKER_VARIABLE } from "./custody/process_tree.ts";
// What a client is given: the spec vocabulary, its limits and the eras.
export * from "../settings/mod.ts";
