/**
 * The client side of MCP over stdio, on the main thread: the census of
 * clients (one Web Worker per connected server) and the harness that boots,
 * routes calls and hands programs to the code-mode runner.
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

export * from "./spec.ts";
export * from "./errors.ts";
export * from "./client.ts";
export * from "./census.ts";
export * from "./harness.ts";
