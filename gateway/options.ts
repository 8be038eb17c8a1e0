/**
 * What a gateway session is opened with: how it governs and runs the host's
 * programs, and where the messages a request's handling sends go.
 *
 * @module
 */

import type { JsonObject } from "../codec/json.ts";

/** Where the messages a request's handling sends go: its answer, its progress, its questions. */
export type Send = (message: JsonObject) => void;

/** How a gateway governs and runs the host's programs. */
export type GatewayOptions = {
  /**
   * Asks the host, through form elicitation, before each call of a program
   * that its tool does not mark read-only (`readOnlyHint`); a host that
   * cannot elicit gets such calls denied, saying why. Default `false`: the
   * harness's own approval hook, if any, decides.
   */
  approve?: boolean;
  /** Each program's deadline in milliseconds (`harness.run`'s `timeoutMs`). */
  deadlineMs?: number;
  /** The bytes a program's report may take (`harness.run`'s `maxOutputBytes`). */
  maxOutputBytes?: number;
  /** The gateway's name and version, as `initialize` answers them; `loom-mcp` by default. */
  serverInfo?: { name: string; version: string };
  /** Sent as `instructions` to the host. */
  instructions?: string;
  /**
   * How long a run parked on an `input_required` result waits for its
   * 2026-07-28 host to retry, in milliseconds; `PARKED_RUN_TIMEOUT_MS` by
   * default.
   */
  parkedRunTimeoutMs?: number;
};
