// Private to client/: signals and drain checks of a server's process group,
// done on the main thread, which holds the permissions a least-privilege
// worker lacks (`Deno.kill` needs unrestricted run access, `/proc` needs all).

import type { Drain, GroupSignal } from "../worker/messages.ts";

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

/**
 * Live members of process group `pgid`, zombies not counted (an orphaned
 * zombie is not reaped on some machines yet runs nothing), or "unknown" where
 * `/proc` cannot be read.
 */
export function groupMembers(pgid: number): number[] | "unknown" {
  if (Deno.build.os !== "linux") return "unknown";
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return "unknown";
  }
  const members: number[] = [];
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
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(pid);
    }
  } catch {
    return "unknown";
  }
  return members;
}

/**
 * After a group's leader exited: kills the members that survived it and
 * waits for the group to empty. Signalling is safe here only because live
 * members were just seen: a group id is not reused while a member lives.
 */
export async function drainGroup(pgid: number, deadlineMs: number): Promise<Drain> {
  const until = performance.now() + deadlineMs;
  let members = groupMembers(pgid);
  if (members === "unknown") return "unknown";
  if (members.length === 0) return true;
  signalGroup(pgid, "SIGKILL");
  for (;;) {
    members = groupMembers(pgid);
    if (members === "unknown") return "unknown";
    if (members.length === 0) return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    signalGroup(pgid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_POLL_MS, left)));
  }
}
