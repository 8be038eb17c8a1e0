// This process as the reaper of its orphaned descendants, while it holds a
// server in custody (Linux `PR_SET_CHILD_SUBREAPER`, through FFI).
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
// children come here too while it is set. Their zombies stay until the
// harness ends, unless custody can tell they are a server's (then it reaps
// them, `reap`); it never waits for a pid it cannot place, because that
// could take the exit status of a child Deno itself waits for. The flag is
// set while any server is in custody and cleared after. FFI needs
// `--allow-ffi`, which reading `/proc` already implies (Deno asks for every
// permission for that); without it, nothing is set and custody proves nothing.

import { uptimeTicks } from "./proc.ts";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

type Libc = {
  prctl(option: number, a: bigint, b: bigint, c: bigint, d: bigint): number;
  waitpid(pid: number, status: null, options: number): number;
};

let libc: Libc | null | undefined;
let holders = 0;
let since: number | undefined;

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

function set(on: boolean): boolean {
  const library = open();
  if (library === null) return false;
  try {
    return library.prctl(PR_SET_CHILD_SUBREAPER, on ? 1n : 0n, 0n, 0n, 0n) === 0;
  } catch {
    return false;
  }
}

/**
 * Holds the flag set; the first holder sets it. A server spawned after this
 * returned, while it is held, cannot lose a descendant to init.
 */
export function holdSubreaper(): void {
  holders++;
  if (holders !== 1 || since !== undefined) return;
  const now = uptimeTicks();
  if (now !== undefined && set(true)) since = now;
}

/** Ends one {@linkcode holdSubreaper}; the last clears the flag. */
export function releaseSubreaper(): void {
  if (holders === 0) return;
  holders--;
  if (holders > 0 || since === undefined) return;
  set(false);
  since = undefined;
}

/**
 * Since when (clock ticks since boot, as `/proc` counts a start) the flag has
 * been set without a break; undefined while it is not set.
 */
export function subreaperSince(): number | undefined {
  return since;
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
