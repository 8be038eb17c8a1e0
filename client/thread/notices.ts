/**
 * What a server told the client that its handle hears, as it crosses from
 * the worker to the main thread: a log message (its data as compact JSON
 * text, already cut to `MAX_LOG_DATA_CHARS`, and how many messages were
 * dropped before it), a resource that changed, or a list that changed.
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
  | { kind: "resource_updated"; uri: string }
  | { kind: "list_changed"; list: ChangedList };

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
    case "resource_updated":
      return isString(notice.uri)
        ? encodeNotice({ kind: "resource_updated", uri: notice.uri })
        : undefined;
    case "list_changed":
      return isOneOf(CHANGED_LISTS, notice.list)
        ? encodeNotice({ kind: "list_changed", list: notice.list })
        : undefined;
    default:
      return undefined;
  }
}
