/**
 * A server's log messages as a harness hears them (`notifications/message`):
 * the entry a handler is given, and the options that ask for them. The level
 * asked for is sent once the session opens (`logging/setLevel` in the
 * handshake era, to a server that declared `logging`) or rides in every
 * request's envelope (2026-07-28); either way the server decides what it
 * sends. What crosses is bounded in the worker (`LOG_MESSAGE_BURST`,
 * `LOG_MESSAGES_PER_SECOND`, `MAX_LOG_DATA_CHARS`); every entry is the
 * server's word, to be quoted wherever it is shown.
 *
 * @module
 */

import type { JsonValue } from "../codec/json.ts";
import type { LogLevel } from "../codec/server_requests.ts";

/** One log message of a server's. */
export type LogEntry = {
  /** The server's name, as its spec says it. */
  server: string;
  level: LogLevel;
  /** The logger the server names, cut to 256 characters. */
  logger?: string;
  /**
   * The message's data, any JSON; when it was past `MAX_LOG_DATA_CHARS` of
   * JSON text, the start of that text as a string, and `cut` is set.
   */
  data: JsonValue;
  /** Set when `data` is the start of longer data. */
  cut?: true;
  /** How many messages of this server's were dropped before this one, past the rate. */
  dropped?: number;
};

/** What asks for a server's log messages. */
export type LogOptions = {
  /**
   * Hears every log message of a server's that crosses, in order; a handler
   * that throws changes nothing. Without it, messages are dropped unread.
   */
  onLog?: (entry: LogEntry) => void;
  /**
   * The least level asked of every server whose spec says none
   * (`ServerSpec.logLevel` wins); none asked when absent, and the server
   * logs as it pleases.
   */
  logLevel?: LogLevel;
};
