/**
 * Which of a server's notifications a client's handle hears, and how much
 * of them: log messages (`notifications/message`) rationed per server, at
 * most `LOG_MESSAGE_BURST` at once, refilled at `LOG_MESSAGES_PER_SECOND`,
 * each one's data cut to `MAX_LOG_DATA_CHARS` of JSON text, a message past
 * the rate dropped here and counted on the next one that crosses; a
 * resource's update; a list's change, those of one turn told once. A flood
 * costs the worker a count, never memory.
 *
 * @module
 */

import { compactJson } from "../../codec/json.ts";
import { decodeLogMessage, decodeResourceUpdated } from "../../codec/server_requests.ts";
import {
  LOG_MESSAGE_BURST,
  LOG_MESSAGES_PER_SECOND,
  MAX_LOG_DATA_CHARS,
} from "../../settings/limits.ts";
import type { ChangedList, Notice } from "../thread/notices.ts";

const LIST_CHANGES: ReadonlyMap<string, ChangedList> = new Map([
  ["notifications/prompts/list_changed", "prompts"],
  ["notifications/resources/list_changed", "resources"],
]);

/** The notices of one server, bounded: `take` says what a notification becomes. */
export class NoticeGate {
  #now: () => number;
  #tokens = LOG_MESSAGE_BURST;
  #filledAt: number;
  #dropped = 0;
  #told = new Set<ChangedList>();

  /** A gate whose rate runs on `now`, in milliseconds. */
  constructor(now: () => number) {
    this.#now = now;
    this.#filledAt = now();
  }

  /**
   * The notice a notification becomes: `undefined` for a notification that
   * is not one of these, and `null` for one that is but is not told (a
   * malformed one, a log past the rate, a list change already told this turn).
   */
  take(method: string, params: unknown): Notice | null | undefined {
    if (method === "notifications/message") return this.#log(params);
    if (method === "notifications/resources/updated") {
      const uri = decodeResourceUpdated(params as never);
      return uri.ok ? { kind: "resource_updated", uri: uri.value } : null;
    }
    const list = LIST_CHANGES.get(method);
    if (list === undefined) return undefined;
    if (this.#told.has(list)) return null;
    this.#told.add(list);
    queueMicrotask(() => this.#told.delete(list));
    return { kind: "list_changed", list };
  }

  #log(params: unknown): Notice | null {
    const now = this.#now();
    this.#tokens = Math.min(
      LOG_MESSAGE_BURST,
      this.#tokens + (now - this.#filledAt) * LOG_MESSAGES_PER_SECOND / 1_000,
    );
    this.#filledAt = now;
    if (this.#tokens < 1) {
      this.#dropped++;
      return null;
    }
    const message = decodeLogMessage(params as never);
    if (!message.ok) return null;
    this.#tokens -= 1;
    const text = compactJson(message.value.data);
    const cut = text.length > MAX_LOG_DATA_CHARS;
    const dropped = this.#dropped;
    this.#dropped = 0;
    const notice: Notice = {
      kind: "log",
      level: message.value.level,
      dataText: cut ? cutText(text, MAX_LOG_DATA_CHARS) : text,
      cut,
      dropped,
    };
    if (message.value.logger !== undefined) notice.logger = cutText(message.value.logger, 256);
    return notice;
  }
}

/** The first `max` UTF-16 units of a text, one fewer where a surrogate pair would be split. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
