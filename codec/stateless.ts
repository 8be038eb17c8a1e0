/**
 * The modern era of MCP (`2026-07-28` and later) on the wire: the
 * envelope every request carries in `params._meta`, the `server/discover`
 * result, the `resultType` every result carries, and the error a server
 * gives for a version it does not serve. Both sides use these: the client to
 * write envelopes and read results, the server to read envelopes.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "./json.ts";
import { err, ok, type Result } from "./result.ts";
import { describeValue } from "./quote.ts";
import {
  type Implementation,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  type ProtocolFault,
} from "./protocol.ts";

/** The method a client asks a modern-era server what it speaks with. */
export const DISCOVER_METHOD = "server/discover";

/** JSON-RPC error code of a protocol version a server does not serve: -32022. */
export const UNSUPPORTED_PROTOCOL_VERSION: number = -32022;

/** How long a result may be reused, and by whom (modern era; lists and discover). */
export type CacheScope = "public" | "private";

/** A decoded `server/discover` result. */
export type DiscoverResult = {
  /** The revisions the server speaks, as it lists them. */
  supportedVersions: string[];
  capabilities: JsonObject;
  /** What the server says of itself in the result's `_meta`, when it does. */
  serverInfo?: Implementation;
  instructions?: string;
  /** Freshness in milliseconds; 0 when absent or not a non-negative integer. */
  ttlMs: number;
  /** `private` when absent or not one of the two. */
  cacheScope: CacheScope;
};

/** What a request's `params._meta` says of the modern era. */
export type RequestMeta =
  /** No protocol version: a legacy-era request. */
  | { kind: "none" }
  /** A well-formed envelope. */
  | {
    kind: "envelope";
    protocolVersion: string;
    clientCapabilities: JsonObject;
    clientInfo?: Implementation;
  }
  /** A protocol version is claimed but the envelope is malformed. */
  | { kind: "malformed"; message: string };

/** The identifier of the tasks extension of the modern era, in capabilities' `extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * The envelope a client puts in `params._meta` of every modern-era
 * request: the version, its capabilities (empty here: no sampling, no roots,
 * no elicitation) and what it calls itself.
 *
 * @example
 * ```ts
 * import { requestMeta } from "@loom/mcp/codec";
 * console.log(requestMeta("2026-07-28", { name: "me", version: "1" }));
 * ```
 */
export function requestMeta(
  version: string,
  clientInfo: Implementation,
  capabilities: JsonObject = {},
): JsonObject {
  return {
    [META_PROTOCOL_VERSION]: version,
    [META_CLIENT_CAPABILITIES]: { ...capabilities },
    [META_CLIENT_INFO]: { ...clientInfo },
  };
}

function decodeImplementation(value: JsonValue | undefined): Implementation | undefined {
  if (!isJsonObject(value) || typeof value.name !== "string") return undefined;
  const info: Implementation = {
    name: value.name,
    version: typeof value.version === "string" ? value.version : "",
  };
  if (typeof value.title === "string") info.title = value.title;
  return info;
}

/**
 * Reads the modern-era envelope of a request's parameters. No protocol
 * version key means a legacy-era request; a version that is there with
 * a wrong type, or capabilities missing or not an object, or client info
 * that is not an object, is malformed (a server answers `-32602`).
 *
 * @example
 * ```ts
 * import { decodeRequestMeta } from "@loom/mcp/codec";
 * console.log(decodeRequestMeta({ name: "x" }).kind); // none
 * ```
 */
export function decodeRequestMeta(params: JsonValue | undefined): RequestMeta {
  if (!isJsonObject(params) || !isJsonObject(params._meta)) return { kind: "none" };
  const meta = params._meta;
  if (!(META_PROTOCOL_VERSION in meta)) return { kind: "none" };
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== "string") {
    return {
      kind: "malformed",
      message: `"${META_PROTOCOL_VERSION}" is ${describeValue(version)}, not a string`,
    };
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(capabilities)) {
    return {
      kind: "malformed",
      message: `"${META_CLIENT_CAPABILITIES}" is ${describeValue(capabilities)}, not an object`,
    };
  }
  const envelope: RequestMeta & { kind: "envelope" } = {
    kind: "envelope",
    protocolVersion: version,
    clientCapabilities: capabilities,
  };
  if (META_CLIENT_INFO in meta) {
    const info = decodeImplementation(meta[META_CLIENT_INFO]);
    if (info === undefined) {
      return {
        kind: "malformed",
        message: `"${META_CLIENT_INFO}" has no string "name"`,
      };
    }
    envelope.clientInfo = info;
  }
  return envelope;
}

function invalid(message: string): { ok: false; error: ProtocolFault } {
  return err({ kind: "invalid_result", message });
}

/**
 * Checks the `resultType` of a modern-era result: `complete` passes, and so
 * does none at all, which means it (SEP-2322); `input_required` (answered by
 * the client's request path before this check) or an unknown value is refused,
 * naming the method (MCP allows it only on `tools/call`, `prompts/get` and
 * `resources/read`, whose rounds the client answers).
 *
 * @example
 * ```ts
 * import { checkResultType } from "@loom/mcp/codec";
 * console.log(checkResultType("tools/call", { resultType: "complete", content: [] }).ok); // true
 * ```
 */
export function checkResultType(method: string, value: JsonValue): Result<void, ProtocolFault> {
  const where = `Cannot decode ${method} result`;
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const type = value.resultType;
  // A result that says nothing of its type is complete (SEP-2322).
  if (type === "complete" || type === undefined) return ok(undefined);
  if (type === "input_required") {
    return invalid(
      `${where}: the server asks for input ("resultType" "input_required"), ` +
        "which MCP allows only on tools/call, prompts/get and resources/read",
    );
  }
  return invalid(`${where}: "resultType" is ${describeValue(type)}, not "complete"`);
}

/**
 * Decodes a `server/discover` result: the versions and capabilities are
 * required; the caching fields are read leniently (absent or wrong: `0` and
 * `private`, as the specification says to treat them), and a `resultType`,
 * when present, must be `complete`.
 *
 * @example
 * ```ts
 * import { decodeDiscoverResult } from "@loom/mcp/codec";
 * const result = decodeDiscoverResult({
 *   resultType: "complete",
 *   supportedVersions: ["2026-07-28"],
 *   capabilities: { tools: {} },
 *   ttlMs: 0,
 *   cacheScope: "private",
 * });
 * console.log(result.ok && result.value.supportedVersions); // ["2026-07-28"]
 * ```
 */
export function decodeDiscoverResult(value: JsonValue): Result<DiscoverResult, ProtocolFault> {
  const where = "Cannot decode server/discover result";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  if (value.resultType !== undefined) {
    const type = checkResultType(DISCOVER_METHOD, value);
    if (!type.ok) return type;
  }
  const versions = value.supportedVersions;
  if (!Array.isArray(versions) || !versions.every((v) => typeof v === "string")) {
    return invalid(`${where}: "supportedVersions" is ${describeValue(versions)}, not strings`);
  }
  const capabilities = value.capabilities;
  if (!isJsonObject(capabilities)) {
    return invalid(`${where}: "capabilities" is ${describeValue(capabilities)}, not an object`);
  }
  const ttl = value.ttlMs;
  const result: DiscoverResult = {
    supportedVersions: [...versions] as string[],
    capabilities,
    ttlMs: typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : 0,
    cacheScope: value.cacheScope === "public" ? "public" : "private",
  };
  const meta = value._meta;
  const info = isJsonObject(meta) ? decodeImplementation(meta[META_SERVER_INFO]) : undefined;
  if (info !== undefined) result.serverInfo = info;
  if (typeof value.instructions === "string") result.instructions = value.instructions;
  return ok(result);
}
