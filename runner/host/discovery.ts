/**
 * Discovery on demand, as the runner and the harness share it: what a search
 * finds ({@linkcode ToolMatch}), what answers a program's requests
 * ({@linkcode Discovery}: a harness's `search` and `describe`), and the
 * bounds of each. Inside a program, the build root's `./tools.ts` asks the
 * host through the sandbox's channel, and the host answers with the
 * harness's own functions, so a program finds what the harness would.
 *
 * @module
 */

import type { Result } from "../../codec/result.ts";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS } from "./limits.ts";

/** The specifier a program imports `search` and `describe` from: a module of its build root. */
export const TOOLS_SPECIFIER = "./tools.ts";

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

/** Options of a search. */
export type SearchOptions = {
  /** How many matches at most, from 1 to {@linkcode MAX_SEARCH_LIMIT}; {@linkcode DEFAULT_SEARCH_LIMIT}. */
  limit?: number;
};

/** Why a tool could not be described. */
export type DescribeFailure = { kind: string; message: string };

/** What answers discovery: a harness's `search` and `describe`. */
export type Discovery = {
  /** The best-matching tools across every ready server, best first. */
  search(query: string, options?: SearchOptions): ToolMatch[];
  /** One tool's whole block: how to import it, its types, its signature, its full description. */
  describe(server: string, tool: string): Result<string, DescribeFailure>;
};

/**
 * What is wrong with a search's query and limit, in a sentence, or
 * undefined when nothing is: the one rule the harness (which throws) and a
 * program's requests (refused as a value) are held to.
 *
 * @example Check a search before running it
 * ```ts
 * import { searchProblem } from "@loom/mcp/runner";
 * console.log(searchProblem("read a file", 5)); // undefined
 * console.log(searchProblem("read a file", 0) !== undefined); // true
 * ```
 */
export function searchProblem(query: unknown, limit: unknown): string | undefined {
  if (typeof query !== "string") return `Cannot search: the query is ${typeof query}, not a string`;
  if (query.length > MAX_SEARCH_QUERY_CHARS) {
    return `Cannot search: the query is ${query.length} characters long, more than ` +
      `${MAX_SEARCH_QUERY_CHARS}; say what you need in fewer words`;
  }
  if (limit === undefined) return undefined;
  if (
    typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 ||
    limit > MAX_SEARCH_LIMIT
  ) {
    const given = typeof limit === "number"
      ? String(limit)
      : `${JSON.stringify(limit) ?? String(limit)} (${limit === null ? "null" : typeof limit})`;
    return `Cannot search: the limit ${given} is not an integer from 1 to ` +
      `${MAX_SEARCH_LIMIT}; give a number, or leave it out for ${DEFAULT_SEARCH_LIMIT}`;
  }
  return undefined;
}
