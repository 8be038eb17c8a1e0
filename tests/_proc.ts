// Shared by the tests and benchmarks: what `/proc` says of a process.

/** Whether a pid names a live process (a zombie is not live). */
export function isLive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
