/**
 * Discovery inside a program: {@linkcode search} finds the tools of every
 * server of the harness that match what a program needs, {@linkcode describe}
 * gives one tool's whole block (its signature with every type, its full
 * description), so that a program can find a tool, print its signature, and
 * the next program can import and call it. A module of the build root,
 * imported as `./tools.ts`; the host answers with the harness's own
 * `search` and `describe`.
 *
 * The servers' prompts and resources too: {@linkcode listPrompts},
 * {@linkcode getPrompt}, {@linkcode listResources} and
 * {@linkcode readResource}, answered by the harness's own (`listPrompts`,
 * `getPrompt`, `listResources`, `readResource`); each is one of the run's
 * calls in its report, a get or a read asks the approval hook first.
 *
 * This file imports nothing but `cap.ts` beside it: a runner copies its
 * source text into a sandbox build root. Its types mirror
 * `runner/host/discovery.ts` structurally.
 *
 * Lifecycle: the runner's prelude calls {@linkcode installDiscovery} once,
 * before the program runs; the channel then carries every request to the
 * host for the life of the sandbox.
 *
 * @example Find a tool and read its signature
 * ```ts ignore
 * import { describe, search } from "./tools.ts";
 * const [best] = await search("open an issue in a repository", { limit: 5 });
 * if (best !== undefined) console.log(await describe(best.server, best.tool));
 * ```
 *
 * @module
 */

import { type ContentBlock, type JsonValue, McpCallError, readResource } from "./cap.ts";

export { readResource };

/** One tool a search found. */
export type ToolMatch = {
  /** The server's name; its module is `./mcp/<server>.ts`. */
  server: string;
  /** The tool's wire name. */
  tool: string;
  /** Its function's name in the server's module. */
  name: string;
  /** Its line of the server's surface block: the signature and a summary. */
  line: string;
  /** How well it matched, higher is better; comparable within one search only. */
  score: number;
};

/** One prompt a server lists, with the server it came from. */
export type PromptEntry = {
  server: string;
  name: string;
  title?: string;
  description?: string;
  /** What the prompt takes, each a string: `getPrompt`'s `args`. */
  arguments: { name: string; title?: string; description?: string; required?: boolean }[];
};

/** A prompt filled with its arguments: the messages it makes. */
export type PromptResult = {
  description?: string;
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
};

/** One resource a server lists, with the server it came from; read it with `readResource`. */
export type ResourceEntry = {
  server: string;
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonValue;
};

/** A request of a program to the host. */
export type DiscoveryRequest =
  | { op: "search"; query: string; limit?: number }
  | { op: "describe"; server: string; tool: string }
  | { op: "listPrompts"; server?: string }
  | { op: "getPrompt"; server: string; name: string; args: Record<string, string> }
  | { op: "listResources"; server?: string };

/** What the host answers to one request: a value, or a refusal with a code. */
export type DiscoveryReply =
  | { ok: true; value: unknown }
  | { ok: false; code: string; message: string; reason?: string };

/** Carries one request from the sandbox to the host. A runner's prelude provides it. */
export type DiscoveryChannel = (request: DiscoveryRequest) => Promise<DiscoveryReply>;

let installed: DiscoveryChannel | undefined;

/**
 * Installs the channel every request goes through. A runner's prelude calls
 * it once, before the program runs; a second call throws, so a program
 * cannot replace the channel.
 *
 * @example Install a channel that finds nothing
 * ```ts ignore
 * import { installDiscovery } from "./tools.ts";
 * installDiscovery(async () => ({ ok: true, value: [] }));
 * ```
 */
export function installDiscovery(channel: DiscoveryChannel): void {
  if (typeof channel !== "function") {
    throw new TypeError(`Cannot install discovery: it is ${typeof channel}, not a function`);
  }
  if (installed !== undefined) {
    throw new TypeError("Cannot install discovery: a channel is already installed");
  }
  installed = channel;
}

async function ask(
  request: DiscoveryRequest,
  where: { server: string; tool: string },
  what: string,
): Promise<unknown> {
  const channel = installed;
  if (channel === undefined) {
    throw new McpCallError("no_channel", `Cannot ${what}: no channel is installed`, where);
  }
  let reply: DiscoveryReply;
  try {
    reply = await channel(request);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpCallError(
      "channel_failed",
      `Cannot ${what}: the channel failed: ${reason}`,
      where,
    );
  }
  if (reply === null || typeof reply !== "object" || typeof reply.ok !== "boolean") {
    throw new McpCallError("result_malformed", `Cannot ${what}: the reply is malformed`, where);
  }
  if (!reply.ok) {
    // A denial's reason, as the approval hook gave it (a get of a prompt).
    const reason = typeof reply.reason === "string" ? { reason: reply.reason } : {};
    throw new McpCallError(reply.code, reply.message, { ...where, ...reason });
  }
  return reply.value;
}

/**
 * The tools across every server of the harness that best match what `query`
 * asks for, in words ("read a file", "open an issue in a repository"), best
 * first: at most `options.limit` (10 by default, 50 at most). Rejects with
 * `McpCallError` (code `invalid_arguments`) for a query past 1,000
 * characters or a limit out of range.
 *
 * @example Print the best five
 * ```ts ignore
 * import { search } from "./tools.ts";
 * for (const match of await search("take a screenshot", { limit: 5 })) {
 *   console.log(match.server, match.line);
 * }
 * ```
 */
export async function search(
  query: string,
  options: { limit?: number } = {},
): Promise<ToolMatch[]> {
  const request: DiscoveryRequest = options?.limit === undefined
    ? { op: "search", query }
    : { op: "search", query, limit: options.limit };
  const value = await ask(request, { server: "", tool: "" }, "search");
  if (!Array.isArray(value)) {
    throw new McpCallError("result_malformed", "Cannot search: the reply is not a list", {
      server: "",
      tool: "",
    });
  }
  return value as ToolMatch[];
}

/**
 * One tool's whole block, the tool named by its wire name or by its
 * function's name: how to import it, the types its signature names, and its
 * function with the full description, as its module declares it. Rejects
 * with `McpCallError` for a server or tool the harness does not have (code
 * `unknown_server`, `unknown_tool`, whose message names the closest).
 *
 * @example Read a signature before calling it
 * ```ts ignore
 * import { describe } from "./tools.ts";
 * console.log(await describe("github", "create_issue"));
 * ```
 */
export async function describe(server: string, tool: string): Promise<string> {
  const where = { server: String(server), tool: String(tool) };
  const value = await ask({ op: "describe", ...where }, where, `describe "${where.tool}"`);
  if (typeof value !== "string") {
    throw new McpCallError("result_malformed", "Cannot describe: the reply is not text", where);
  }
  return value;
}

function listOf(value: unknown, what: string, where: { server: string; tool: string }): unknown[] {
  if (!Array.isArray(value)) {
    throw new McpCallError("result_malformed", `Cannot ${what}: the reply is not a list`, where);
  }
  return value;
}

/**
 * The prompts of one server, or, with none named, of every server that
 * offers prompts, each with its server. Rejects with `McpCallError` for a
 * server the harness does not have (`unknown_server`) or that offers none.
 *
 * @example List every prompt
 * ```ts ignore
 * import { listPrompts } from "./tools.ts";
 * for (const prompt of await listPrompts()) console.log(prompt.server, prompt.name);
 * ```
 */
export async function listPrompts(server?: string): Promise<PromptEntry[]> {
  const where = { server: server === undefined ? "" : String(server), tool: "prompts/list" };
  const request: DiscoveryRequest = server === undefined
    ? { op: "listPrompts" }
    : { op: "listPrompts", server: where.server };
  return listOf(await ask(request, where, "list prompts"), "list prompts", where) as PromptEntry[];
}

/**
 * One prompt of one server filled with `args` (each a string): its
 * messages. Asks the harness's approval first; rejects with `McpCallError`
 * when denied (`denied`), for an unknown server, and when the server
 * refuses.
 *
 * @example Get a prompt's messages
 * ```ts ignore
 * import { getPrompt } from "./tools.ts";
 * const prompt = await getPrompt("everything", "args-prompt", { city: "Paris" });
 * console.log(prompt.messages.length);
 * ```
 */
export async function getPrompt(
  server: string,
  name: string,
  args: Record<string, string> = {},
): Promise<PromptResult> {
  const where = { server: String(server), tool: "prompts/get" };
  const value = await ask(
    { op: "getPrompt", server: where.server, name: String(name), args },
    where,
    `get prompt "${String(name)}"`,
  );
  if (
    value === null || typeof value !== "object" || !Array.isArray((value as PromptResult).messages)
  ) {
    throw new McpCallError(
      "result_malformed",
      "Cannot get a prompt: the reply has no messages",
      where,
    );
  }
  return value as PromptResult;
}

/**
 * The resources of one server, or, with none named, of every server that
 * offers resources, each with its server; read one with
 * {@linkcode readResource}. Rejects with `McpCallError` for a server the
 * harness does not have or that offers none.
 *
 * @example Read every text resource of a server
 * ```ts ignore
 * import { listResources, readResource } from "./tools.ts";
 * for (const entry of await listResources("docs")) {
 *   console.log((await readResource(entry.server, entry.uri)).text);
 * }
 * ```
 */
export async function listResources(server?: string): Promise<ResourceEntry[]> {
  const where = { server: server === undefined ? "" : String(server), tool: "resources/list" };
  const request: DiscoveryRequest = server === undefined
    ? { op: "listResources" }
    : { op: "listResources", server: where.server };
  const value = await ask(request, where, "list resources");
  return listOf(value, "list resources", where) as ResourceEntry[];
}
