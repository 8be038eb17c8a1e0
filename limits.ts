/**
 * Every limit and default deadline of `@loom/mcp`, in one place: what a
 * client, a catalog, the generator, a code-mode run and the wire accept, and
 * what happens by default. Each is defined once, in the room that enforces it;
 * this module gathers them for users.
 *
 * @example The default deadlines
 * ```ts
 * import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS } from "@loom/mcp/limits";
 * console.log(DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS); // 60000 60000
 * ```
 *
 * @module
 */

// A client and its server.
export {
  CHILD_ENV_DEFAULTS,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RESTART_BACKOFF_MS,
  DEFAULT_RESTART_MAX,
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  ENV_ALLOWLIST,
  LIST_LISTEN_BACKOFF_MS,
  LOG_MESSAGE_BURST,
  LOG_MESSAGES_PER_SECOND,
  MAX_INPUT_ROUNDS,
  MAX_LIST_LISTEN_BACKOFF_MS,
  MAX_LIST_PAGES,
  MAX_LISTING_BYTES,
  MAX_LOG_DATA_CHARS,
  MAX_PROGRESS_MESSAGE_CHARS,
  MAX_RESOURCE_BYTES,
  MAX_RESTART_ATTEMPTS,
  MAX_ROOTS,
  MAX_SERVER_ERROR_CHARS,
  MAX_SERVER_REQUESTS_IN_FLIGHT,
  MAX_SESSION_ID_CHARS,
  MAX_TOOL_PAGES,
  MAX_UNREAD_STDIN_BYTES,
  PROBE_TIMEOUT_MS,
  RESTART_BACKOFF_CAP_MS,
  RESTART_STABLE_MS,
  STDERR_TAIL_BYTES,
  TASK_POLL_DEFAULT_MS,
  TASK_POLL_MAX_MS,
  TASK_POLL_MIN_MS,
  WORKER_GRACE_MS,
} from "./settings/mod.ts";
export { MAX_SKILL_BYTES, MAX_SKILL_FILE_BYTES, MAX_SKILL_FILES } from "./client/skills.ts";
// A harness.
export {
  BOOT_ABORT_RETIREMENT_MS,
  MAX_DENIAL_REASON_CHARS,
  MIN_RELIST_INTERVAL_MS,
} from "./harness/limits.ts";
// A catalog.
export {
  MAX_CATALOG_BYTES,
  MAX_CATALOG_SERVERS,
  MAX_CATALOG_TIMEOUT_MS,
  MAX_EXPANDED_CHARS,
} from "./catalog/mod.ts";
// The wire.
export { MAX_LINE_BYTES } from "./codec/framing.ts";
export { MAX_PARAM_HEADER_BYTES } from "./codec/param_headers.ts";
export { MAX_JSON_DEPTH } from "./codec/json.ts";
export { MAX_REPORT_DEPTH } from "./codec/report_value.ts";
// Traces.
export {
  MAX_TRACE_CONTENT_CHARS,
  MAX_TRACE_NAME_CHARS,
  MAX_TRACE_TEXT_CHARS,
} from "./telemetry/mcp.ts";
// Generation.
export { MAX_SURFACE_BYTES, MAX_TOOLS } from "./codegen/generate.ts";
export {
  MAX_DESCRIPTION_CHARS,
  MAX_NOTE_CHARS,
  MAX_SURFACE_DESCRIPTION_CHARS,
} from "./codegen/text.ts";
// The surface.
export {
  DEFAULT_SURFACE_BUDGET_BYTES,
  MAX_SERVER_NOTE_CHARS,
  MIN_SURFACE_BUDGET_BYTES,
} from "./harness/limits.ts";
// A code-mode run.
export {
  CHECKER_SEMI_SPACE_MB,
  CHECKER_START_TIMEOUT_MS,
  CHILD_STDERR_TAIL_CHARS,
  CUT_KEY,
  DEFAULT_CHECK_TIMEOUT_MS,
  DEFAULT_MAX_CALLS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_SANDBOXES,
  DEFAULT_RUN_MEMORY_MB,
  DEFAULT_RUN_TIMEOUT_MS,
  DEFAULT_SEARCH_LIMIT,
  DEFAULT_WARM_SANDBOXES,
  MAX_CALL_ARGS_BYTES,
  MAX_CHECK_GROWTH_BYTES,
  MAX_CHECKER_HEAP_BYTES,
  MAX_DISCOVERY_REQUESTS,
  MAX_FRAME_BYTES,
  MAX_LOG_ENTRIES,
  MAX_PROGRAM_BYTES,
  MAX_REPORT_ARGS_BYTES,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY_CHARS,
  MIN_RUN_MEMORY_MB,
  POOL_IDLE_MS,
  POOL_QUIET_MS,
  RUN_GRACE_MS,
  SANDBOXES_PER_CPU,
  TRUNCATION_MARKER,
  WARM_SANDBOXES_PER_CPU,
} from "./runner/mod.ts";
