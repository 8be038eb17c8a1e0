/**
 * Discovery inside a program: {@linkcode search} finds the tools of every
 * server of the harness that match what a program needs, {@linkcode describe}
 * gives one tool's whole block (its signature with every type, its full
 * description), so that a program can find a tool, print its signature, and
 * the next program can import and call it. A module of the build root,
 * imported as `./tools.ts`; the host answers with the harness's own
 * `search` and `describe`.
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

import { McpCallError } from "./cap.ts";

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

/** A request of a program to the host. */
export type DiscoveryRequest =
  | { op: "search"; query: string; limit?: number }
  | { op: "describe"; server: string; tool: string };

/** What the host answers to one request: a value, or a refusal with a code. */
export type DiscoveryReply =
  | { ok: true; value: unknown }
  | { ok: false; code: string; message: string };

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
  if (!reply.ok) throw new McpCallError(reply.code, reply.message, where);
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
