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
// the tree is snapshotted while the server lives and before every signal, and
// a descendant that left the group gets the group's signals itself, is part
// of the drain check, and is guarded at the harness's exit like a server.

import type { Drain, GroupSignal } from "../thread/evidence.ts";
import { drainGroup, signalGroup } from "./process_group.ts";
import { ProcessTree, watchTree } from "./process_tree.ts";
import * as guard from "./exit_guard.ts";

const guarded = { left: guard.track, gone: guard.untrack };

/** What the main thread knows of one server's process, and does to it. */
export class Custody {
  #pid: number | undefined;
  #exitSeen = false;
  #holding = false;
  #tree: ProcessTree | undefined;
  #unwatch: (() => void) | undefined;

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
    this.#pid = pid;
    this.#exitSeen = false;
    guard.track(pid);
    const tree = new ProcessTree(pid, guarded);
    this.#tree = tree;
    this.#unwatch = watchTree(tree, () => !this.#exitSeen);
  }

  /** The worker saw the server exit: its pid is never signalled again. */
  exited(pid: number): void {
    if (pid !== this.#pid) return;
    this.#exitSeen = true;
    guard.untrack(pid);
  }

  /** Records the server's process tree now, unless its exit was seen. */
  snapshot(): void {
    if (!this.#exitSeen) this.#tree?.snapshot(true);
  }

  /**
   * Signals the group for the worker's escalation, unless the exit was seen;
   * whether the group was signalled.
   */
  signal(pid: number, signal: GroupSignal): boolean {
    if (pid !== this.#pid || this.#exitSeen) return false;
    this.#tree?.snapshot(true);
    const sent = signalGroup(pid, signal);
    this.#tree?.signalEscaped(signal);
    return sent;
  }

  /**
   * The drain check after the exit: the group and every descendant that left
   * it; `"unknown"` for any other pid, before the exit, or where the tree
   * could not be followed.
   */
  drain(pid: number, deadlineMs: number): Promise<Drain> {
    if (pid !== this.#pid || !this.#exitSeen) return Promise.resolve("unknown");
    return drainGroup(pid, deadlineMs, this.#tree);
  }

  /**
   * The worker was lost: a server whose exit was not seen has its group
   * killed (terminating a worker drops its child but not the child's
   * descendants). Returns whether the process was already confirmed gone.
   */
  abandon(): boolean {
    const pid = this.#pid;
    if (pid === undefined || this.#exitSeen) return true;
    this.#tree?.snapshot(true);
    signalGroup(pid, "SIGKILL");
    this.#tree?.signalEscaped("SIGKILL");
    guard.untrack(pid);
    return false;
  }

  /** The client is done with the process: nothing is guarded any more. */
  end(): void {
    if (this.#pid !== undefined && this.#exitSeen) guard.untrack(this.#pid);
    // Descendants still alive stay guarded until the harness ends.
    this.#tree?.alive();
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.release();
  }
}
