// The main thread's share in controlling one server's
// process. The worker spawns the child, owns its pipes and decides the
// escalation of its retirement; this side sends the signals to its process
// group, runs the drain check (`process_group.ts`), and keeps the exit guard
// (`exit_guard.ts`) that kills the group if the harness process ends. The
// split is forced by least privilege: a worker granted `run` for its one
// command cannot signal a process group nor read `/proc`, and exit hooks run
// only on the main thread. The worker reports the pid at once and the exit
// as soon as it is seen; no signal is sent to a pid after its exit was seen,
// because pids are recycled.
//
// Custody follows the process tree, not only the group (`process_tree.ts`):
// the tree is walked while the server lives and read whole before every
// signal; a descendant that left the group gets the group's signals itself,
// is part of the drain check, and is guarded at the harness's exit like a
// server. From the first server in custody on, this process is the subreaper
// of its orphans (`subreaper.ts`), so that a descendant that leaves before
// any look stays in sight, and the drain says "unknown" when it cannot be
// placed. Each server is spawned with a marker of its own in its environment
// (`marker`, SERVER_MARKER_VARIABLE), so that an orphan adopted before any
// look is still known as the server's, and killed with it; the evidence says
// how each process custody killed was found (`found`).

import type { Drain, FoundProcess, GroupSignal } from "../thread/evidence.ts";
import { drainGroup, placed, signalEach, signalGroup, signalIfSame } from "./process_group.ts";
import { ProcessTree, SERVER_MARKER_VARIABLE } from "./process_tree.ts";
import { TREE_READS_PER_TICK, watchTree } from "./tree_watch.ts";
import { scanNow, uptimeTicks } from "./proc.ts";
import { ensureSubreaper } from "./subreaper.ts";
import * as guard from "./exit_guard.ts";

const guarded = { left: guard.track, gone: guard.untrack };

function library(): number[] {
  return [...guard.guardedPids(), ...guard.custodianPids()];
}

/** What the main thread knows of one server's process, and does to it. */
export class Custody {
  #pid: number | undefined;
  #exitSeen = false;
  #holding = false;
  #tree: ProcessTree | undefined;
  #unwatch: (() => void) | undefined;
  /** Whether this process was the subreaper from before the spawn (then a drain may prove). */
  #subreapedBeforeSpawn = false;
  /** Clock ticks since boot at the first hold: no descendant of the server is older. */
  #heldAt: number | undefined;
  /** Signals in the order the worker asked for them. */
  #signals: Promise<void> = Promise.resolve();
  /** The value of SERVER_MARKER_VARIABLE this server is spawned with. */
  readonly #marker = crypto.randomUUID();

  /** The variable and value the server's environment must hold: its marker. */
  get marker(): readonly [name: string, value: string] {
    return [SERVER_MARKER_VARIABLE, this.#marker];
  }

  /** The processes of the server's that custody killed itself, with how each was found. */
  get found(): FoundProcess[] {
    return this.#tree?.killed ?? [];
  }

  /** The server's pid once spawned. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** Whether the server's real exit has been seen. */
  get exitSeen(): boolean {
    return this.#exitSeen;
  }

  /** Keeps the exit guard installed while a start is under way (no pid yet). */
  hold(): void {
    if (this.#holding) return;
    this.#holding = true;
    guard.hold();
    if (this.#heldAt === undefined && this.#pid === undefined) {
      this.#heldAt = uptimeTicks();
      // Set before the worker is told to spawn: every orphan of the server comes here.
      this.#subreapedBeforeSpawn = ensureSubreaper();
    }
  }

  /** Ends the {@linkcode hold}. */
  release(): void {
    if (!this.#holding) return;
    this.#holding = false;
    guard.release();
  }

  /**
   * The worker spawned the server: its group is guarded from now on. A
   * second spawn (a server started once more after it exited on the era
   * probe) is taken only once the first one's exit has been seen.
   */
  spawned(pid: number): void {
    if (this.#pid !== undefined && !this.#exitSeen) return;
    // Spawned without a hold first: its orphans before now may be init's.
    if (!ensureSubreaper()) this.#subreapedBeforeSpawn = false;
    this.#unwatch?.();
    this.#tree?.end();
    this.#pid = pid;
    this.#exitSeen = false;
    guard.track(pid);
    guard.mark(this.#marker);
    const tree = new ProcessTree(pid, guarded, {
      subreaped: this.#subreapedBeforeSpawn,
      bornAfter: this.#heldAt,
      library,
      marker: this.#marker,
    });
    this.#tree = tree;
    this.#unwatch = watchTree(tree, () => !this.#exitSeen);
  }

  /** The worker saw the server exit: its pid is never signalled again. */
  exited(pid: number): void {
    if (pid !== this.#pid) return;
    this.#exitSeen = true;
    guard.untrack(pid);
  }

  /**
   * Records the server's process tree now, unless its exit was seen: a
   * bounded step at once and, when that did not reach every member, the
   * whole tree in slices (`placed`).
   */
  snapshot(): void {
    const tree = this.#tree;
    if (tree === undefined || this.#exitSeen) return;
    if (tree.step(TREE_READS_PER_TICK, true) < TREE_READS_PER_TICK) return;
    const pid = this.#pid ?? -1;
    placed(pid, !this.#exitSeen, tree).catch(() => {});
  }

  /**
   * Signals the group for the worker's escalation, unless the exit was seen,
   * and every other process the tree places as the server's; the whole tree
   * is read first, so that no descendant is lost to a parent the signal
   * kills. Signals are sent in the order they were asked for; resolves,
   * once they were, to whether the group was signalled.
   */
  signal(pid: number, signal: GroupSignal): Promise<boolean> {
    if (pid !== this.#pid || this.#exitSeen) return Promise.resolve(false);
    const tree = this.#tree;
    let sent = false;
    this.#signals = this.#signals.then(async () => {
      const found = tree === undefined ? undefined : await placed(pid, !this.#exitSeen, tree);
      if (!this.#exitSeen) sent = signalGroup(pid, signal);
      const outside = (found?.live ?? []).filter((proc) => proc.pgid !== pid);
      tree?.killing(outside);
      await signalEach(outside, signal);
    }).catch(() => {
      // Nothing here throws; a rejection left unhandled would end the harness.
    });
    return this.#signals.then(() => sent);
  }

  /**
   * The drain check after the exit: the group, the session and every
   * descendant the tree places; `"unknown"` for any other pid, before the
   * exit, or where the tree could not prove that none is left.
   */
  drain(pid: number, deadlineMs: number): Promise<Drain> {
    if (pid !== this.#pid || !this.#exitSeen) return Promise.resolve("unknown");
    return drainGroup(pid, deadlineMs, this.#tree);
  }

  /**
   * The worker was lost: a server whose exit was not seen has its group
   * killed (terminating a worker drops its child but not the child's
   * descendants), and what the tree places with it, from one look now.
   * Returns whether the process was already confirmed gone.
   */
  abandon(): boolean {
    const pid = this.#pid;
    if (pid === undefined || this.#exitSeen) return true;
    const look = scanNow();
    const placed = look === undefined ? [] : this.#tree?.collect(look) ?? [];
    signalGroup(pid, "SIGKILL");
    const outside = placed.filter((proc) => proc.pgid !== pid);
    this.#tree?.killing(outside);
    for (const proc of outside) signalIfSame(proc, "SIGKILL");
    guard.untrack(pid);
    return false;
  }

  /** The client is done with the process: nothing is guarded any more. */
  end(): void {
    if (this.#pid !== undefined && this.#exitSeen) guard.untrack(this.#pid);
    // Descendants still alive stay guarded until the harness ends.
    this.#tree?.end();
    guard.unmark(this.#marker);
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.release();
  }
}
