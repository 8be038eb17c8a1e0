// Custody of a server's whole process tree, not only its
// process group. A descendant that calls `setsid` or `setpgid` leaves the
// group, so group signals and a group drain check no longer reach it, and
// once its parent exits it is reparented away from the server and cannot be
// found by parent pid either. So the tree is snapshotted while the server
// lives (every TREE_SNAPSHOT_MS, and before every signal the retirement
// sends): each process found below the server by parent pid is remembered
// with its start time, so that it can be signalled later, wherever it was
// reparented, and never confused with a later process given the same pid.
//
// What this cannot prove: a descendant that was born and left the tree
// between two snapshots. Where `/proc` cannot be read at all (not Linux, or
// no read permission), nothing is proven, and the drain check says so.

/** How often a live server's process tree is snapshotted, in milliseconds: 250. */
export const TREE_SNAPSHOT_MS = 250;

/** One process as `/proc/<pid>/stat` shows it. */
type Proc = { state: string; ppid: number; pgid: number; start: string };

/** Reads one process, or undefined when it is gone or unreadable. */
function readProc(pid: number): Proc | undefined {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ... starttime(22nd)": comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    start: fields[19] ?? "",
  };
}

/** The children of a process, from every one of its threads; undefined when unreadable. */
function childrenOf(pid: number): number[] | undefined {
  const children: number[] = [];
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      let text: string;
      try {
        text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue; // The thread ended.
        throw error;
      }
      for (const word of text.split(" ")) {
        const child = Number(word);
        if (word !== "" && Number.isSafeInteger(child)) children.push(child);
      }
    }
  } catch {
    return undefined;
  }
  return children;
}

let readable: boolean | undefined;

/** Whether this process can read the children of a process in `/proc`. */
export function treeReadable(): boolean {
  if (readable !== undefined) return readable;
  if (Deno.build.os !== "linux") return readable = false;
  try {
    readable = Deno.permissions.querySync({ name: "read", path: "/proc" }).state === "granted" &&
      childrenOf(Deno.pid) !== undefined;
  } catch {
    readable = false;
  }
  return readable;
}

/** What a tree tells of a descendant that left, or returned to, its server's group. */
export type TreeListener = { left(pid: number): void; gone(pid: number): void };

/**
 * Every descendant of one server ever seen, by pid with its start time. The
 * server's pid is also its process group id.
 */
export class ProcessTree {
  readonly root: number;
  readonly #known = new Map<number, string>();
  readonly #outside = new Set<number>();
  readonly #listener: TreeListener;
  #blind = !treeReadable();

  constructor(root: number, listener: TreeListener) {
    this.root = root;
    this.#listener = listener;
  }

  /** Whether custody could not be kept: `/proc` was unreadable at some snapshot. */
  get blind(): boolean {
    return this.#blind;
  }

  /**
   * One look at the tree: the server's children and theirs, recursively,
   * from the server and from every descendant already known to be alive
   * (a reparented one keeps its own children). Forgets the dead.
   */
  snapshot(rootAlive: boolean): void {
    if (this.#blind) return;
    const frontier: number[] = [];
    if (rootAlive) frontier.push(this.root);
    for (const pid of this.alive()) frontier.push(pid);
    const visited = new Set<number>();
    while (frontier.length > 0) {
      const pid = frontier.pop() as number;
      if (visited.has(pid)) continue;
      visited.add(pid);
      const children = childrenOf(pid);
      if (children === undefined) {
        // Unreadable while it still runs: custody cannot be proven. A process
        // that ended meanwhile (gone, or a zombie) has no children to hide.
        const proc = readProc(pid);
        if (proc !== undefined && proc.state !== "Z") this.#blind = true;
        continue;
      }
      for (const child of children) {
        const proc = readProc(child);
        if (proc === undefined || proc.state === "Z") continue;
        const start = this.#known.get(child);
        if (start === undefined) this.#known.set(child, proc.start);
        else if (start !== proc.start) continue; // A recycled pid under a known one: not ours.
        this.#place(child, proc);
        frontier.push(child);
      }
    }
  }

  /** Descendants known and still alive (the same process, not a zombie). */
  alive(): number[] {
    const found: number[] = [];
    for (const [pid, start] of this.#known) {
      const proc = readProc(pid);
      if (proc === undefined || proc.state === "Z" || proc.start !== start) {
        this.#forget(pid);
        continue;
      }
      this.#place(pid, proc);
      found.push(pid);
    }
    return found;
  }

  /** Live descendants outside the server's group, which a group signal does not reach. */
  escaped(): number[] {
    return this.alive().filter((pid) => this.#outside.has(pid));
  }

  /** Sends `signal` to every live descendant outside the group; returns how many. */
  signalEscaped(signal: Deno.Signal): number {
    let sent = 0;
    for (const pid of this.escaped()) {
      try {
        Deno.kill(pid, signal);
        sent++;
      } catch {
        // Gone meanwhile.
      }
    }
    return sent;
  }

  /** Stops following the tree; descendants still alive stay guarded. */
  forgetGone(): void {
    this.alive();
  }

  #place(pid: number, proc: Proc): void {
    const outside = proc.pgid !== this.root;
    if (outside === this.#outside.has(pid)) return;
    if (outside) {
      this.#outside.add(pid);
      this.#listener.left(pid);
    } else {
      this.#outside.delete(pid);
      this.#listener.gone(pid);
    }
  }

  #forget(pid: number): void {
    this.#known.delete(pid);
    if (this.#outside.delete(pid)) this.#listener.gone(pid);
  }
}

const watched = new Set<{ tree: ProcessTree; rootAlive: () => boolean }>();
let timer: ReturnType<typeof setInterval> | undefined;

function tick(): void {
  for (const entry of watched) entry.tree.snapshot(entry.rootAlive());
}

/**
 * Snapshots `tree` every {@linkcode TREE_SNAPSHOT_MS} until the returned
 * function is called. The timer never keeps the process alive.
 */
export function watchTree(tree: ProcessTree, rootAlive: () => boolean): () => void {
  const entry = { tree, rootAlive };
  watched.add(entry);
  if (timer === undefined && tree.blind === false) {
    const interval = setInterval(tick, TREE_SNAPSHOT_MS);
    Deno.unrefTimer(interval);
    timer = interval;
  }
  return () => {
    watched.delete(entry);
    if (watched.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
