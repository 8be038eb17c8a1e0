/**
 * Which of a server's notifications a client's handle hears, and how much
 * of them: log messages (`notifications/message`) rationed per server, at
 * most `LOG_MESSAGE_BURST` at once, refilled at `LOG_MESSAGES_PER_SECOND`,
 * each one's data cut to `MAX_LOG_DATA_CHARS` of JSON text, a message past
 * the rate dropped here and counted on the next one that crosses; a
 * resource's update; a list's change, those of one turn told once; a URL
 * elicitation's completion, rationed as log messages are, on a rate of its
 * own. A flood costs the worker a count, never memory.
 *
 * @module
 */

import { compactJson } from "../../codec/json.ts";
import { firstUnits } from "../../codec/_units.ts";
import { decodeLogMessage, decodeResourceUpdated } from "../../codec/server_requests.ts";
import {
  LOG_MESSAGE_BURST,
  LOG_MESSAGES_PER_SECOND,
  MAX_ELICITATION_ID_CHARS,
  MAX_LOG_DATA_CHARS,
} from "../../settings/limits.ts";
import type { ChangedList, Notice } from "../thread/notices.ts";

const LIST_CHANGES: ReadonlyMap<string, ChangedList> = new Map([
  ["notifications/prompts/list_changed", "prompts"],
  ["notifications/resources/list_changed", "resources"],
]);

/**
 * A rate: at most `LOG_MESSAGE_BURST` at once, refilled at
 * `LOG_MESSAGES_PER_SECOND`, on the clock `now` (milliseconds).
 */
class Ration {
  #now: () => number;
  #tokens = LOG_MESSAGE_BURST;
  #filledAt: number;

  constructor(now: () => number) {
    this.#now = now;
    this.#filledAt = now();
  }

  /** Whether one more may go now (nothing is counted until `spend`). */
  open(): boolean {
    const now = this.#now();
    this.#tokens = Math.min(
      LOG_MESSAGE_BURST,
      this.#tokens + (now - this.#filledAt) * LOG_MESSAGES_PER_SECOND / 1_000,
    );
    this.#filledAt = now;
    return this.#tokens >= 1;
  }

  /** Counts one that went. */
  spend(): void {
    this.#tokens -= 1;
  }
}

/** The notices of one server, bounded: `take` says what a notification becomes. */
export class NoticeGate {
  #logs: Ration;
  #completions: Ration;
  #dropped = 0;
  #told = new Set<ChangedList>();

  /** A gate whose rates run on `now`, in milliseconds. */
  constructor(now: () => number) {
    this.#logs = new Ration(now);
    this.#completions = new Ration(now);
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
    if (method === "notifications/elicitation/complete") return this.#completion(params);
    const list = LIST_CHANGES.get(method);
    if (list === undefined) return undefined;
    if (this.#told.has(list)) return null;
    this.#told.add(list);
    queueMicrotask(() => this.#told.delete(list));
    return { kind: "list_changed", list };
  }

  // An id past MAX_ELICITATION_ID_CHARS names no elicitation a handler was given.
  #completion(params: unknown): Notice | null {
    if (typeof params !== "object" || params === null) return null;
    const id = (params as { elicitationId?: unknown }).elicitationId;
    if (typeof id !== "string" || id === "" || id.length > MAX_ELICITATION_ID_CHARS) return null;
    if (!this.#completions.open()) return null;
    this.#completions.spend();
    return { kind: "elicitation_complete", elicitationId: id };
  }

  #log(params: unknown): Notice | null {
    if (!this.#logs.open()) {
      this.#dropped++;
      return null;
    }
    const message = decodeLogMessage(params as never);
    if (!message.ok) return null;
    this.#logs.spend();
    const text = compactJson(message.value.data);
    const cut = text.length > MAX_LOG_DATA_CHARS;
    const dropped = this.#dropped;
    this.#dropped = 0;
    const notice: Notice = {
      kind: "log",
      level: message.value.level,
      dataText: cut ? firstUnits(text, MAX_LOG_DATA_CHARS) : text,
      cut,
      dropped,
    };
    if (message.value.logger !== undefined) notice.logger = firstUnits(message.value.logger, 256);
    return notice;
  }
}
