/**
 * What a server built on {@linkcode serve} is made of: its name and version,
 * and the tools it mounts. A tool is a descriptor plus a `run` function.
 *
 * @module
 */

import type { JsonArray, JsonObject, JsonValue } from "../codec/json.ts";
import type { Annotated, ContentBlock, ResourceContents } from "../codec/protocol.ts";

/**
 * One content block a tool returns, in the wire shape of the 2025-11-25
 * revision: the client's decoded blocks but `other`, which only a decoder
 * makes.
 */
export type ToolContent = Exclude<ContentBlock, { type: "other" }>;

/**
 * What a tool run returns. `content` defaults to one text block holding
 * `structuredContent` as JSON when only that is given, else to no block.
 * `isError: true` reports a failure of the tool to the model (a protocol
 * outcome, not a JSON-RPC error).
 */
export type ToolResult = {
  content?: ToolContent[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
};

/** A tool's answer: a full result, or a string as a shortcut for one text block. */
export type ToolOutput = ToolResult | string;

/** Options of a child process spawned through the tool context: its stderr is always captured. */
export type CapturedCommandOptions = Omit<Deno.CommandOptions, "stderr">;

/** What a finished child run through {@linkcode ToolContext.output} left: its stderr went to the capture. */
export type CapturedOutput = {
  success: boolean;
  code: number;
  signal: Deno.Signal | null;
  stdout: Uint8Array;
};

/**
 * What a tool run receives besides its arguments.
 *
 * Everything a run writes to stderr is captured and returned to the caller
 * with the result. Writes through {@linkcode ToolContext.stderr} and children
 * started with {@linkcode ToolContext.spawn} or
 * {@linkcode ToolContext.output} are captured always; the process's own
 * fd 2 (`console.error`, `Deno.stderr`) only when the server runs with
 * `--allow-ffi`. A child started directly with `new Deno.Command(...)` and
 * `stderr: "inherit"` escapes the capture: Deno hands children the original
 * stderr, not the redirected fd 2.
 */
export type ToolContext = {
  /**
   * Aborted when the client cancels this call (`notifications/cancelled`).
   * End soon after: the next call waits `CANCELLED_CALL_GRACE_MS` for this
   * run, then starts without it (this run's answer is dropped either way).
   */
  signal: AbortSignal;
  /** Writes text to the run's captured stderr. */
  stderr(text: string): void;
  /**
   * Spawns a child whose stderr is piped into the capture. Its `stderr`
   * stream belongs to the capture: use `child.status` and, with
   * `stdout: "piped"`, `child.stdout`, never `child.output()`.
   */
  spawn(command: string | URL, options?: CapturedCommandOptions): Deno.ChildProcess;
  /** Runs a child to its end, stdout collected, stderr into the capture. */
  output(command: string | URL, options?: CapturedCommandOptions): Promise<CapturedOutput>;
};

/**
 * One tool a server mounts. `inputSchema` is a JSON Schema object with
 * `type: "object"`; arguments are not validated against it by the server, so
 * `run` checks what it reads. A tool never prompts: anything that would ask
 * the user is a parameter.
 */
export type Tool = {
  /** The wire name: 1 to 128 characters of `A-Z a-z 0-9 _ - .`. */
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  /**
   * An object schema of the tool's `structuredContent`; every result but an
   * error must then carry structured content (one without is answered as an
   * `isError` result, since clients refuse it).
   */
  outputSchema?: JsonObject;
  /** The spec's hints (`readOnlyHint`, ... booleans) and `title`, as clients decode them. */
  annotations?: JsonObject;
  /** Runs the tool. A throw becomes an `isError` result naming the tool. */
  run(args: JsonObject, context: ToolContext): ToolOutput | Promise<ToolOutput>;
};

/** A server: its identity, its tools, and what its `initialize` answer says. */
export type ServerDefinition = {
  name: string;
  version: string;
  title?: string;
  /** Sent as `instructions` in the `initialize` and `server/discover` results. */
  instructions?: string;
  tools: readonly Tool[];
  /**
   * How long a modern-era client may reuse the listing, and whether it
   * may share it across users: `ttlMs` 1 hour (`LIST_TTL_MS`) and
   * `cacheScope` `"private"` by default.
   */
  listCache?: { ttlMs: number; cacheScope: "public" | "private" };
};

/** Re-exported for tool authors: the JSON types arguments and results are made of. */
export type { Annotated, ContentBlock, JsonArray, JsonObject, JsonValue, ResourceContents };
