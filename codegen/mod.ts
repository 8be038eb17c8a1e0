/**
 * The code generator of `@loom/mcp`: a server's `tools/list` becomes a typed
 * TypeScript module (`mcp/<segment>.ts`, importing only `@loom/mcp/cap`) and
 * the surface a model reads; and values (a call's arguments, a result's
 * structured content) are checked against the tool's schemas
 * ({@linkcode valueValidator}). Pure functions of their arguments: no I/O, no
 * timers, no `Deno` APIs.
 *
 * @example Generate a module and read its surface
 * ```ts
 * import { generate } from "@loom/mcp/codegen";
 * const result = generate("clock", [{
 *   name: "now",
 *   description: "Tells the time.",
 *   inputSchema: { type: "object", properties: {} },
 * }]);
 * if (result.ok) console.log(result.value.surface);
 * // // mcp/clock.ts (server "clock", 1 tool)
 * // now(args: {}): Promise<ToolResult>  // Tells the time.
 * ```
 *
 * @module
 */

export type { Result } from "../codec/result.ts";
export type { JsonArray, JsonObject, JsonValue } from "../codec/json.ts";
export type { ToolDescriptor } from "../codec/protocol.ts";
export * from "./generate.ts";
export * from "./schema.ts";
export * from "./names.ts";
export * from "./text.ts";
export * from "./backstop.ts";
export * from "./validate.ts";
