/**
 * The MCP server transport: mount tools on {@linkcode serve} and they are
 * served as line-delimited JSON-RPC 2.0 over stdio, each run's stderr
 * captured and returned with its result.
 *
 * Permissions: serving needs none. With `--allow-ffi` a run's own stderr
 * (`console.error`) is captured too; without it only what goes through the
 * tool context is (see {@linkcode captureMode}). Run with `--no-prompt`.
 *
 * @example A server with one tool
 * ```ts ignore
 * import { serve } from "@loom/mcp/server";
 * await serve({
 *   name: "adder",
 *   version: "1.0.0",
 *   tools: [{
 *     name: "add",
 *     description: "Adds two numbers.",
 *     inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
 *     run: (args) => ({ structuredContent: { sum: Number(args.a) + Number(args.b) } }),
 *   }],
 * });
 * ```
 *
 * @module
 */

export * from "./serve.ts";
export * from "./tool.ts";
export * from "./transport.ts";
export * from "./capture.ts";
export * from "./http/http_server.ts";
export * from "./http/serve_http.ts";
export type { Result } from "../codec/result.ts";
