/**
 * The client side of MCP over stdio: the catalog, the census of clients (one
 * Web Worker per connected server), the harness that boots and routes, and
 * the code-mode runner.
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
export * from "../catalog/catalog.ts";
export * from "./harness.ts";
export * from "../runner/run.ts";
