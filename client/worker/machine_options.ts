/**
 * What a client machine (`machine.ts`) is given: its options, what it runs
 * on, and the name the client gives itself.
 *
 * @module
 */

import type { Implementation, SupportedVersion } from "../../codec/protocol.ts";
import type { LogLevel } from "../../codec/server_requests.ts";
import type { EraMode } from "../../settings/era.ts";
import type { ServerRequestContext } from "../thread/era.ts";
import type { StateReport } from "../thread/state.ts";
import type { Clock } from "../transport/clock.ts";
import type { Transport } from "../transport/transport.ts";

/** Options of a `ClientMachine` (`machine.ts`). */
export type MachineOptions = {
  /** The server's name, used in every message. */
  name: string;
  /** The clock deadlines run on; the system clock by default. */
  clock?: Clock;
  /** Deadline of the whole start, in milliseconds. */
  connectTimeoutMs?: number;
  /** Deadline of the retirement that follows a failed start or a death. */
  retirementTimeoutMs?: number;
  /** What the client says of itself in `initialize` and in every envelope. */
  clientInfo?: Implementation;
  /** How the era is chosen; `auto` by default. */
  era?: EraMode;
  /** The versions offered, a subset of `SUPPORTED_VERSIONS`; all by default. */
  versions?: readonly SupportedVersion[];
  /** Told of every change of the client's life, in order. */
  onReport?: (report: StateReport) => void;
  /** Told each time the ready server says its tools changed (handshake era). */
  onToolsChanged?: () => void;
  /** Told of every notification the server sends once the session began (progress, task status). */
  onNotification?: (method: string, params: unknown) => void;
  /** Told when the ready server forgot its session and a new one was opened. */
  onRenewed?: () => void;
  /** The least level of log messages asked of the server, when one is (`EraCodec.open`). */
  logLevel?: LogLevel;
  /**
   * What the server's requests are answered with (elicitation, sampling,
   * roots), and so the capabilities declared; none by default.
   */
  served?: ServerRequestContext;
  /** The trace context the start's requests carry in their `_meta` (the main thread's span). */
  traceContext?: Record<string, string>;
};

/**
 * What a machine runs on: one transport (its server launched once), or a
 * launcher that makes a fresh transport for each launch (so that a server
 * that exits on the era probe can be launched once more).
 */
export type Launcher = Transport | (() => Transport);

/** What this client calls itself in `initialize` and in every envelope. */
export const CLIENT_INFO: Implementation = { name: "@loom/mcp", version: "0.1.0" };
