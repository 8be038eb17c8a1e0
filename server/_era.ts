// Private to server/: how a serve loop speaks both eras over one stdio
// connection. A request that carries the modern-era envelope in
// `params._meta` is judged on its own (every request, not only the first:
// a malformed envelope is -32602, a version this server does not serve is
// -32022 with the versions it serves) and answered with `resultType`; list
// results also carry the caching fields. A request without one is served as
// the legacy era always was. `initialize` selects the legacy era for
// the rest of the connection, as the specification scopes it to the stdio
// process: from then on envelopes are ignored and `server/discover` is
// unknown. Once a modern-era request has been served, a request without
// an envelope is refused (-32602) and `initialize` is -32022.

import type { JsonObject } from "../codec/json.ts";
import { INVALID_PARAMS, METHOD_NOT_FOUND } from "../codec/jsonrpc.ts";
import { META_SERVER_INFO, MODERN_VERSIONS } from "../codec/protocol.ts";
import {
  type CacheScope,
  decodeRequestMeta,
  DISCOVER_METHOD,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../codec/stateless.ts";
import { describeValue } from "../codec/quote.ts";

/** Which era a connection speaks: undecided, or pinned to one. */
export type ConnectionEra = "opening" | "legacy" | "modern";

/** How a request is to be served, or the error that answers it. */
export type Judgement =
  | { kind: "legacy" }
  | { kind: "modern"; version: string }
  | { kind: "refuse"; code: number; message: string; data?: JsonObject };

const SUPPORTED: JsonObject = { supported: [...MODERN_VERSIONS] };

/** Methods of the modern era this server serves. */
const MODERN_METHODS: ReadonlySet<string> = new Set([DISCOVER_METHOD, "tools/list", "tools/call"]);

/**
 * Judges one request (its method already known to this server) on a
 * connection in era `era`: the era to serve it in, or the error it gets.
 */
export function judgeRequest(era: ConnectionEra, method: string, params: JsonObject): Judgement {
  if (era === "legacy") {
    return method === DISCOVER_METHOD
      ? { kind: "refuse", code: METHOD_NOT_FOUND, message: `Method not found: "${method}"` }
      : { kind: "legacy" };
  }
  if (era === "modern" && method !== "initialize" && !MODERN_METHODS.has(method)) {
    return {
      kind: "refuse",
      code: METHOD_NOT_FOUND,
      message: `Method not found: ${describeValue(method)}`,
    };
  }
  const meta = decodeRequestMeta(params);
  switch (meta.kind) {
    case "none":
      if (era === "modern" && method === "initialize") {
        const requested = params.protocolVersion;
        return {
          kind: "refuse",
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message:
            `Unsupported protocol version: ${describeValue(requested)}; this connection speaks ` +
            `${MODERN_VERSIONS.join(", ")} with the _meta envelope`,
          data: typeof requested === "string" ? { ...SUPPORTED, requested } : SUPPORTED,
        };
      }
      if (era === "modern" || method === DISCOVER_METHOD) {
        return {
          kind: "refuse",
          code: INVALID_PARAMS,
          message: `Invalid params: ${describeValue(method)} is missing the _meta envelope ` +
            `(io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)`,
          data: SUPPORTED,
        };
      }
      return { kind: "legacy" };
    case "malformed":
      return {
        kind: "refuse",
        code: INVALID_PARAMS,
        message: `Invalid params: the _meta envelope of ${describeValue(method)} is malformed: ` +
          meta.message,
        data: SUPPORTED,
      };
    case "envelope": {
      const requested = meta.protocolVersion;
      if (!(MODERN_VERSIONS as readonly string[]).includes(requested)) {
        return {
          kind: "refuse",
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message: `Unsupported protocol version: ${describeValue(requested)}`,
          data: { ...SUPPORTED, requested },
        };
      }
      if (!MODERN_METHODS.has(method)) {
        return {
          kind: "refuse",
          code: METHOD_NOT_FOUND,
          message: `Method not found: ${describeValue(method)} is not part of ${requested}`,
          data: SUPPORTED,
        };
      }
      return { kind: "modern", version: requested };
    }
  }
}

/** How long a listing may be reused, and by whom, as a server declares it. */
export type ListCache = { ttlMs: number; cacheScope: CacheScope };

/** The result of `server/discover`. */
export function discoverResult(
  serverInfo: JsonObject,
  cache: ListCache,
  instructions: string | undefined,
): JsonObject {
  const result: JsonObject = {
    resultType: "complete",
    supportedVersions: [...MODERN_VERSIONS],
    capabilities: { tools: { listChanged: false } },
    ttlMs: cache.ttlMs,
    cacheScope: cache.cacheScope,
    _meta: { [META_SERVER_INFO]: serverInfo },
  };
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}

/** A modern-era result: `resultType`, and the server's identity in `_meta`. */
export function modernResult(result: JsonObject, serverInfo: JsonObject): JsonObject {
  const meta = result._meta;
  const out: JsonObject = { resultType: "complete", ...result };
  if (meta === undefined) out._meta = { [META_SERVER_INFO]: serverInfo };
  return out;
}
