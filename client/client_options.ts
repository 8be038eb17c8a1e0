/**
 * The options of a `Client`, of one of its tool calls and of one of
 * its other requests.
 *
 * @module
 */

import type { OAuthSettings } from "../settings/mod.ts";
import type { TokenStore } from "../oauth/mod.ts";
import type { CallProgress } from "./thread/progress.ts";
import type { WorkerPermissions } from "./permissions.ts";
import type { LogOptions } from "./logs.ts";
import type { ServerRequestHandlers } from "./handlers.ts";

/** Options of a {@linkcode Client}. */
export type ClientOptions =
  & {
    /** How its worker runs; `"inherit"` by default. */
    permissions?: WorkerPermissions;
    /** Default deadline of `retire`, and of the cleanup after a failed start. */
    retirementTimeoutMs?: number;
    /** Call the tools whose `taskSupport` is `"optional"` as tasks too (default `false`). */
    optionalTasks?: boolean;
    /** The sign-in of a remote server whose spec has no `oauth` of its own. */
    oauth?: OAuthSettings;
    /** Where a sign-in keeps its tokens; a `FileTokenStore` in the user's config folder by default. */
    tokenStore?: TokenStore;
  }
  & LogOptions
  & ServerRequestHandlers;

/** Options of one call. */
export type CallOptions = {
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the call when aborted (it settles as `call_timed_out`, `aborted: true`). */
  signal?: AbortSignal;
  /**
   * Hears the call's progress, in order, until its answer: the server's
   * `notifications/progress` (a `progressToken` is sent only when this is
   * given) and, for a task, each status and its message; server text made
   * inert and cut to `MAX_PROGRESS_MESSAGE_CHARS`.
   */
  onProgress?: (progress: CallProgress) => void;
  /** Each report moves the deadline to `timeoutMs` after it (as the official SDK's option). */
  resetTimeoutOnProgress?: boolean;
  /** The most the whole call may take, progress or not, in milliseconds. */
  maxTotalTimeoutMs?: number;
  /**
   * Call the tool as a task when its listing says `taskSupport: "optional"`
   * (the client's `optionalTasks` by default); a `"required"` one always is,
   * when the server runs tasks.
   */
  task?: boolean;
};

/** Options of one request that is not a tool call: its deadline, and what gives up on it. */
export type RequestOptions = {
  /** Deadline in milliseconds; the spec's `callTimeoutMs` by default. */
  timeoutMs?: number;
  /** Gives up on the request when aborted (it settles as `call_timed_out`, `aborted: true`). */
  signal?: AbortSignal;
};
