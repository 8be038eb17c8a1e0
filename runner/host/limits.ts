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
