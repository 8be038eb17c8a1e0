/**
 * How a sandbox's memory is watched from outside it: its resident size,
 * sampled from `/proc` where the host may read it (Linux), against the heap
 * cap plus an allowance, and the stderr by which V8 says it ran out. Private
 * to the runner.
 *
 * @module
 */

/** How often the resident memory of the sandbox is sampled, where it can be. */
export const RSS_SAMPLE_MS = 100;
/** Resident memory allowed beyond the heap cap (the runtime, buffers outside the heap), MiB. */
export const RSS_ALLOWANCE_MB = 256;
/** What the sandbox's stderr says when V8 ran out of heap. */
export const OOM =
  /Fatal JavaScript out of memory|Reached heap limit|JavaScript heap out of memory/;

/** Whether resident memory can be sampled here: on Linux, with `/proc` readable. */
export function canSampleMemory(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    return Deno.permissions.querySync({ name: "read", path: "/proc" }).state === "granted";
  } catch {
    return false;
  }
}

/** The resident bytes of process `pid`, from `/proc/<pid>/statm`; `undefined` when unreadable. */
export function residentBytes(pid: number): number | undefined {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ");
    const pages = Number(fields[1]);
    return Number.isFinite(pages) ? pages * 4096 : undefined;
  } catch {
    return undefined;
  }
}
