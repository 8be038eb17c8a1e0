// This process as the reaper of its orphaned descendants, from the first
// server in custody on (Linux `PR_SET_CHILD_SUBREAPER`, through FFI).
//
// Why: a server's descendant that calls `setsid` leaves its session, and once
// its parent exits the kernel hands it to the nearest ancestor marked as a
// subreaper, or to init. Handed to init before custody saw it, nothing links
// it to the server any more, so no drain could claim it was gone. Handed to
// this process instead, it stays in sight: a drain finds every process this
// process did not start among its own children, and says "unknown" when one
// might be the server's (`process_group.ts`).
//
// Why not a custodian process: orphans go to an *ancestor*, and the worker
// spawns each server as a child of this process, so no other process can be
// the servers' subreaper without spawning them.
//
// What it costs: the flag is the process's, so orphans of the harness's own
// children come here too once it is set. Their zombies stay until the
// harness ends, unless custody can tell they are a server's (then it reaps
// them, `reap`); it never waits for a pid it cannot place, because that
// could take the exit status of a child Deno itself waits for. The flag is
// set before the first server is spawned and never cleared: every copy of
// this library in the process (each test file of `deno test --parallel`
// runs on a thread of its own, with modules of its own) relies on it from
// the moment it saw it set, and one clearing it would make another's
// evidence claim more than it checked. FFI needs `--allow-ffi`, which reading
// `/proc` already implies (Deno asks for every permission for that); without
// it, nothing is set and custody proves nothing.

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

type Libc = {
  prctl(option: number, a: bigint, b: bigint, c: bigint, d: bigint): number;
  waitpid(pid: number, status: null, options: number): number;
};

let libc: Libc | null | undefined;
let set = false;

function open(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") return libc;
  try {
    // Never prompts: a library does not ask the user for a permission.
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return libc;
  } catch {
    return libc;
  }
  for (const path of ["libc.so.6", "libc.so"]) {
    try {
      const library = Deno.dlopen(path, {
        prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
        waitpid: { parameters: ["i32", "pointer", "i32"], result: "i32" },
      });
      libc = library.symbols as Libc;
      break;
    } catch {
      // Not this libc's name (musl's is libc.so).
    }
  }
  return libc;
}

function enable(): boolean {
  const library = open();
  if (library === null) return false;
  try {
    return library.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n) === 0;
  } catch {
    return false;
  }
}

/**
 * Sets the flag, once for the process (it is never cleared); returns
 * whether it is set. A server spawned after this returned true cannot lose a
 * descendant to init.
 */
export function ensureSubreaper(): boolean {
  if (set) return true;
  set = enable();
  return set;
}

/**
 * Reaps one zombie child of this process, which the caller has placed as a
 * server's descendant (never one Deno started: Deno waits for those itself).
 * Returns whether it was reaped.
 */
export function reap(pid: number): boolean {
  const library = open();
  if (library === null || !Number.isSafeInteger(pid) || pid <= 1) return false;
  try {
    return library.waitpid(pid, null, WNOHANG) === pid;
  } catch {
    return false;
  }
}
