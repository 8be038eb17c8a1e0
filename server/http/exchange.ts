/**
 * What a Streamable HTTP endpoint hands its handler (each message's
 * exchange, and in the legacy era its session) and what the handler gives
 * back, with the JSON-RPC error codes of the endpoint's own answers.
 *
 * @module
 */

import type { JsonObject } from "../../codec/json.ts";

/**
 * The JSON-RPC error code of a 2026-07-28 request whose headers do not say
 * what its body says (`HeaderMismatch`): -32020, answered with 400.
 */
export const HEADER_MISMATCH: number = -32020;

/**
 * The JSON-RPC error code of a request whose exchange ended before the
 * handler answered (its client went away, its session ended, the server
 * closed): -32800.
 */
export const REQUEST_CANCELLED: number = -32800;

/** A legacy-era session as the handler sees it. */
export type ServerSession = {
  /** The id the client sends back in `Mcp-Session-Id`. */
  readonly id: string;
  /** The version the handler's `initialize` answer chose. */
  readonly protocolVersion: string;
  /**
   * Aborted when the session ends: DELETE, the server's close, or, for the
   * session an `initialize` would open, an answer that is not a result.
   */
  readonly signal: AbortSignal;
  /**
   * Sends a message tied to no request (a list change, a server request) on
   * the session's GET stream; false when no GET stream is open or it just
   * ended, past its backlog.
   */
  send(message: JsonObject): boolean;
};

/** One message's exchange: where it came from, and how to answer along the way. */
export type HttpExchange = {
  /** The legacy session it belongs to; undefined for a 2026-07-28 message, which has none. */
  readonly session: ServerSession | undefined;
  /**
   * The protocol version it is served in: the header's for 2026-07-28, the
   * session's after `initialize`, and for `initialize` the version it asks.
   */
  readonly protocolVersion: string;
  /** Aborted when the exchange ends before its answer (see the module's lifecycle). */
  readonly signal: AbortSignal;
  /**
   * Sends a message tied to this request ahead of its answer (progress, a
   * log, in the legacy era a server request): the answer then comes as an
   * event stream. False when the client accepts no stream, or the stream
   * has ended.
   */
  send(message: JsonObject): boolean;
};

/**
 * What the transport hands each decoded message to: a request's answer (a
 * whole JSON-RPC response, its `id` the request's) or, for a notification
 * or a client's response, anything (it is not sent). A throw or a missing
 * answer to a request is answered `-32603`.
 */
export type HttpMessageHandler = (
  message: JsonObject,
  exchange: HttpExchange,
) => Promise<JsonObject | undefined> | JsonObject | undefined;
