/**
 * The harness wiring in one call: {@linkcode boot} prepares the census,
 * connects every server, lists and generates each one's module, and returns
 * a {@linkcode Harness} that routes calls and runs programs.
 *
 * @example Boot, call, retire
 * ```ts ignore
 * import { boot } from "@loom/mcp";
 * const harness = await boot([{ name: "memory", command: "deno", args: ["run", "server.ts"] }]);
 * console.log(harness.surface);
 * await harness.retire();
 * ```
 *
 * @module
 */

export * from "./harness.ts";
export * from "./limits.ts";
// Code mode is the harness's: its vocabulary reaches users through here.
export * from "../runner/mod.ts";
