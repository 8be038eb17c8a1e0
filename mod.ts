/**
 * `@loom/mcp`: the client side of the Model Context Protocol over stdio for
 * Deno agent harnesses.
 *
 * A harness reads its catalog, boots every server (each client in its own
 * Web Worker that owns the server's process), shows the model the surface of
 * the generated modules, runs the program the model writes with no
 * permissions, and retires every server with evidence that it exited.
 *
 * @example Boot a catalog, run a program, retire
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 *
 * const catalog = await openCatalog("loom.toml", { strict: true });
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * const harness = await boot(catalog.value.servers);
 * try {
 *   console.log(harness.surface); // what the model reads
 *   const report = await harness.run(
 *     'import { read_graph } from "./mcp/memory.ts";\n' +
 *       "export default (await read_graph({})).text;",
 *   );
 *   console.log(report.outcome);
 * } finally {
 *   await harness.retire();
 * }
 * ```
 *
 * @module
 */

export * from "./catalog/mod.ts";
export * from "./spec/mod.ts";
export * from "./client/mod.ts";
export * from "./harness/mod.ts";
export type { Generated, GenerateError, OmissionReason } from "./codegen/generate.ts";
// The codec's types a harness handles; the codec itself is `@loom/mcp/codec`.
export type { Result } from "./codec/result.ts";
export type { JsonArray, JsonObject, JsonValue } from "./codec/json.ts";
export type {
  Annotated,
  CallToolResult,
  ContentBlock,
  Era,
  Implementation,
  InitializeResult,
  ResourceContents,
  SupportedVersion,
  ToolDescriptor,
} from "./codec/protocol.ts";
