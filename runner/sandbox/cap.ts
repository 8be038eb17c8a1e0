/**
 * The seam every generated `mcp/<segment>.ts` module imports, inside the
 * code-mode sandbox: {@linkcode invoke}, the {@linkcode ToolResult} it
 * resolves to, and the errors a program can catch.
 *
 * This file imports nothing: a runner copies its source text into a sandbox
 * build root, where no other module of this library exists. Its types mirror
 * `codec/json.ts` and `codec/protocol.ts` structurally.
 *
 * Lifecycle: the runner's bootstrap calls {@linkcode installChannel} once,
 * before the program runs; the channel then carries every call to the host
 * for the life of the sandbox. Nothing here closes it.
 *
 * @example Call a tool and read its text
 * ```ts ignore
 * import { invoke, McpToolError } from "@loom/mcp/cap";
 * try {
 *   const result = await invoke("filesystem", "read_file", { path: "README.md" });
 *   console.log(result.text);
 * } catch (error) {
 *   if (error instanceof McpToolError) console.log("the tool failed:", error.text);
 *   else throw error;
 * }
 * ```
 *
 * @module
 */

/** Any JSON value. Integers past ±(2^53 - 1) are `bigint`, so none is ever rounded. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** The contents of an embedded resource: text or base64 blob. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** Optional annotations a content block may carry, raw. */
export type Annotated = { annotations?: JsonValue; _meta?: JsonValue };

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

/** What the host answers to one call: a tool result, or a denial with a code. */
export type CapReply =
  | { ok: true; content: ContentBlock[]; structuredContent?: JsonValue; isError: boolean }
  | { ok: false; code: string; message: string; reason?: string };

/**
 * Carries one call from the sandbox to the host. A runner's bootstrap
 * provides it.
 */
export type CapChannel = (server: string, tool: string, args: JsonObject) => Promise<CapReply>;

/**
 * Carries one read of a resource from the sandbox to the host, as a request
 * of its own: the server and the URI. The reply's content is the resource's
 * contents, each a `resource` block. A runner's bootstrap provides it.
 */
export type CapReader = (server: string, uri: string) => Promise<CapReply>;

/** Options of {@linkcode installChannel}. */
export type InstallOptions = {
  /** What carries a program's reads of resources; without it, a read is `no_channel`. */
  read?: CapReader;
};

/** The longest excerpt of a tool's text an error message quotes. */
export const MAX_ERROR_TEXT_CHARS = 500;

function joinText(content: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of content) if (block.type === "text") parts.push(block.text);
  return parts.join("\n");
}

function bigintDigits(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

function excerpt(text: string): string {
  return text.length > MAX_ERROR_TEXT_CHARS ? `${text.slice(0, MAX_ERROR_TEXT_CHARS)}…` : text;
}

/**
 * A successful tool result: its content blocks, its structured content (typed
 * `T` when the tool declares an output schema), and the text blocks joined.
 *
 * @example Read a result
 * ```ts
 * import { ToolResult } from "@loom/mcp/cap";
 * const result = new ToolResult([{ type: "text", text: "a" }, { type: "text", text: "b" }]);
 * console.log(result.text); // "a\nb"
 * ```
 */
export class ToolResult<T = JsonValue | undefined> {
  /** Every content block, in the server's order. */
  readonly content: ContentBlock[];
  /** The structured content; `undefined` when the server sent none. */
  readonly structuredContent: T;

  /** Wraps the blocks and structured content of one successful call. */
  constructor(content: ContentBlock[], structuredContent?: T) {
    this.content = content;
    this.structuredContent = structuredContent as T;
  }

  /** The text blocks joined with `"\n"`; empty when there are none. */
  get text(): string {
    return joinText(this.content);
  }

  /**
   * The size of the result as JSON, in UTF-8 bytes: what returning or
   * printing it costs against the report's budget, which cuts what is past
   * it. Ask before printing a large result.
   */
  get bytes(): number {
    return utf8Length(JSON.stringify(this.toJSON(), bigintDigits));
  }

  /**
   * How a logged result shows, wherever it is nested: as its JSON, so its
   * text appears beside its blocks.
   */
  [Symbol.for("Deno.customInspect")](
    inspect: (value: unknown, options: unknown) => string,
    options: unknown,
  ): string {
    return inspect(this.toJSON(), options);
  }

  /** What the result is as JSON: `{ content, structuredContent?, text }`. */
  toJSON(): { content: ContentBlock[]; structuredContent?: JsonValue; text: string } {
    if (this.structuredContent === undefined) return { content: this.content, text: this.text };
    const structuredContent = this.structuredContent as JsonValue;
    return { content: this.content, structuredContent, text: this.text };
  }
}

/**
 * What reading a resource answered: every content of the resource, text or
 * blob (base64, as the server sent it), and the texts joined.
 *
 * @example Read a resource's text
 * ```ts
 * import { ResourceResult } from "@loom/mcp/cap";
 * const read = new ResourceResult([{ uri: "demo://1", text: "hello" }]);
 * console.log(read.text); // "hello"
 * ```
 */
export class ResourceResult {
  /** Every content, in the server's order. */
  readonly contents: ResourceContents[];

  /** Wraps the contents of one read. */
  constructor(contents: ResourceContents[]) {
    this.contents = contents;
  }

  /** The text contents joined with `"\n"`; empty when there are none. */
  get text(): string {
    const parts: string[] = [];
    for (const content of this.contents) if ("text" in content) parts.push(content.text);
    return parts.join("\n");
  }

  /** What the read is as JSON: `{ contents, text }`. */
  toJSON(): { contents: ResourceContents[]; text: string } {
    return { contents: this.contents, text: this.text };
  }
}

/**
 * A tool ran and reported failure (`isError: true`). Carries every content
 * block the server sent, so a program can inspect what went wrong.
 *
 * @example Catch a tool failure
 * ```ts ignore
 * import { invoke, McpToolError } from "@loom/mcp/cap";
 * try {
 *   await invoke("filesystem", "read_file", { path: "/missing" });
 * } catch (error) {
 *   if (error instanceof McpToolError) console.log(error.tool, error.text);
 * }
 * ```
 */
export class McpToolError extends Error {
  /** The server whose tool failed. */
  readonly server: string;
  /** The wire name of the tool that failed. */
  readonly tool: string;
  /** Every content block of the failed result. */
  readonly content: ContentBlock[];
  /** The structured content of the failed result, when there was one. */
  readonly structuredContent?: JsonValue;

  /** Builds the error for one failed result. */
  constructor(
    server: string,
    tool: string,
    content: ContentBlock[],
    structuredContent?: JsonValue,
  ) {
    const text = joinText(content);
    super(
      `Tool "${tool}" of server "${server}" reported an error` +
        (text.length > 0 ? `: ${excerpt(text)}` : ""),
    );
    this.name = "McpToolError";
    this.server = server;
    this.tool = tool;
    this.content = content;
    if (structuredContent !== undefined) this.structuredContent = structuredContent;
  }

  /** The text blocks of the failed result joined with `"\n"`. */
  get text(): string {
    return joinText(this.content);
  }
}

/**
 * A call that never produced a tool result: denied by the host, refused
 * before sending, or lost in transport. `code` says which, for example
 * `denied` (the harness's approval refused it; `reason` says why),
 * `tool_disabled`, `tool_changed`, `no_channel`, `unknown_server`,
 * `unknown_tool`, `invalid_arguments` (the message names the path and the
 * rule), `task_required`, `unavailable`, `call_timed_out`, `server_error`,
 * `result_malformed`, `too_many_calls`, `channel_failed`.
 *
 * @example Tell a timeout from other failures
 * ```ts ignore
 * import { invoke, McpCallError } from "@loom/mcp/cap";
 * try {
 *   await invoke("slow", "wait", {});
 * } catch (error) {
 *   if (error instanceof McpCallError && error.code === "call_timed_out") console.log("retry later");
 *   else if (error instanceof McpCallError && error.code === "denied") console.log(error.reason);
 * }
 * ```
 */
export class McpCallError extends Error {
  /** Why the call failed, in snake_case. */
  readonly code: string;
  /**
   * The same as {@linkcode McpCallError.code}: the word the harness's own
   * refusals go by (`CallDenial.kind`), so a program may test either.
   */
  readonly kind: string;
  /** The server the call was for. */
  readonly server: string;
  /** The wire name of the tool the call was for. */
  readonly tool: string;
  /** Why the harness denied the call, when it said (code `denied`). */
  readonly reason?: string;

  /** Builds the error for one failed call. */
  constructor(
    code: string,
    message: string,
    options: { server: string; tool: string; reason?: string },
  ) {
    super(message);
    this.name = "McpCallError";
    this.code = code;
    this.kind = code;
    this.server = options.server;
    this.tool = options.tool;
    if (typeof options.reason === "string") this.reason = options.reason;
  }
}

let installed: CapChannel | undefined;
let reader: CapReader | undefined;

/**
 * Installs the channel every {@linkcode invoke} goes through, and the reader
 * every {@linkcode readResource} goes through. A runner's bootstrap calls it
 * once, before the program runs; a second call throws, so a program cannot
 * replace either.
 *
 * @example Install a channel that answers every call
 * ```ts ignore
 * import { installChannel } from "@loom/mcp/cap";
 * installChannel(async (_server, _tool, args) => ({
 *   ok: true,
 *   content: [{ type: "text", text: JSON.stringify(args) }],
 *   isError: false,
 * }));
 * ```
 */
export function installChannel(channel: CapChannel, options: InstallOptions = {}): void {
  if (typeof channel !== "function") {
    throw new TypeError(`Cannot install channel: it is ${typeof channel}, not a function`);
  }
  const read = options.read;
  if (read !== undefined && typeof read !== "function") {
    throw new TypeError(`Cannot install channel: its reader is ${typeof read}, not a function`);
  }
  if (installed !== undefined) {
    throw new TypeError("Cannot install channel: a channel is already installed");
  }
  installed = channel;
  reader = read;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isReply(value: unknown): value is CapReply {
  if (!isPlainObject(value)) return false;
  if (value.ok === false) {
    return typeof value.code === "string" && typeof value.message === "string";
  }
  return value.ok === true && Array.isArray(value.content) && typeof value.isError === "boolean";
}

/** Options of {@linkcode invoke}. */
export type InvokeOptions = {
  /**
   * The tool declares an output schema, so a successful result must carry
   * structured content; one without is `result_malformed`.
   */
  structured?: boolean;
};

/**
 * Calls one tool of one server through the installed channel. Resolves to
 * the {@linkcode ToolResult}; rejects with {@linkcode McpToolError} when the
 * tool reports an error, and with {@linkcode McpCallError} when the call is
 * denied, fails in transport, no channel is installed (code `no_channel`),
 * or a tool with an output schema sent no structured content
 * (`result_malformed`). `T` is the type of the structured content, as the
 * generated function declares it.
 *
 * @example Call a tool
 * ```ts ignore
 * import { invoke } from "@loom/mcp/cap";
 * const result = await invoke("memory", "read_graph", {});
 * console.log(result.structuredContent ?? result.text);
 * ```
 */
export async function invoke<T = JsonValue | undefined>(
  server: string,
  tool: string,
  args: JsonObject,
  options: InvokeOptions = {},
): Promise<ToolResult<T>> {
  const where = { server: String(server), tool: String(tool) };
  const channel = installed;
  if (channel === undefined) {
    throw new McpCallError(
      "no_channel",
      `Cannot call tool "${where.tool}" of server "${where.server}": no channel is installed; ` +
        "run the program through the code-mode runner",
      where,
    );
  }
  if (!isPlainObject(args)) {
    throw new McpCallError(
      "invalid_arguments",
      `Cannot call tool "${where.tool}" of server "${where.server}": ` +
        "the arguments must be a plain object",
      where,
    );
  }
  let reply: unknown;
  try {
    reply = await channel(where.server, where.tool, args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpCallError(
      "channel_failed",
      `Cannot call tool "${where.tool}" of server "${where.server}": the channel failed: ${reason}`,
      where,
    );
  }
  if (!isReply(reply)) {
    throw new McpCallError(
      "result_malformed",
      `Cannot call tool "${where.tool}" of server "${where.server}": the channel's reply is malformed`,
      where,
    );
  }
  if (!reply.ok) {
    const reason = typeof reply.reason === "string" ? { reason: reply.reason } : {};
    throw new McpCallError(reply.code, reply.message, { ...where, ...reason });
  }
  if (reply.isError) {
    throw new McpToolError(where.server, where.tool, reply.content, reply.structuredContent);
  }
  if (options.structured === true && reply.structuredContent === undefined) {
    throw new McpCallError(
      "result_malformed",
      `Cannot call tool "${where.tool}" of server "${where.server}": it declares an output ` +
        "schema but its result has no structured content",
      where,
    );
  }
  return new ToolResult(reply.content, reply.structuredContent as T);
}

/**
 * Reads one resource of one server by its URI through the installed reader:
 * the `read_resource(uri)` of a generated module calls it. Rejects with
 * {@linkcode McpCallError} when the read is refused (`resources_not_declared`,
 * `resource_too_large`, ...) or fails.
 *
 * @example Follow a resource link a tool returned
 * ```ts ignore
 * import { invoke, readResource } from "@loom/mcp/cap";
 * const links = await invoke("everything", "get-resource-links", { count: 1 });
 * const link = links.content.find((block) => block.type === "resource_link");
 * if (link?.type === "resource_link") console.log((await readResource("everything", link.uri)).text);
 * ```
 */
export async function readResource(server: string, uri: string): Promise<ResourceResult> {
  const where = { server: String(server), tool: "resources/read" };
  const read = reader;
  if (read === undefined) {
    throw new McpCallError(
      "no_channel",
      `Cannot read a resource of server "${where.server}": no channel is installed; ` +
        "run the program through the code-mode runner",
      where,
    );
  }
  if (typeof uri !== "string") {
    throw new McpCallError(
      "invalid_arguments",
      "Cannot read a resource: its uri is not a string",
      where,
    );
  }
  let reply: unknown;
  try {
    reply = await read(where.server, uri);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpCallError(
      "channel_failed",
      `Cannot read a resource of server "${where.server}": the channel failed: ${reason}`,
      where,
    );
  }
  if (!isReply(reply)) {
    throw new McpCallError(
      "result_malformed",
      `Cannot read a resource of server "${where.server}": the channel's reply is malformed`,
      where,
    );
  }
  if (!reply.ok) {
    const reason = typeof reply.reason === "string" ? { reason: reply.reason } : {};
    throw new McpCallError(reply.code, reply.message, { ...where, ...reason });
  }
  const contents: ResourceContents[] = [];
  for (const block of reply.content) if (block.type === "resource") contents.push(block.resource);
  return new ResourceResult(contents);
}
