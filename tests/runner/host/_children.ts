// The sandbox processes a runner has started and not yet reaped, and the
// sandbox directories left in a runner's temporary folder: what a run and a
// retirement must leave behind (nothing). Tests give their runner a folder of
// its own: other processes on the machine make sandboxes too.

/**
 * Pids of the live (not zombie) children of this process whose command line
 * names `dir`: the sandboxes of a runner given that folder. (Other test
 * modules of a parallel run share this process and start children too.)
 */
export function sandboxProcesses(dir: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    let cmdline: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
    } catch {
      continue;
    }
    // Fields after the name: state, ppid, ...
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) !== Deno.pid || state === "Z" || !cmdline.includes(dir)) continue;
    found.push(Number(entry.name));
  }
  return found.sort((a, b) => a - b);
}

/** Names of the runner's temporary folders present now in `dir`. */
export function sandboxDirs(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name)
    .filter((name) => name.startsWith("loom-run-")).sort();
}
