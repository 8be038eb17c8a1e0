// Private to client/: a paginated listing other than tools (prompts,
// resources, resource templates, skills), followed from the main thread page
// by page, each page one request through the worker and decoded once, under
// one deadline, MAX_LIST_PAGES pages and MAX_LISTING_BYTES of JSON text; the
// kinds of listing a client makes; and what a client's requests need of it.

import { compactJson, type JsonValue } from "../codec/json.ts";
import type { ProtocolFault } from "../codec/protocol.ts";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { EraCodec } from "./thread/era.ts";
import { callTimedOut, type ClientError } from "./thread/outcomes.ts";
import { MAX_LIST_PAGES, MAX_LISTING_BYTES } from "../settings/limits.ts";
import type { PageRequest } from "./_results.ts";
import type { RequestMethod } from "./thread/to_worker.ts";
import { decodePromptsPage, type PromptDescriptor } from "../codec/prompts.ts";
import {
  decodeResourcesPage,
  decodeResourceTemplatesPage,
  type ResourceDescriptor,
  type ResourceTemplateDescriptor,
} from "../codec/resource_lists.ts";
import { decodeSkillsPage, type SkillEntry } from "../codec/skills.ts";
import type { Generation } from "./_generation.ts";
import type { RequestOptions } from "./client_options.ts";

/**
 * What a client's requests need of it (`_tool_requests.ts` and the others):
 * the server's name, the generation of the moment, and a request's deadline.
 */
export type RequestHost = {
  /** The server's name. */
  server: string;
  /** The client's generation now. */
  generation: () => Generation;
  /** A request's deadline: the one asked, or the spec's; `RangeError` when it breaks the rule. */
  timeout: (timeoutMs: number | undefined) => number;
};

/** One decoded page: its entries and the cursor of the next, when there is one. */
export type ListPage<T> = { entries: T[]; nextCursor?: string };

/** What a listing is: its method, what it lists (for messages), and its page decoder. */
export type ListKind<T> = {
  method: RequestMethod;
  noun: string;
  decode(value: JsonValue): Result<ListPage<T>, ProtocolFault>;
};

/**
 * Every entry of a listing, following `nextCursor`: a repeated cursor is
 * `result_malformed`, more than MAX_LIST_PAGES pages `too_many_pages`, more
 * than MAX_LISTING_BYTES of JSON text `listing_too_large` (before the page
 * that takes it there is decoded); in a modern session each page's
 * `resultType` must be `complete`.
 */
export async function listAll<T>(
  server: string,
  kind: ListKind<T>,
  request: PageRequest,
  options: { timeoutMs: number; era: EraCodec },
): Promise<Result<T[], ClientError>> {
  const { method, noun } = kind;
  const deadlineAt = performance.now() + options.timeoutMs;
  const entries: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let chars = 0;
  for (let page = 1;; page++) {
    if (page > MAX_LIST_PAGES) {
      return err({
        kind: "too_many_pages",
        pages: page - 1,
        limit: MAX_LIST_PAGES,
        message: `Server ${quote(server)} listed more than ${MAX_LIST_PAGES} pages of ${noun} ` +
          `(MAX_LIST_PAGES); its listing was refused`,
      });
    }
    const params = cursor === undefined ? "{}" : compactJson({ cursor });
    const outcome = await request(params, Math.max(0, deadlineAt - performance.now()));
    if (!outcome.ok) {
      return outcome.error.kind === "call_timed_out"
        ? err(callTimedOut(server, method, options.timeoutMs, outcome.error.aborted))
        : outcome;
    }
    chars += compactJson(outcome.value).length;
    if (chars > MAX_LISTING_BYTES) {
      return err({
        kind: "listing_too_large",
        what: "bytes",
        seen: chars,
        limit: MAX_LISTING_BYTES,
        message: `Server ${quote(server)} listed more than ${MAX_LISTING_BYTES} characters of ` +
          `JSON (MAX_LISTING_BYTES) of ${noun} by page ${page}; its listing was refused there`,
      });
    }
    const type = options.era.checkResult(method, outcome.value);
    const decoded = type.ok ? kind.decode(outcome.value) : type;
    if (!decoded.ok) {
      return err({
        kind: "result_malformed",
        method,
        message: `Server ${quote(server)} sent a malformed ${method} page ${page}: ` +
          decoded.error.message,
      });
    }
    for (const entry of decoded.value.entries) entries.push(entry);
    const next = decoded.value.nextCursor;
    if (next === undefined) return ok(entries);
    if (seen.has(next)) {
      return err({
        kind: "result_malformed",
        method,
        message: `Server ${quote(server)} repeated the ${method} cursor ${
          quote(next.slice(0, 60))
        }; its listing was refused`,
      });
    }
    seen.add(next);
    cursor = next;
  }
}

/** The prompts a server offers. */
export const PROMPTS: ListKind<PromptDescriptor> = {
  method: "prompts/list",
  noun: "prompts",
  decode: (value) => {
    const page = decodePromptsPage(value);
    return page.ok ? { ok: true, value: { ...page.value, entries: page.value.prompts } } : page;
  },
};

/** The resources a server offers. */
export const RESOURCES: ListKind<ResourceDescriptor> = {
  method: "resources/list",
  noun: "resources",
  decode: (value) => {
    const page = decodeResourcesPage(value);
    return page.ok ? { ok: true, value: { ...page.value, entries: page.value.resources } } : page;
  },
};

/** The resource templates a server offers. */
export const TEMPLATES: ListKind<ResourceTemplateDescriptor> = {
  method: "resources/templates/list",
  noun: "resource templates",
  decode: (value) => {
    const page = decodeResourceTemplatesPage(value);
    return page.ok
      ? { ok: true, value: { ...page.value, entries: page.value.resourceTemplates } }
      : page;
  },
};

/** The skills a server serves. */
export const SKILLS: ListKind<SkillEntry> = {
  method: "skills/list",
  noun: "skills",
  decode: (value) => {
    const page = decodeSkillsPage(value);
    return page.ok ? { ok: true, value: { ...page.value, entries: page.value.skills } } : page;
  },
};

/** Every entry of one listing of the client `host` describes (see {@linkcode listAll}). */
export function listOf<T>(
  host: RequestHost,
  kind: ListKind<T>,
  options: RequestOptions,
): Promise<Result<T[], ClientError>> {
  const timeoutMs = host.timeout(options.timeoutMs);
  const generation = host.generation();
  const page = (params: string, ms: number) =>
    generation.request(kind.method, params, ms, options.signal);
  return listAll(host.server, kind, page, { timeoutMs, era: generation.era });
}
