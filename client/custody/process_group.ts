// Signals and drain checks of a server's process group and tree, done on the
// main thread for the worker that owns the child. Who controls the child: the
// worker spawns it, owns its pipes and decides the order of its retirement;
// it asks the main thread (through `client/custody/custody.ts`) to signal the group
// and to check the group drained after the exit, because a worker run with
// least privilege cannot: `Deno.kill` of a group needs unrestricted run
// access, and reading `/proc` needs every permission, which it is not given.

import type { Drain, GroupSignal } from "../thread/evidence.ts";
import { nextTurn, type Proc, PROC_READS_PER_SLICE, readProc, scan, scanNow } from "./proc.ts";
import type { ProcessTree, Sweep } from "./process_tree.ts";
import { reap } from "./subreaper.ts";

/** Pause between two looks at a group being drained, in milliseconds. */
export const DRAIN_POLL_MS = 10;

/**
 * How long a drain with nothing placed left keeps looking at children of
 * this process it cannot place, before it says "unknown", in milliseconds:
 * another copy of this library in the process (another thread's modules)
 * may be draining its own.
 */
export const SUSPECT_GRACE_MS = 500;

/** Signals the process group led by `pid`; false when it could not. */
export function signalGroup(pid: number, signal: GroupSignal): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 1) return false;
  try {
    Deno.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Live processes by process group, as one look at `/proc` saw them. */
export type GroupScan = ReadonlyMap<number, readonly number[]> | "unknown";

/**
 * One look at every process, in one turn: live members of each process
 * group, zombies not counted (an orphaned zombie is not reaped on some
 * machines yet runs nothing), or "unknown" where `/proc` cannot be read.
 */
export function scanGroups(): GroupScan {
  const look = scanNow();
  if (look === undefined) return "unknown";
  const groups = new Map<number, number[]>();
  for (const proc of look.values()) {
    if (proc.state === "Z") continue;
    const members = groups.get(proc.pgid);
    if (members === undefined) groups.set(proc.pgid, [proc.pid]);
    else members.push(proc.pid);
  }
  return groups;
}

/** Live members of process group `pgid`, or "unknown" where `/proc` cannot be read. */
export function groupMembers(pgid: number): number[] | "unknown" {
  const groups = scanGroups();
  return groups === "unknown" ? "unknown" : [...groups.get(pgid) ?? []];
}

/**
 * Sends `signal` to each process in `procs` that is still the one a scan
 * saw (its start time is read again just before), a slice of them per turn.
 * Returns how many were sent.
 */
export async function signalEach(procs: readonly Proc[], signal: Deno.Signal): Promise<number> {
  let sent = 0;
  for (let index = 0; index < procs.length; index++) {
    if (index > 0 && index % PROC_READS_PER_SLICE === 0) await nextTurn();
    if (signalIfSame(procs[index] as Proc, signal)) sent++;
  }
  return sent;
}

/** Sends `signal` to `proc` if its pid still names that process. */
export function signalIfSame(proc: Proc, signal: Deno.Signal): boolean {
  if (readProc(proc.pid)?.start !== proc.start) return false;
  try {
    Deno.kill(proc.pid, signal);
    return true;
  } catch {
    return false; // Gone meanwhile.
  }
}

/** Reaps placed zombies, a slice per turn (a reap costs about 20 µs here: thousands stall). */
async function reapEach(pids: readonly number[]): Promise<void> {
  for (let index = 0; index < pids.length; index++) {
    if (index > 0 && index % PROC_READS_PER_SLICE === 0) await nextTurn();
    reap(pids[index] as number);
  }
}

/**
 * The live processes placed as the server's, and placed zombies to reap:
 * from a sweep where the tree can make one, else from a scan of `/proc`
 * (the group's members alone without a tree); undefined where `/proc`
 * cannot be read.
 */
export async function placed(
  pgid: number,
  rootAlive: boolean,
  tree?: ProcessTree,
): Promise<Sweep | undefined> {
  if (tree?.sweepable === true) return await tree.sweep(rootAlive);
  const look = await scan();
  if (look === undefined) return undefined;
  if (tree !== undefined) return { live: tree.collect(look), zombies: tree.zombies(look) };
  const live = [...look.values()].filter((proc) => proc.pgid === pgid && proc.state !== "Z");
  return { live, zombies: [] };
}

/**
 * After a group's leader exited: kills the members that survived it, and
 * every other process `tree` places as the server's (its session, the
 * descendants that left both), and waits until none is left. Without a tree
 * the answer is the group's alone. With one, true is claimed only as far as
 * the tree can prove it (`ProcessTree.verdict`); `"unknown"` where `/proc`
 * cannot be read. Signalling the group is safe here only because live
 * members were just seen: a group id is not reused while a member lives.
 */
export async function drainGroup(
  pgid: number,
  deadlineMs: number,
  tree?: ProcessTree,
): Promise<Drain> {
  const until = performance.now() + deadlineMs;
  let graceUntil: number | undefined;
  for (;;) {
    const found = await placed(pgid, false, tree);
    if (found === undefined) return "unknown";
    await reapEach(found.zombies);
    const left = until - performance.now();
    if (found.live.length === 0) {
      const verdict = tree?.verdict() ?? true;
      if (verdict !== "suspects") return verdict;
      // Another copy of this library may be draining them: look again, briefly.
      graceUntil ??= performance.now() + Math.min(SUSPECT_GRACE_MS, Math.max(0, left));
      if (performance.now() >= graceUntil) return "unknown";
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      continue;
    }
    if (left <= 0) return false;
    tree?.killing(found.live);
    if (found.live.some((proc) => proc.pgid === pgid)) signalGroup(pgid, "SIGKILL");
    await signalEach(found.live.filter((proc) => proc.pgid !== pgid), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_POLL_MS, left)));
  }
}
