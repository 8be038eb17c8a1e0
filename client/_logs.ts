// Private to client/: the log options of a client or a census checked once,
// and the entry a log notice from the worker is handed on as.

import { parseJson } from "../codec/json.ts";
import { isLogLevel, LOG_LEVELS } from "../codec/server_requests.ts";
import type { Notice } from "./thread/notices.ts";
import type { LogEntry, LogOptions } from "./logs.ts";

/**
 * Checks the log options of a client or a census; throws `TypeError` on a
 * handler that is not a function or a level that is not one of
 * {@linkcode LOG_LEVELS}.
 */
export function checkLogOptions(options: LogOptions, what: string): LogOptions {
  const { onLog, logLevel } = options;
  if (onLog !== undefined && typeof onLog !== "function") {
    throw new TypeError(`${what}: option "onLog" is not a function`);
  }
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    throw new TypeError(
      `${what}: option "logLevel" ${JSON.stringify(logLevel)} is not one of ${
        LOG_LEVELS.join(", ")
      }`,
    );
  }
  const out: LogOptions = {};
  if (onLog !== undefined) out.onLog = onLog;
  if (logLevel !== undefined) out.logLevel = logLevel;
  return out;
}

/** The entry a log notice of `server`'s is handed on as. */
export function logEntry(server: string, notice: Extract<Notice, { kind: "log" }>): LogEntry {
  const parsed = notice.cut ? undefined : parseJson(notice.dataText);
  const entry: LogEntry = {
    server,
    level: notice.level,
    data: parsed?.ok ? parsed.value : notice.dataText,
  };
  if (notice.logger !== undefined) entry.logger = notice.logger;
  if (notice.cut) entry.cut = true;
  if (notice.dropped > 0) entry.dropped = notice.dropped;
  return entry;
}
