/**
 * `@loom/mcp`: the client side of the Model Context Protocol over stdio for
 * Deno agent harnesses.
 *
 * @module
 */

export * from "./codec/mod.ts";
export * from "./client/spec.ts";
export * from "./client/catalog.ts";
export * from "./client/runner.ts";
