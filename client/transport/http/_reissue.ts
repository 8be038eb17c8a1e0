// Private to client/transport/http/: what the 2026-07-28 revision asks of a client whose
// response stream broke before its answer. Streams are not resumable in that
// revision: the server takes the closed stream as the request's cancellation,
// and "clients MUST re-issue it as a new request with a new request ID"
// (its changelog, item 9; SEP-2575). Re-issued here are only the requests
// that cannot do anything twice: the reads of the protocol (discovery, the
// listings, reads and gets) and calls of tools whose listing says they are
// read-only or idempotent. Any other call may have run before its stream
// broke: it is never sent again behind its caller's back, and fails saying so.

import { frameText } from "../../../codec/framing.ts";
import { isJsonObject, parseJson } from "../../../codec/json.ts";
import { quote } from "../../../codec/quote.ts";
import type { OutgoingMessage } from "../../../codec/streamable_http.ts";

/** The most times one request is re-issued after its stream broke: 2. */
export const MAX_REISSUES = 2;

/** The methods that only read: re-issuing one does nothing twice. */
const READS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "tasks/get",
  "tasks/list",
]);

/** Whether a modern request whose stream broke may be re-issued. */
export function mayReissue(
  message: OutgoingMessage,
  repeatable: (tool: string) => boolean,
): boolean {
  if (message.version === undefined || message.method === undefined) return false;
  if (READS.has(message.method)) return true;
  return message.method === "tools/call" && message.name !== undefined && repeatable(message.name);
}

/** A request's body with another id: the new request a re-issue sends. */
export function renumbered(body: Uint8Array, id: number): Uint8Array<ArrayBuffer> | undefined {
  const parsed = parseJson(new TextDecoder().decode(body));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const line = frameText({ ...parsed.value, id });
  return new TextEncoder().encode(line.slice(0, -1));
}

/** Why a request whose stream broke was not re-issued, for its made-up answer. */
export function notReissued(message: OutgoingMessage, reissues: number): string {
  if (reissues >= MAX_REISSUES) {
    return `its stream broke again after it was re-issued ${reissues} times (MAX_REISSUES)`;
  }
  const tool = message.name === undefined ? "the tool" : `tool ${quote(message.name)}`;
  return `it was not sent again because ${tool} is not marked read-only or idempotent, so it ` +
    `may or may not have run; call it again if that is safe`;
}

/** What becomes of a lost request. */
export type Reissue =
  /** Sent again as request `id`, with `body`. */
  | { kind: "again"; id: number; body: Uint8Array<ArrayBuffer> }
  /** Nothing waits for it any more. */
  | { kind: "gone" }
  /** It fails as request `id`, for the reason given. */
  | { kind: "fail"; id: number | string; why: string };

/** The re-issues of one transport: how many times each request was sent again. */
export class Reissues {
  #counts = new Map<number | string, number>();

  /**
   * Decides what becomes of a modern request lost with its stream: sent
   * again under the id `renumber` gives it (the machine's), when it may be
   * and has not been {@linkcode MAX_REISSUES} times already, or failed.
   */
  lost(
    message: OutgoingMessage,
    id: number | string,
    body: Uint8Array,
    options: { repeatable(tool: string): boolean; renumber(id: number): number | undefined },
  ): Reissue {
    const count = this.#counts.get(id) ?? 0;
    this.#counts.delete(id);
    if (!mayReissue(message, options.repeatable) || count >= MAX_REISSUES) {
      return { kind: "fail", id, why: notReissued(message, count) };
    }
    if (typeof id !== "number") return { kind: "fail", id, why: notReissued(message, count) };
    const next = options.renumber(id);
    if (next === undefined) return { kind: "gone" };
    const again = renumbered(body, next);
    if (again === undefined) return { kind: "fail", id: next, why: notReissued(message, count) };
    this.#counts.set(next, count + 1);
    return { kind: "again", id: next, body: again };
  }
}
