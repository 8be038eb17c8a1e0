/**
 * The client side of MCP on the main thread: the census of clients, each a
 * thin handle on one Web Worker that runs the server's client (and owns its
 * process, or its HTTP session).
 *
 * @example Run every server of a catalog
 * ```ts ignore
 * import { Census, loadCatalog } from "@loom/mcp";
 * const specs = await loadCatalog("loom.toml");
 * if (!specs.ok) throw new Error(specs.error.message);
 * const census = Census.prepare(specs.value);
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
export { FOUND_RECORDED, SERVER_MARKER_VARIABLE } from "./custody/process_tree.ts";
export type { CallProgress, TaskStatus } from "../codec/progress.ts";
// What a client is given: the spec vocabulary, its limits and the eras.
export * from "../settings/mod.ts";
