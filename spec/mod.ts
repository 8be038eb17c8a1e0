/**
 * What a harness says about the MCP servers it wants run: the
 * {@linkcode ServerSpec} vocabulary, its defaults and limits, and the protocol
 * eras. The catalog produces specs, the census consumes them.
 *
 * @example A minimal stdio spec
 * ```ts
 * import type { ServerSpec } from "@loom/mcp";
 * const spec: ServerSpec = { name: "memory", command: "deno", args: ["run", "server.ts"] };
 * console.log(spec.name); // "memory"
 * ```
 *
 * @module
 */

export * from "./server_spec.ts";
export * from "./limits.ts";
export { ERA_MODES, type EraMode, isEraMode, PROBE_TIMEOUT_MS } from "./era.ts";
