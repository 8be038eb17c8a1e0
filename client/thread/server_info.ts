/**
 * What a server said of itself when its client connected, with the era and
 * version they speak, and how the main thread reads it back from the worker.
 *
 * @module
 */

import { MAX_SESSION_ID_CHARS } from "../../settings/limits.ts";
import type { JsonValue } from "../../codec/json.ts";
import {
  decodeInitializeResult,
  type Era,
  eraOf,
  type InitializeResult,
  SUPPORTED_VERSIONS,
} from "../../codec/protocol.ts";
import { isRecord, isString } from "./guards.ts";
import { eraNamed } from "./era.ts";

/**
 * What a server said of itself when the client connected, and how they
 * speak: the negotiated `era` and `protocolVersion`. A legacy server
 * answered `initialize`; a modern server answered `server/discover`,
 * and its `serverInfo` is the identity it put in that result's `_meta`
 * (empty strings when it gave none).
 */
export type ServerInfo = InitializeResult & {
  era: Era;
  /** The session's id a remote server gave (a legacy Streamable HTTP session), when it did. */
  sessionId?: string;
};

/** Decodes the server info of a start that crossed the boundary: its era and version included. */
export function decodeServerInfo(value: unknown): ServerInfo | undefined {
  if (!isRecord(value)) return undefined;
  const era = eraNamed(value.era);
  if (era === undefined) return undefined;
  const version = value.protocolVersion;
  if (!isString(version) || eraOf(version) !== era.name) return undefined;
  const info = decodeInitializeResult(value as JsonValue, version, SUPPORTED_VERSIONS);
  if (!info.ok) return undefined;
  const decoded: ServerInfo = { ...info.value, era: era.name };
  const id = value.sessionId;
  if (isString(id) && id.length > 0 && id.length <= MAX_SESSION_ID_CHARS) decoded.sessionId = id;
  return decoded;
}
