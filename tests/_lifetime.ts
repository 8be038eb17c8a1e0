// What the library opens once and keeps for the life of the process, by
// design, and the sanitizer options of the test that opens it.
//
// Each test file runs in an isolate of its own (under `--parallel` too),
// with modules of its own, so in each file the first test to touch one of
// these opens it, and the sanitizers (on in `tests/ci.ts`) would count it as
// that test's leak. Only that test is opted out, of exactly what the
// resource is, with a comment where it is; any other test of the file runs
// with both sanitizers, and one that opens something else still fails.
// Checked: each test opted out here passes both sanitizers when these are
// opened before it.

/**
 * The first client of a file, stdio or HTTP: its custody sets the process's
 * subreaper flag (`client/custody/subreaper.ts`) through a libc handle kept
 * open, since the flag is never cleared and reaping needs it later.
 */
export const OPENS_SUBREAPER = { sanitizeResources: false } as const;

/**
 * The first server a file spawns: the exit guard starts its custodian
 * (`client/custody/exit_guard.ts`), a child `sh` with its stdin pipe and the
 * wait for its exit, kept for the life of the process so that no server
 * outlives the harness however it ends. It also sets the subreaper flag, if
 * no client of the file did before.
 */
export const OPENS_CUSTODIAN = { sanitizeResources: false, sanitizeOps: false } as const;

/**
 * The first tool run of a file under `--allow-ffi`: stderr capture
 * (`server/capture.ts`) loads libc for `dup2`, once for the process, since
 * every later capture needs it.
 */
export const OPENS_CAPTURE = { sanitizeResources: false } as const;

/**
 * A test that drives a server with the official SDK's stdio client: its
 * `StdioClientTransport.close()` (v1 1.32.2, v2 2.4.0) races the child's end
 * against an unref'd two-second timer it never clears, so the timer outlives
 * the test, and may fire during the next one.
 */
export const SDK_TIMERS = { sanitizeOps: false, sanitizeResources: false } as const;
