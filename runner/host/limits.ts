/**
 * The bounds that keep one code-mode run from growing the harness: what the
 * host holds of a program, of what it prints and of what it sends, and how
 * many sandboxes run at once. Each is a cap the program cannot raise; the
 * deadlines and per-run caps a harness chooses are options of `runProgram`.
 *
 * @module
 */

/** The largest program source accepted, in UTF-8 bytes: 1 MiB; larger is refused before any scan. */
export const MAX_PROGRAM_BYTES = 1024 * 1024;

/**
 * The most entries `report.logs` holds: 10,000. Past it the run is killed
 * for its output, as past `maxOutputBytes`; every entry, an empty one
 * included, also counts at least one byte against `maxOutputBytes`.
 */
export const MAX_LOG_ENTRIES = 10_000;

/** What a report keeps of one call's arguments, in bytes of their JSON text: 64 KiB. */
export const MAX_CALL_ARGS_BYTES = 64 * 1024;

/** What a report keeps of all calls' arguments together, in bytes of JSON text: 1 MiB. */
export const MAX_REPORT_ARGS_BYTES = 1024 * 1024;

/** How a report marks arguments it did not keep whole: the text that ends the kept prefix. */
export const TRUNCATION_MARKER = "… [truncated]";

/**
 * How long past its deadline a run may take to return, in milliseconds:
 * 1 s. At the deadline the sandbox is killed and every call still in flight
 * is aborted; the grace covers the kill, the aborts reaching their clients
 * and the build root's removal.
 */
export const RUN_GRACE_MS = 1_000;

/**
 * What the host keeps of the stderr of a sandbox or of the checker's
 * process, in characters: 8,192, the newest; a crash message is read from it.
 */
export const CHILD_STDERR_TAIL_CHARS = 8192;

/** Sandboxes per CPU a harness runs at once by default: 2. */
export const SANDBOXES_PER_CPU = 2;

/**
 * The key of the markers that stand for what a report cut to its budget
 * left out: `{ "$cut": "4998 more items" }` as an array's last item,
 * `"$cut": "12 more keys"` in an object, `{ "$cut": "an object of 3 keys" }`
 * for a value nested too deep. A cut string ends with `… [N more bytes]`.
 */
export const CUT_KEY = "$cut";

/**
 * Sandboxes per CPU a harness may keep started ahead by default: 4, enough
 * for eight programs at once on two CPUs to find each its sandbox ready.
 */
export const WARM_SANDBOXES_PER_CPU = 4;

/** Default wall-clock deadline of one program run, in milliseconds: 30 s. */
export const DEFAULT_RUN_TIMEOUT_MS = 30_000;

/** Default V8 heap cap of the sandbox, in MiB: 256. */
export const DEFAULT_RUN_MEMORY_MB = 256;

/** The least heap cap accepted, in MiB: 16. */
export const MIN_RUN_MEMORY_MB = 16;

/** Default cap on the tool calls of one run: 100. */
export const DEFAULT_MAX_CALLS = 100;

/** Default cap on what a program prints, in UTF-8 bytes: 256 KiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;

/**
 * Default deadline of the type check (and of the import scan before it), in
 * milliseconds: 10 s. A warm check takes milliseconds; the first one of a
 * runner also waits for the compiler to load, which this deadline does not
 * count.
 */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/** Sandboxes a harness runs at once by default: {@linkcode SANDBOXES_PER_CPU} per CPU. */
export const DEFAULT_MAX_SANDBOXES: number = SANDBOXES_PER_CPU *
  Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1);

/**
 * The most sandboxes a harness keeps started ahead by default:
 * {@linkcode WARM_SANDBOXES_PER_CPU} per CPU. One waits while programs come
 * one at a time; programs back to back or at once raise how many wait, up to
 * this (each waiting sandbox holds about 50 MB), and a minute without
 * programs ({@linkcode POOL_IDLE_MS}) lowers it to one again.
 */
export const DEFAULT_WARM_SANDBOXES: number = WARM_SANDBOXES_PER_CPU *
  Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1);

/**
 * How long after the last run ends, with none in flight, before a sandbox
 * starts ahead, in milliseconds: 25. Programs back to back (a loop, an
 * evaluation) follow each other more closely than that, so their burst does
 * not share the machine with sandboxes starting.
 */
export const POOL_QUIET_MS = 25;

/**
 * How long without a run before a harness keeps one sandbox started ahead
 * again instead of what its last burst of runs needed, in milliseconds: 60 s.
 */
export const POOL_IDLE_MS = 60_000;

/**
 * The largest semi-space of the checker process's young generation, in MiB:
 * 1 (V8's default grows it to 16). A check allocates the compiler's
 * short-lived nodes there; the default's pages stay resident between checks.
 * Measured with twenty servers' modules: the process held 145 to 148 MiB at
 * rest against 200 to 201, with warm checks no slower (BENCHMARKS.md,
 * "Footprint").
 */
export const CHECKER_SEMI_SPACE_MB = 1;

/** How many matches a search returns when its options do not say: 10. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** The most matches one search returns: 50. */
export const MAX_SEARCH_LIMIT = 50;

/** The longest query a search takes, in characters: 1,000. */
export const MAX_SEARCH_QUERY_CHARS = 1_000;

/**
 * The most discovery requests (searches and descriptions) one run may make:
 * 200. Past it the run is killed for its calls, as past `maxCalls`: each
 * request is answered on the harness's main thread.
 */
export const MAX_DISCOVERY_REQUESTS = 200;
