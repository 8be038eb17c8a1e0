/**
 * The client side of MCP over stdio: the census of clients, one Web Worker
 * per connected server, and the values they report.
 *
 * @example Run every server of a harness
 * ```ts ignore
 * import { Census } from "@loom/mcp";
 * const census = Census.prepare([]);
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
