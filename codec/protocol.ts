/**
 * MCP messages this client reads: the `server/discover` result of the
 * modern era, the initialize result of the legacy era, a `tools/list`
 * page and a `tools/call` result, and the `resultType` every result of the
 * modern era carries. Every decoder is total.
 *
 * Two eras: `2026-07-28` and later (modern) have no handshake; every request
 * carries its version, client capabilities and client info in
 * `params._meta` (the envelope), `server/discover` says what a server
 * speaks, and every result says its `resultType`. `2025-11-25` and earlier
 * (legacy) start with `initialize`.
 *
 * Strict envelope, tolerant content: a field this library relies on is
 * checked and a wrong one refused; unknown fields are ignored; schemas,
 * annotations and `structuredContent` cross raw, to be treated downstream as
 * untrusted data.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "./json.ts";
import { err, ok, type Result } from "./result.ts";
import { describeValue } from "./quote.ts";

/** The legacy-era revision this client asks for in `initialize`. */
export const REQUESTED_VERSION = "2025-11-25";

/** The modern-era revisions this client speaks, newest first. */
export const MODERN_VERSIONS = ["2026-07-28"] as const;

/** The legacy-era revisions this client speaks, newest first. */
export const LEGACY_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
] as const;

/** Every revision this client speaks, newest first. */
export const SUPPORTED_VERSIONS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS] as const;

/**
 * A tool server's answer to a legacy `initialize`: the version the client
 * asked for when it is one of {@linkcode LEGACY_VERSIONS}, the newest
 * otherwise, its tools (whose list never changes) and who it is.
 *
 * @example
 * ```ts
 * import { legacyInitializeResult } from "./protocol.ts";
 * legacyInitializeResult({ protocolVersion: "2025-06-18" }, { name: "s", version: "1" });
 * ```
 */
export function legacyInitializeResult(
  params: JsonObject,
  serverInfo: JsonObject,
  instructions?: string,
): JsonObject {
  const requested = params.protocolVersion;
  const version = typeof requested === "string" &&
      (LEGACY_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LEGACY_VERSIONS[0];
  const result: JsonObject = {
    protocolVersion: version,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { ...serverInfo },
  };
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}

/** A protocol revision this client speaks. */
export type SupportedVersion = typeof SUPPORTED_VERSIONS[number];

/** Which era a revision belongs to: stateless (`modern`) or handshake (`legacy`). */
export type Era = "modern" | "legacy";

/** `params._meta` key of a request's protocol version (modern era). */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** `params._meta` key of a request's client capabilities (modern era). */
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** `params._meta` key of a request's client info (modern era). */
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
/** `result._meta` key of a server's info (modern era). */
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
/**
 * `params._meta` key of the `subscriptions/listen` request a notification
 * belongs to (modern era): the JSON-RPC id of that request.
 */
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** The first revision without a handshake. */
const FIRST_MODERN_VERSION = "2026-07-28";

/**
 * The era of a revision: `2026-07-28` and later are modern. Revisions are
 * dates, so the comparison is on the string, as the specification does.
 *
 * @example
 * ```ts
 * import { eraOf } from "@loom/mcp/codec";
 * console.log(eraOf("2025-11-25")); // legacy
 * ```
 */
export function eraOf(version: string): Era {
  return version >= FIRST_MODERN_VERSION ? "modern" : "legacy";
}

/** Why a result from a server is refused. */
export type ProtocolFault =
  | {
    kind: "version_unsupported";
    requested: string;
    received: string;
    message: string;
  }
  | { kind: "invalid_result"; message: string; index?: number };

/** The name and version a peer gives of itself. */
export type Implementation = { name: string; version: string; title?: string };

/** A decoded `initialize` result; its version is supported by construction. */
export type InitializeResult = {
  protocolVersion: SupportedVersion;
  capabilities: JsonObject;
  serverInfo: Implementation;
  instructions?: string;
};

/** One tool as a server lists it; schemas and annotations are carried raw. */
export type ToolDescriptor = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonValue;
  outputSchema?: JsonValue;
  annotations?: JsonValue;
  /** How the tool may be called (`taskSupport`: `"forbidden"`, `"optional"`, `"required"`), raw. */
  execution?: JsonValue;
};

/** One `tools/list` page. */
export type ToolsPage = { tools: ToolDescriptor[]; nextCursor?: string };

/** Optional annotations a content block may carry, raw. */
export type Annotated = { annotations?: JsonValue; _meta?: JsonValue };

/** The contents of an embedded resource: text or base64 blob. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** One content block of a tool result, as the 2025-11-25 revision names them. */
export type ContentBlock =
  | { type: "text"; text: string } & Annotated
  | { type: "image"; data: string; mimeType: string } & Annotated
  | { type: "audio"; data: string; mimeType: string } & Annotated
  | {
    type: "resource_link";
    uri: string;
    name: string;
    title?: string;
    description?: string;
    mimeType?: string;
    size?: number;
  } & Annotated
  | { type: "resource"; resource: ResourceContents } & Annotated
  | { type: "other"; originalType: string; raw: JsonObject };

/** A decoded `tools/call` result. */
export type CallToolResult = {
  content: ContentBlock[];
  structuredContent?: JsonValue;
  isError: boolean;
};

function invalid(message: string, index?: number): { ok: false; error: ProtocolFault } {
  return err(
    index === undefined
      ? { kind: "invalid_result", message }
      : { kind: "invalid_result", message, index },
  );
}

/**
 * Tells whether a version string is one this client speaks.
 *
 * @example Check a version
 * ```ts
 * import { isSupportedVersion } from "@loom/mcp/codec";
 * console.log(isSupportedVersion("2025-06-18")); // true
 * ```
 */
export function isSupportedVersion(version: string): version is SupportedVersion {
  return (SUPPORTED_VERSIONS as readonly string[]).includes(version);
}

/**
 * Decodes the result of `initialize`. A version outside `accepted` (the
 * legacy-era {@linkcode LEGACY_VERSIONS} by default) is
 * `version_unsupported`, carrying both sides.
 *
 * @example Decode a handshake answer
 * ```ts
 * import { decodeInitializeResult } from "@loom/mcp/codec";
 * const result = decodeInitializeResult({
 *   protocolVersion: "2025-11-25",
 *   capabilities: { tools: {} },
 *   serverInfo: { name: "echo", version: "1.0.0" },
 * });
 * if (result.ok) console.log(result.value.serverInfo.name); // echo
 * ```
 */
export function decodeInitializeResult(
  value: JsonValue,
  requested: string = REQUESTED_VERSION,
  accepted: readonly string[] = LEGACY_VERSIONS,
): Result<InitializeResult, ProtocolFault> {
  const where = "Cannot decode initialize result";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const version = value.protocolVersion;
  if (typeof version !== "string") {
    return invalid(`${where}: "protocolVersion" is ${describeValue(version)}, not a string`);
  }
  if (!isSupportedVersion(version) || !accepted.includes(version)) {
    return err({
      kind: "version_unsupported",
      requested,
      received: version,
      message: `Server answered protocol version ${describeValue(version)} to a request for ` +
        `"${requested}"; this client speaks ${accepted.join(", ")}`,
    });
  }
  const capabilities = value.capabilities ?? {};
  if (!isJsonObject(capabilities)) {
    return invalid(`${where}: "capabilities" is ${describeValue(capabilities)}, not an object`);
  }
  const info = value.serverInfo;
  if (!isJsonObject(info) || typeof info.name !== "string") {
    return invalid(`${where}: "serverInfo" has no string "name"`);
  }
  const serverInfo: Implementation = {
    name: info.name,
    version: typeof info.version === "string" ? info.version : "",
  };
  if (typeof info.title === "string") serverInfo.title = info.title;
  const result: InitializeResult = { protocolVersion: version, capabilities, serverInfo };
  if (typeof value.instructions === "string") result.instructions = value.instructions;
  return ok(result);
}

/**
 * Decodes one `tools/list` page. One lying tool (not an object, no non-empty
 * string `name`, no `inputSchema`) fails the whole page, naming its index.
 *
 * @example Decode a page with a cursor
 * ```ts
 * import { decodeToolsPage } from "@loom/mcp/codec";
 * const page = decodeToolsPage({
 *   tools: [{ name: "echo", inputSchema: { type: "object" } }],
 *   nextCursor: "2",
 * });
 * if (page.ok) console.log(page.value.tools.length, page.value.nextCursor); // 1 "2"
 * ```
 */
export function decodeToolsPage(value: JsonValue): Result<ToolsPage, ProtocolFault> {
  const where = "Cannot decode tools/list page";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const list = value.tools;
  if (!Array.isArray(list)) {
    return invalid(`${where}: "tools" is ${describeValue(list)}, not an array`);
  }
  const tools: ToolDescriptor[] = [];
  for (let index = 0; index < list.length; index++) {
    const tool = decodeTool(list[index] as JsonValue);
    if (typeof tool === "string") return invalid(`${where}: tool ${index} ${tool}`, index);
    tools.push(tool);
  }
  const cursor = value.nextCursor;
  if (cursor === undefined || cursor === null) return ok({ tools });
  if (typeof cursor !== "string") {
    return invalid(`${where}: "nextCursor" is ${describeValue(cursor)}, not a string`);
  }
  return ok({ tools, nextCursor: cursor });
}

function decodeTool(value: JsonValue): ToolDescriptor | string {
  if (!isJsonObject(value)) return `is ${describeValue(value)}, not an object`;
  const name = value.name;
  if (typeof name !== "string" || name.length === 0) {
    return `has no non-empty string "name" (it is ${describeValue(name)})`;
  }
  if (!("inputSchema" in value)) return `${describeValue(name)} has no "inputSchema"`;
  const tool: ToolDescriptor = { name, inputSchema: value.inputSchema as JsonValue };
  if (typeof value.title === "string") tool.title = value.title;
  if (typeof value.description === "string") tool.description = value.description;
  if ("outputSchema" in value) tool.outputSchema = value.outputSchema as JsonValue;
  if ("annotations" in value) tool.annotations = value.annotations as JsonValue;
  if ("execution" in value) tool.execution = value.execution as JsonValue;
  return tool;
}

/**
 * Decodes a `tools/call` result. Every content block kind the 2025-11-25
 * revision names is typed; a block of an unknown kind is kept as `other`; a
 * known kind missing a field it needs fails the result, naming the block.
 *
 * @example Decode an error result
 * ```ts
 * import { decodeCallToolResult } from "@loom/mcp/codec";
 * const result = decodeCallToolResult({
 *   content: [{ type: "text", text: "no such file" }],
 *   isError: true,
 * });
 * if (result.ok) console.log(result.value.isError); // true
 * ```
 */
export function decodeCallToolResult(value: JsonValue): Result<CallToolResult, ProtocolFault> {
  const where = "Cannot decode tools/call result";
  if (!isJsonObject(value)) {
    return invalid(`${where}: it is ${describeValue(value)}, not an object`);
  }
  const list = value.content ?? [];
  if (!Array.isArray(list)) {
    return invalid(`${where}: "content" is ${describeValue(list)}, not an array`);
  }
  const isError = value.isError ?? false;
  if (typeof isError !== "boolean") {
    return invalid(`${where}: "isError" is ${describeValue(isError)}, not a boolean`);
  }
  const content: ContentBlock[] = [];
  for (let index = 0; index < list.length; index++) {
    const block = decodeBlock(list[index] as JsonValue);
    if (typeof block === "string") {
      return invalid(`${where}: content block ${index} ${block}`, index);
    }
    content.push(block);
  }
  const result: CallToolResult = { content, isError };
  if ("structuredContent" in value) result.structuredContent = value.structuredContent as JsonValue;
  return ok(result);
}

/**
 * Decodes one content block, as a tool result, a prompt message or a
 * sampling message carries it: the block, or why it is refused (a phrase
 * that reads after the block's name, e.g. `of type "text" has no string
 * "text"`).
 *
 * @example
 * ```ts
 * import { decodeContentBlock } from "@loom/mcp/codec";
 * console.log(decodeContentBlock({ type: "text", text: "hi" })); // { type: "text", text: "hi" }
 * ```
 */
export function decodeContentBlock(value: JsonValue): ContentBlock | string {
  return decodeBlock(value);
}

function decodeBlock(value: JsonValue): ContentBlock | string {
  if (!isJsonObject(value)) return `is ${describeValue(value)}, not an object`;
  const type = value.type;
  if (typeof type !== "string") return `has "type" ${describeValue(type)}, not a string`;
  switch (type) {
    case "text": {
      if (typeof value.text !== "string") return `of type "text" has no string "text"`;
      return annotate({ type, text: value.text }, value);
    }
    case "image":
    case "audio": {
      if (typeof value.data !== "string") return `of type "${type}" has no string "data"`;
      if (typeof value.mimeType !== "string") return `of type "${type}" has no string "mimeType"`;
      return annotate({ type, data: value.data, mimeType: value.mimeType }, value);
    }
    case "resource_link": {
      if (typeof value.uri !== "string") return `of type "resource_link" has no string "uri"`;
      if (typeof value.name !== "string") return `of type "resource_link" has no string "name"`;
      const link: ContentBlock & { type: "resource_link" } = {
        type,
        uri: value.uri,
        name: value.name,
      };
      if (typeof value.title === "string") link.title = value.title;
      if (typeof value.description === "string") link.description = value.description;
      if (typeof value.mimeType === "string") link.mimeType = value.mimeType;
      if (typeof value.size === "number") link.size = value.size;
      return annotate(link, value);
    }
    case "resource": {
      const resource = decodeResourceContents(value.resource);
      if (typeof resource === "string") return `of type "resource" ${resource}`;
      return annotate({ type, resource }, value);
    }
    default:
      return { type: "other", originalType: type, raw: value };
  }
}

function decodeResourceContents(value: JsonValue | undefined): ResourceContents | string {
  if (!isJsonObject(value)) return `has "resource" ${describeValue(value)}, not an object`;
  if (typeof value.uri !== "string") return `has a resource with no string "uri"`;
  const mime = typeof value.mimeType === "string" ? { mimeType: value.mimeType } : {};
  if (typeof value.text === "string") return { uri: value.uri, ...mime, text: value.text };
  if (typeof value.blob === "string") return { uri: value.uri, ...mime, blob: value.blob };
  return `has a resource with neither string "text" nor string "blob"`;
}

function annotate<T extends object>(block: T, source: JsonObject): T & Annotated {
  const out: T & Annotated = block;
  if ("annotations" in source) out.annotations = source.annotations as JsonValue;
  if ("_meta" in source) out._meta = source._meta as JsonValue;
  return out;
}
