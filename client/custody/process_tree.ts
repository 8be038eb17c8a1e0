// Custody of a server's whole process tree, not only its process group.
//
// Where a server's descendants can be, and how each is found:
// - in its process group (the server leads one: the worker spawns it
//   detached): a group signal reaches them;
// - in its session (it leads one too, for the same reason): a descendant that
//   left the group (`setpgid`, or a shell's job control) is still in it, and
//   no process can join a session it was not born in, so a process whose
//   session is the server's is the server's, wherever it was reparented;
// - anywhere, by its environment: the server is spawned with a marker of its
//   own (SERVER_MARKER_VARIABLE), which its descendants inherit unless they
//   clear it, so an orphan this process adopted that carries the marker is the
//   server's however it got here, and is killed with it (the way Jenkins'
//   process-tree killer finds a build's strays). Only this process's own
//   children are read for it: an orphan of the server comes here while this
//   process is the subreaper, and reading every process's environment would
//   cost a look at the whole machine;
// - in a session of its own (`setsid`): nothing but parent links lead to it.
//   The tree is walked while the server lives, so each such descendant is
//   remembered by pid and start time and can be found once reparented. One
//   that is born and loses its parent between two looks is seen by no walk;
//   while this process is the subreaper (`subreaper.ts`) it becomes a child
//   of this process, where it is placed by its marker or, having cleared it,
//   seen among children a drain cannot place (`suspects`), which then says
//   "unknown" rather than true.
//
// What a look costs: the walk visits a few members per tick
// (TREE_READS_PER_TICK files for every tree together, `tree_watch.ts`), so a
// server that keeps thousands of idle children costs the main thread a
// bounded share of a core. The exact answers (before a signal, in a drain)
// come from a sweep down from every process that can be placed on its own
// (`sweep`), read in slices; without the subreaper an orphan may be init's
// child, so they come from a scan of every process instead (`collect`),
// whose listing of `/proc` is one turn's work (10 to 30 ms with 4,000
// processes on the machine).

import type { FoundBy, FoundProcess } from "../thread/evidence.ts";
import {
  environValue,
  nextTurn,
  type Proc,
  PROC_READS_PER_SLICE,
  readChildren,
  readProc,
  type Scan,
} from "./proc.ts";

/**
 * The variable each server is spawned with, its value the server's own
 * marker: a process whose environment holds it is that server's descendant.
 */
export const SERVER_MARKER_VARIABLE = "LOOM_MCP_SERVER";

/** How many of the processes custody killed a server's evidence names (`found`). */
export const FOUND_RECORDED = 64;

/** What a tree tells of a descendant that left, or returned to, its server's group. */
export type TreeListener = { left(pid: number): void; gone(pid: number): void };

/** What a tree is told when it is made. */
export type TreeOptions = {
  /** Whether this process was the subreaper from before the server's spawn (it stays one). */
  subreaped: boolean;
  /** Clock ticks since boot before which no descendant was born, where the root's own start is gone. */
  bornAfter?: number | undefined;
  /** Pids this process started and keeps track of itself (servers, the custodian, the checker). */
  library(): Iterable<number>;
  /** The value of {@linkcode SERVER_MARKER_VARIABLE} the server was spawned with. */
  marker?: string | undefined;
};

type Member = { start: number; pgid: number };

/** What a sweep found: the live processes placed as the server's, and placed zombies to reap. */
export type Sweep = { live: Proc[]; zombies: number[] };

let readable: boolean | undefined;

/** Whether this process can read the children of a process in `/proc`. */
export function treeReadable(): boolean {
  if (readable !== undefined) return readable;
  if (Deno.build.os !== "linux") return readable = false;
  try {
    const self = readProc(Deno.pid);
    readable = Deno.permissions.querySync({ name: "read", path: "/proc" }).state === "granted" &&
      self !== undefined && readChildren(self) !== undefined;
  } catch {
    readable = false;
  }
  return readable;
}

/**
 * Whether `pid` is a live child of one of this process's threads other than
 * the main thread: one Deno spawned (the kernel gives orphans to the main
 * thread), such as another copy of this library's server, and no server's
 * descendant. A process in its session is not a descendant of this server.
 */
function spawnedByDeno(pid: number, mainChildren: ReadonlySet<number>): boolean {
  const proc = readProc(pid);
  return proc !== undefined && proc.state !== "Z" && proc.ppid === Deno.pid &&
    !mainChildren.has(pid);
}

/** Every tree not yet ended, so that a drain can tell another server's descendant from a stranger. */
const trees = new Set<ProcessTree>();
/** The markers of those trees' servers. */
const markers = new Set<string>();

/**
 * Every descendant of one server ever seen, by pid with its start time. The
 * server's pid is also its process group id and its session id.
 */
export class ProcessTree {
  readonly root: number;
  readonly #rootStart: number | undefined;
  readonly #listener: TreeListener;
  readonly #options: TreeOptions;
  readonly #members = new Map<number, Member>();
  readonly #outside = new Set<number>();
  /** Members placed by the marker alone. */
  readonly #marked = new Set<number>();
  /** The processes killed by custody, with how each was found, the first FOUND_RECORDED. */
  readonly #killed = new Map<number, FoundBy>();
  /** Members whose children were never read, first in line for the walk. */
  #fresh: number[] = [];
  /** Members whose children were read, read again in turn. */
  #cycle: number[] = [];
  #blind = !treeReadable();

  constructor(root: number, listener: TreeListener, options: TreeOptions) {
    this.root = root;
    this.#listener = listener;
    this.#options = options;
    this.#rootStart = readProc(root)?.start;
    trees.add(this);
    if (options.marker !== undefined) markers.add(options.marker);
  }

  /** Whether custody could not be kept: `/proc` was unreadable at some look. */
  get blind(): boolean {
    return this.#blind;
  }

  /** How many descendants the tree knows of (alive when last seen). */
  get size(): number {
    return this.#members.size;
  }

  /**
   * One bounded step of the walk: the root's children (when it lives), then
   * members never visited, then the others in turn, until about `budget`
   * files were read. Returns how many were.
   */
  step(budget: number, rootAlive: boolean): number {
    if (this.#blind) return 0;
    let reads = 0;
    if (rootAlive) {
      const root = readProc(this.root);
      reads++;
      if (root !== undefined && root.start === this.#rootStart) {
        reads += this.#visit(root, budget - reads);
      }
    }
    for (
      let turns = this.#fresh.length + this.#cycle.length;
      reads < budget && turns > 0;
      turns--
    ) {
      const pid = this.#fresh.shift() ?? this.#cycle.shift();
      if (pid === undefined) break;
      const member = this.#members.get(pid);
      if (member === undefined) continue;
      const proc = readProc(pid);
      reads++;
      if (proc === undefined || proc.state === "Z" || proc.start !== member.start) {
        this.#forget(pid);
        continue;
      }
      this.#place(pid, proc);
      reads += this.#visit(proc, budget - reads);
    }
    return reads;
  }

  /** Reads the children of a live process of the tree; returns how many files it read. */
  #visit(proc: Proc, budget: number): number {
    const children = readChildren(proc);
    let reads = proc.threads === 1 ? 1 : 1 + proc.threads;
    if (children === undefined) {
      // Unreadable while it still runs: custody cannot be proven. A process
      // that ended meanwhile (gone, or a zombie) has no children to hide.
      const again = readProc(proc.pid);
      if (again !== undefined && again.state !== "Z") this.#blind = true;
      return reads + 1;
    }
    let complete = true;
    for (const pid of children) {
      if (this.#members.has(pid)) continue; // Its start is checked when it is visited.
      if (reads >= budget) {
        complete = false;
        break;
      }
      const child = readProc(pid);
      reads++;
      // Gone, a zombie, or a recycled pid that is no child of this one any more.
      if (child === undefined || child.state === "Z" || child.ppid !== proc.pid) continue;
      this.#add(child);
    }
    if (proc.pid !== this.root) {
      // Children left unread: this one is visited again first.
      if (complete) this.#cycle.push(proc.pid);
      else this.#fresh.unshift(proc.pid);
    }
    return reads;
  }

  /**
   * From one scan: every live process placed as this server's, its root
   * excluded, each recorded for later. Placed are the root's group and
   * session, every member still the same process, and every process below
   * any of these by parent links.
   */
  collect(scan: Scan): Proc[] {
    const ours = new Map<number, Proc>();
    const root = scan.get(this.root);
    const recycled = root !== undefined && root.start !== this.#rootStart;
    if (root !== undefined && !recycled && root.state !== "Z") ours.set(root.pid, root);
    for (const [pid, member] of this.#members) {
      const proc = scan.get(pid);
      if (proc === undefined || proc.start !== member.start) this.#forget(pid);
      else if (proc.state !== "Z") ours.set(pid, proc);
    }
    // While a member of its group or session lives, the root's pid is not
    // given to another process; once it was, they are empty.
    const children = new Map<number, Proc[]>();
    for (const proc of scan.values()) {
      if (proc.state === "Z") continue;
      if (!recycled && (proc.pgid === this.root || proc.sid === this.root)) {
        ours.set(proc.pid, proc);
      }
      const siblings = children.get(proc.ppid);
      if (siblings === undefined) children.set(proc.ppid, [proc]);
      else siblings.push(proc);
    }
    for (const proc of scan.values()) {
      if (!ours.has(proc.pid) && proc.state !== "Z" && this.#carriesMarker(proc)) {
        this.#marked.add(proc.pid);
        ours.set(proc.pid, proc);
      }
    }
    const below = [...ours.values()];
    for (let parent = below.pop(); parent !== undefined; parent = below.pop()) {
      for (const child of children.get(parent.pid) ?? []) {
        // Born after its parent: not a pid recycled while the scan was read.
        if (ours.has(child.pid) || child.start < parent.start) continue;
        ours.set(child.pid, child);
        below.push(child);
      }
    }
    ours.delete(this.root);
    for (const proc of ours.values()) {
      if (!this.#members.has(proc.pid)) this.#add(proc);
      else this.#place(proc.pid, proc);
    }
    return [...ours.values()];
  }

  /**
   * Every live process placed as this server's, found by walking down from
   * what can be placed on its own (the root, every member, and this
   * process's children in the root's group or session) without listing
   * `/proc`, a slice of files per turn; with the placed zombies among this
   * process's children. Complete only while this process is the subreaper:
   * then every descendant of the server is below the root or below one of
   * this process's children. Undefined where `/proc` cannot be read.
   */
  async sweep(rootAlive: boolean): Promise<Sweep | undefined> {
    const self = readProc(Deno.pid);
    const main = self === undefined ? undefined : readChildren({ ...self, threads: 1 });
    if (main === undefined || this.#blind) return undefined;
    const recycled = this.#recycled();
    const live = new Map<number, Proc>();
    const zombies: number[] = [];
    const queue: { pid: number; parent?: Proc }[] = [];
    for (const pid of main) queue.push({ pid });
    for (const pid of this.#members.keys()) queue.push({ pid });
    if (rootAlive) queue.push({ pid: this.root });
    const seen = new Set<number>();
    let reads = 0;
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      const { pid, parent } = next;
      if (seen.has(pid)) continue;
      seen.add(pid);
      if (reads >= PROC_READS_PER_SLICE) {
        reads = 0;
        await nextTurn();
      }
      const proc = readProc(pid);
      reads++;
      const member = this.#members.get(pid);
      if (member !== undefined && proc?.start !== member.start) this.#forget(pid);
      if (proc === undefined) continue;
      const placed = pid === this.root
        ? proc.start === this.#rootStart
        : parent === undefined
        ? this.#placedAlone(proc, recycled) || this.#placedByMarker(proc)
        : proc.ppid === parent.pid && proc.start >= parent.start;
      if (!placed) continue;
      if (proc.state === "Z") {
        if (proc.ppid === Deno.pid && pid !== this.root) zombies.push(pid);
        continue;
      }
      if (pid !== this.root) live.set(pid, proc);
      const children = readChildren(proc);
      reads += proc.threads === 1 ? 1 : 1 + proc.threads;
      if (children === undefined) {
        const again = readProc(pid);
        if (again !== undefined && again.state !== "Z") this.#blind = true;
        continue;
      }
      for (const child of children) if (!seen.has(child)) queue.push({ pid: child, parent: proc });
    }
    if (this.#blind) return undefined;
    for (const proc of live.values()) {
      if (!this.#members.has(proc.pid)) this.#add(proc);
      else this.#place(proc.pid, proc);
    }
    return { live: [...live.values()], zombies };
  }

  /** Whether a sweep finds every descendant: the subreaper set from before the spawn, `/proc` readable. */
  get sweepable(): boolean {
    return this.#options.subreaped && !this.#blind;
  }

  /** Whether `proc` is this server's descendant as far as the tree knows, alone. */
  places(proc: Proc): boolean {
    return this.#placedAlone(proc, undefined);
  }

  /**
   * Whether `proc`, a live child of this process that nothing else places,
   * carries this server's marker; remembered as found so.
   */
  #placedByMarker(proc: Proc): boolean {
    if (proc.state === "Z" || !this.#carriesMarker(proc)) return false;
    this.#marked.add(proc.pid);
    return true;
  }

  /** Whether `proc` is a child of this process whose environment holds this server's marker. */
  #carriesMarker(proc: Proc): boolean {
    const marker = this.#options.marker;
    return marker !== undefined && proc.ppid === Deno.pid &&
      environValue(proc.pid, SERVER_MARKER_VARIABLE) === marker;
  }

  /** How `proc`, a process this tree placed, was found. */
  foundBy(proc: Proc): FoundBy {
    if (proc.pgid === this.root) return "group";
    if (proc.sid === this.root) return "session";
    return this.#marked.has(proc.pid) ? "marker" : "tree";
  }

  /** Records that custody is killing `procs`, each with how it was found. */
  killing(procs: readonly Proc[]): void {
    for (const proc of procs) {
      if (this.#killed.size >= FOUND_RECORDED) return;
      if (!this.#killed.has(proc.pid)) this.#killed.set(proc.pid, this.foundBy(proc));
    }
  }

  /** The processes custody killed, with how each was found, in the order it found them. */
  get killed(): FoundProcess[] {
    return [...this.#killed].map(([pid, by]) => ({ pid, by }));
  }

  #placedAlone(proc: Proc, recycled: boolean | undefined): boolean {
    if (this.#members.get(proc.pid)?.start === proc.start) return true;
    if (proc.pgid !== this.root && proc.sid !== this.root) return false;
    return !(recycled ?? this.#recycled());
  }

  /**
   * Whether the root's pid names another process now. While a member of its
   * group or session lives, the root's pid is not given to another process;
   * once it was, both are empty, and a group or session of that id is not
   * the server's.
   */
  #recycled(): boolean {
    const root = readProc(this.root);
    return root !== undefined && root.start !== this.#rootStart;
  }

  /** Zombie children of this process that the scan shows as this server's: safe to reap. */
  zombies(scan: Scan): number[] {
    const recycled = this.#recycled();
    const found: number[] = [];
    for (const proc of scan.values()) {
      if (proc.state === "Z" && proc.ppid === Deno.pid && proc.pid !== this.root) {
        if (this.#placedAlone(proc, recycled)) found.push(proc.pid);
      }
    }
    return found;
  }

  /**
   * Live children of this process that nothing places: not started by it
   * (`TreeOptions.library`), not in its own session (a server's descendant
   * never is: a server leads a session of its own), not placed by any tree,
   * and born after this server. Each may be a descendant of this server
   * that left its session and lost its parent before any look saw it; none
   * is signalled, because none can be told from the harness's own. Only the
   * main thread's children are candidates: the kernel hands an orphan to the
   * first live thread of its subreaper, the main thread, while the workers'
   * threads are the parents of the servers they spawn. Undefined where this
   * process's children cannot be read.
   */
  suspects(): number[] | undefined {
    const self = readProc(Deno.pid);
    const main = self === undefined ? undefined : readChildren({ ...self, threads: 1 });
    if (self === undefined || main === undefined) return undefined;
    const library = new Set(this.#options.library());
    const bornAfter = this.#rootStart ?? this.#options.bornAfter ?? 0;
    const found: number[] = [];
    const mainChildren = new Set(main);
    for (const pid of main) {
      const proc = readProc(pid);
      if (proc === undefined || proc.state === "Z" || proc.start < bornAfter) continue;
      if (proc.sid === self.sid || library.has(proc.pid)) continue;
      if (proc.sid !== this.root && library.has(proc.sid)) continue;
      if ([...trees].some((tree) => tree.places(proc))) continue;
      // Another live server's, by its marker: that server's drain answers for it.
      const marker = environValue(pid, SERVER_MARKER_VARIABLE);
      if (marker !== undefined && marker !== this.#options.marker && markers.has(marker)) continue;
      if (proc.sid !== proc.pid && spawnedByDeno(proc.sid, mainChildren)) continue;
      found.push(pid);
    }
    return found;
  }

  /**
   * What a drain may claim once nothing placed lives: true only when every
   * descendant that left could have been seen (the subreaper set from
   * before the spawn, `/proc` readable throughout) and none is unplaced;
   * `"suspects"` when only unplaced children of this process stand in the way.
   */
  verdict(): true | "unknown" | "suspects" {
    if (this.#blind || !this.#options.subreaped) return "unknown";
    const suspects = this.suspects();
    if (suspects === undefined) return "unknown";
    return suspects.length === 0 ? true : "suspects";
  }

  /** Stops following the tree: members known to have died are forgotten; the rest stay guarded. */
  end(): void {
    trees.delete(this);
    if (this.#options.marker !== undefined) markers.delete(this.#options.marker);
    for (const pid of this.#outside) {
      const proc = readProc(pid);
      if (
        proc === undefined || proc.state === "Z" || proc.start !== this.#members.get(pid)?.start
      ) {
        this.#forget(pid);
      }
    }
  }

  #add(proc: Proc): void {
    this.#members.set(proc.pid, { start: proc.start, pgid: proc.pgid });
    this.#fresh.push(proc.pid);
    this.#place(proc.pid, proc);
  }

  #place(pid: number, proc: Proc): void {
    const member = this.#members.get(pid);
    if (member !== undefined) member.pgid = proc.pgid;
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
    this.#members.delete(pid);
    this.#marked.delete(pid);
    if (this.#outside.delete(pid)) this.#listener.gone(pid);
  }
}
