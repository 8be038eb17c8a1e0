/**
 * The pure codecs of `@loom/mcp`: total JSON with exact integers, the
 * JSON-RPC 2.0 envelope, MCP message decoders, newline framing and the value
 * interchange. No I/O, no timers, no `Deno` APIs: they run anywhere.
 *
 * @example Frame a request and decode the reply line
 * ```ts
 * import { decodeInbound, encodeRequest, frame } from "@loom/mcp/codec";
 * const bytes = frame(encodeRequest(0, "ping"));
 * const reply = decodeInbound('{"jsonrpc":"2.0","id":0,"result":{}}');
 * console.log(bytes.length > 0, reply.ok); // true true
 * ```
 *
 * @module
 */

export * from "./result.ts";
export * from "./json.ts";
export * from "./jsonrpc.ts";
export * from "./peek.ts";
export * from "./protocol.ts";
export * from "./framing.ts";
export * from "./interchange.ts";
export * from "./quote.ts";
export * from "./report_value.ts";
export * from "./sse.ts";
export * from "./stateless.ts";
export * from "./streamable_http.ts";
export * from "./param_headers.ts";
export * from "./progress.ts";
export * from "./prompts.ts";
export * from "./resource_lists.ts";
export * from "./server_requests.ts";
export * from "./skills.ts";
