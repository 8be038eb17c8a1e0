// Private to client/: what a server's raw results mean, decoded once, on the
// main thread, by the code that answers the caller. The worker hands results
// back as it read them; a listing's pages are followed from here, each page
// one request through the worker, so that a page is decoded exactly once.

import { compactJson, isJsonObject, type JsonValue } from "../codec/json.ts";
import {
  type CallToolResult,
  decodeCallToolResult,
  decodeToolsPage,
  type ToolDescriptor,
} from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { type EraCodec, LEGACY_ERA } from "./thread/era.ts";
import { callTimedOut, type ClientError } from "./thread/outcomes.ts";
import { MAX_LISTING_BYTES, MAX_TOOL_PAGES } from "../settings/mod.ts";
import { MAX_TOOLS } from "../codegen/generate.ts";
import type { ToolListing } from "./tool_listing.ts";

/** Sends one `tools/list` request (parameters as compact JSON) with a deadline. */
export type PageRequest = (
  paramsText: string,
  timeoutMs: number,
) => Promise<Result<JsonValue, ClientError>>;

/**
 * Decodes a raw `tools/call` result, `result_malformed` when it lies; in a
 * modern session its `resultType` must be `complete`.
 */
export function decodeCallResult(
  server: string,
  value: JsonValue,
  era: EraCodec = LEGACY_ERA,
): Result<CallToolResult, ClientError> {
  const type = era.checkResult("tools/call", value);
  const decoded = type.ok ? decodeCallToolResult(value) : type;
  if (decoded.ok) return decoded;
  return err({
    kind: "result_malformed",
    method: "tools/call",
    message: `Server "${server}" sent a malformed result: ${decoded.error.message}`,
  });
}

/**
 * Lists every tool, following `nextCursor` for at most
 * {@linkcode MAX_TOOL_PAGES} pages under one deadline; a repeated cursor is
 * refused as `result_malformed`, a lying page names its number. A listing
 * past `MAX_TOOLS` tools or {@linkcode MAX_LISTING_BYTES} of JSON text is
 * refused as `listing_too_large` as soon as a page takes it there, before
 * that page is decoded, so that no more of it is ever held. In a modern
 * session every page's `resultType` must be `complete`, and `ttl` is told its
 * `ttlMs` (a non-negative integer; the least of the pages'), how long the
 * listing stays fresh.
 */
export async function listAllTools(
  server: string,
  request: PageRequest,
  options: {
    timeoutMs: number;
    era?: EraCodec;
    now?: () => number;
    ttl?: (ms: number) => void;
  },
): Promise<Result<ToolDescriptor[], ClientError>> {
  const era = options.era ?? LEGACY_ERA;
  const now = options.now ?? (() => performance.now());
  const timeoutMs = options.timeoutMs;
  const deadlineAt = now() + timeoutMs;
  const tools: ToolDescriptor[] = [];
  let ttlMs: number | undefined;
  const seen = new Set<string>();
  let cursor: string | undefined;
  let chars = 0;
  for (let page = 1;; page++) {
    if (page > MAX_TOOL_PAGES) {
      return err({
        kind: "too_many_pages",
        pages: page - 1,
        limit: MAX_TOOL_PAGES,
        message: `Server "${server}" listed more than ${MAX_TOOL_PAGES} pages of tools ` +
          `(MAX_TOOL_PAGES); its listing was refused`,
      });
    }
    const params = cursor === undefined ? "{}" : compactJson({ cursor });
    const outcome = await request(params, Math.max(0, deadlineAt - now()));
    if (!outcome.ok) {
      return outcome.error.kind === "call_timed_out"
        ? err(callTimedOut(server, "tools/list", timeoutMs, outcome.error.aborted))
        : outcome;
    }
    chars += compactJson(outcome.value).length;
    const listed = pageTools(outcome.value);
    const past = chars > MAX_LISTING_BYTES
      ? { what: "bytes" as const, seen: chars, limit: MAX_LISTING_BYTES }
      : tools.length + listed > MAX_TOOLS
      ? { what: "tools" as const, seen: tools.length + listed, limit: MAX_TOOLS }
      : undefined;
    if (past !== undefined) {
      const how = past.what === "bytes"
        ? `more than ${MAX_LISTING_BYTES} characters of JSON (MAX_LISTING_BYTES)`
        : `more than ${MAX_TOOLS} tools (MAX_TOOLS)`;
      return err({
        kind: "listing_too_large",
        ...past,
        message: `Server "${server}" listed ${how} by page ${page}; its listing was refused ` +
          `there, and no more of it was read`,
      });
    }
    const type = era.checkResult("tools/list", outcome.value);
    const decoded = type.ok ? decodeToolsPage(outcome.value) : type;
    if (!decoded.ok) {
      return err({
        kind: "result_malformed",
        method: "tools/list",
        message: `Server "${server}" sent a malformed tools/list page ${page}: ` +
          decoded.error.message,
      });
    }
    // One at a time: spreading a page of 300,000 tools into `push` overflows the stack.
    for (const tool of decoded.value.tools) tools.push(tool);
    const ttl = era.pageTtlMs(outcome.value);
    if (ttl !== undefined) ttlMs = Math.min(ttl, ttlMs ?? ttl);
    const next = decoded.value.nextCursor;
    if (next === undefined) {
      if (ttlMs !== undefined) options.ttl?.(ttlMs);
      return ok(tools);
    }
    if (seen.has(next)) {
      return err({
        kind: "result_malformed",
        method: "tools/list",
        message: `Server "${server}" repeated the tools/list cursor ` +
          `${JSON.stringify(next.slice(0, 60))}; its listing was refused`,
      });
    }
    seen.add(next);
    cursor = next;
  }
}

/** How many tools a raw page lists, before it is decoded (0 when it lists none). */
function pageTools(value: JsonValue): number {
  return isJsonObject(value) && Array.isArray(value.tools) ? value.tools.length : 0;
}

/** Lists every tool as {@linkcode listAllTools} does, with the listing's `ttlMs` when it has one. */
export async function listFresh(
  server: string,
  request: PageRequest,
  options: { timeoutMs: number; era: EraCodec },
): Promise<Result<ToolListing, ClientError>> {
  let ttlMs: number | undefined;
  const listed = await listAllTools(server, request, { ...options, ttl: (ms) => ttlMs = ms });
  if (!listed.ok) return listed;
  return ok(ttlMs === undefined ? { tools: listed.value } : { tools: listed.value, ttlMs });
}
