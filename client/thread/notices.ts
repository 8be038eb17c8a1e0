/**
 * What a server told the client that its handle hears, as it crosses from
 * the worker to the main thread: a log message (its data as compact JSON
 * text, already cut to `MAX_LOG_DATA_CHARS`, and how many messages were
 * dropped before it), a resource that changed, a list that changed, a URL's
 * interaction complete, or a listen acknowledged.
 * Everything here is the server's word, untrusted; the worker bounds how
 * much of it crosses (`client/worker/notices.ts`).
 *
 * @module
 */

import { isLogLevel, type LogLevel } from "../../codec/server_requests.ts";
import { type Fields, isCount, isOneOf, isRecord, isString } from "./guards.ts";

/** The lists a server may say changed, beside its tools. */
export const CHANGED_LISTS = ["prompts", "resources"] as const;

/** One list of {@linkcode CHANGED_LISTS}. */
export type ChangedList = typeof CHANGED_LISTS[number];

/** One notice of a server's, as it crosses. */
export type Notice =
  | {
    kind: "log";
    level: LogLevel;
    logger?: string;
    /** The message's data as compact JSON text, or the start of it when `cut`. */
    dataText: string;
    /** Whether the data was past `MAX_LOG_DATA_CHARS` and only its start crossed. */
    cut: boolean;
    /** How many log messages of the server's were dropped before this one, past the rate. */
    dropped: number;
  }
  | {
    kind: "resource_updated";
    uri: string;
    /** The ticket of the 2026-07-28 listen the update came on, when the server named it. */
    ticket?: number;
  }
  | { kind: "list_changed"; list: ChangedList }
  /**
   * The interaction at a URL an elicitation sent the user to is complete
   * (`notifications/elicitation/complete`), by the server's word.
   */
  | { kind: "elicitation_complete"; elicitationId: string }
  /**
   * The server forgot its session and a new one was opened (a legacy HTTP
   * session's 404): what the old one held (subscriptions, the log level) is
   * to be asked for again. Made by the transport, never from a server's text.
   */
  | { kind: "session_renewed" }
  | {
    /**
     * A 2026-07-28 listen's acknowledgment (`notifications/subscriptions/acknowledged`),
     * its first only: whether the server agreed to every resource URI the listen of
     * `ticket` named (nothing of the server's own text crosses).
     */
    kind: "acknowledged";
    ticket: number;
    honored: boolean;
  };

/** The event that carries a notice. */
export type NoticeEvent = { kind: "notice"; notice: Notice };

/** Encodes a notice as its event. */
export function encodeNotice(notice: Notice): NoticeEvent {
  return { kind: "notice", notice };
}

/** Decodes a notice event; `undefined` for one of any other shape. */
export function decodeNotice(data: Fields): NoticeEvent | undefined {
  const notice = data.notice;
  if (!isRecord(notice)) return undefined;
  switch (notice.kind) {
    case "log": {
      const { level, logger, dataText, cut, dropped } = notice;
      if (!isLogLevel(level) || !isString(dataText) || typeof cut !== "boolean") return undefined;
      if (!isCount(dropped) || (logger !== undefined && !isString(logger))) return undefined;
      return encodeNotice(
        logger === undefined
          ? { kind: "log", level, dataText, cut, dropped }
          : { kind: "log", level, logger, dataText, cut, dropped },
      );
    }
    case "resource_updated": {
      const { uri, ticket } = notice;
      if (!isString(uri) || (ticket !== undefined && !isCount(ticket))) return undefined;
      return encodeNotice(
        ticket === undefined
          ? { kind: "resource_updated", uri }
          : { kind: "resource_updated", uri, ticket },
      );
    }
    case "acknowledged":
      return isCount(notice.ticket) && typeof notice.honored === "boolean"
        ? encodeNotice({ kind: "acknowledged", ticket: notice.ticket, honored: notice.honored })
        : undefined;
    case "session_renewed":
      return encodeNotice({ kind: "session_renewed" });
    case "elicitation_complete":
      return isString(notice.elicitationId)
        ? encodeNotice({ kind: "elicitation_complete", elicitationId: notice.elicitationId })
        : undefined;
    case "list_changed":
      return isOneOf(CHANGED_LISTS, notice.list)
        ? encodeNotice({ kind: "list_changed", list: notice.list })
        : undefined;
    default:
      return undefined;
  }
}
