// Signals and drain checks of a server's process group,
// done on the main thread for the worker that owns the child. Who controls
// the child: the worker spawns it, owns its pipes and decides the order of
// its retirement; it asks the main thread (through `custody/custody.ts`) to signal
// the group and to check the group drained after the exit, because a worker
// run with least privilege cannot: `Deno.kill` of a group needs unrestricted
// run access, and reading `/proc` needs read access it is not given.

import type { Drain, GroupSignal } from "../thread/evidence.ts";
import type { ProcessTree } from "./process_tree.ts";

/** Pause between two looks at a group being drained, in milliseconds. */
export const DRAIN_POLL_MS = 10;

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
 * One look at every process: live members of each process group, zombies not
 * counted (an orphaned zombie is not reaped on some machines yet runs
 * nothing), or "unknown" where `/proc` cannot be read.
 */
export function scanGroups(): GroupScan {
  if (Deno.build.os !== "linux") return "unknown";
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return "unknown";
  }
  const groups = new Map<number, number[]>();
  try {
    for (const entry of entries) {
      const pid = Number(entry.name);
      if (!Number.isSafeInteger(pid) || pid <= 0) continue;
      let stat: string;
      try {
        stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      } catch {
        continue; // Gone between the listing and the read.
      }
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      const pgid = Number(fields[2]);
      const members = groups.get(pgid);
      if (members === undefined) groups.set(pgid, [pid]);
      else members.push(pid);
    }
  } catch {
    return "unknown";
  }
  return groups;
}

/** Live members of process group `pgid`, or "unknown" where `/proc` cannot be read. */
export function groupMembers(pgid: number): number[] | "unknown" {
  const scan = scanGroups();
  return scan === "unknown" ? "unknown" : [...scan.get(pgid) ?? []];
}

let nextScan: Promise<GroupScan> | undefined;

/**
 * A scan shared by every caller that asks before it is taken: retiring many
 * servers at once costs one look at `/proc` per turn, not one per server. A
 * scan is never older than the request it answers.
 *
 * The next turn is reached by a message on a channel of the scan's own: a
 * `setTimeout` of 0 ms fires after 2.1 ms in Deno 2.9.6 (a message, after
 * 0.013 ms), and every retirement waited for it.
 */
function sharedScan(): Promise<GroupScan> {
  nextScan ??= new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      nextScan = undefined;
      resolve(scanGroups());
    };
    channel.port2.postMessage(null);
  });
  return nextScan;
}

async function liveMembers(pgid: number): Promise<number | "unknown"> {
  const scan = await sharedScan();
  return scan === "unknown" ? "unknown" : scan.get(pgid)?.length ?? 0;
}

/**
 * After a group's leader exited: kills the members that survived it, and the
 * descendants of `tree` that left the group, and waits until none is left;
 * `"unknown"` where `/proc` or the tree could not be read. Signalling is safe here only because live
 * members were just seen: a group id is not reused while a member lives.
 */
export async function drainGroup(
  pgid: number,
  deadlineMs: number,
  tree?: ProcessTree,
): Promise<Drain> {
  const until = performance.now() + deadlineMs;
  for (;;) {
    // The tree first: a member's children are found while it still lives.
    tree?.snapshot(false);
    const members = await liveMembers(pgid);
    if (members === "unknown") return "unknown";
    const escaped = tree?.signalEscaped("SIGKILL") ?? 0;
    if (members === 0 && escaped === 0) return tree?.blind === true ? "unknown" : true;
    const left = until - performance.now();
    if (left <= 0) return false;
    if (members > 0) signalGroup(pgid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_POLL_MS, left)));
  }
}
