// Private to client/: when the harness process ends, no server outlives it.
//
// The main thread keeps every live server's pid (each leads its own process
// group) and kills the groups synchronously on the way out: from `unload`
// (a normal end, `Deno.exit`), from `error` and `unhandledrejection` left
// unhandled, and from SIGINT and SIGTERM, after which the process exits with
// the conventional code (130, 143). Listeners exist only while a client is
// starting or a server is live, so a harness that retired everything leaks
// nothing. Worker termination alone would not do: it kills a worker's child
// but not that child's descendants, and `Deno.exit` kills neither.
//
// Who controls the child: the worker owns it (pipes, retirement order); the
// guard is the main thread's because only the main thread sees the process
// end (a worker's hooks do not run then) and only it may signal a group when
// workers run with least privilege. Pids arrive through `_custody.ts` as
// soon as the worker spawns them and leave as soon as their exit is seen.

import { signalGroup } from "./_process_group.ts";

const live = new Set<number>();
let holds = 0;
let installed = false;

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type ExitSignal = keyof typeof EXIT_CODES;

/** Kills every live server's process group, now. */
export function killAll(): void {
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}

function onUnload(): void {
  killAll();
}

function onFatal(event: Event): void {
  // A handler that prevented the default keeps the process, and its servers, alive.
  if (!event.defaultPrevented) killAll();
}

function onSignal(signal: ExitSignal): () => void {
  return () => {
    killAll();
    Deno.exit(EXIT_CODES[signal]);
  };
}

const signalHandlers: Record<ExitSignal, () => void> = {
  SIGINT: onSignal("SIGINT"),
  SIGTERM: onSignal("SIGTERM"),
};

function update(): void {
  const wanted = holds > 0 || live.size > 0;
  if (wanted === installed) return;
  installed = wanted;
  if (wanted) {
    globalThis.addEventListener("unload", onUnload);
    globalThis.addEventListener("error", onFatal);
    globalThis.addEventListener("unhandledrejection", onFatal);
  } else {
    globalThis.removeEventListener("unload", onUnload);
    globalThis.removeEventListener("error", onFatal);
    globalThis.removeEventListener("unhandledrejection", onFatal);
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    try {
      if (wanted) Deno.addSignalListener(signal, signalHandlers[signal]);
      else Deno.removeSignalListener(signal, signalHandlers[signal]);
    } catch {
      // Not every platform has every signal; the other paths still hold.
    }
  }
}

/** Keeps the listeners installed while a client starts (its pid is not known yet). */
export function hold(): void {
  holds++;
  update();
}

/** Ends one {@linkcode hold}. */
export function release(): void {
  holds = Math.max(0, holds - 1);
  update();
}

/** Records a live server's pid. */
export function track(pid: number): void {
  live.add(pid);
  update();
}

/** Forgets a pid whose exit was seen: it must never be signalled again. */
export function untrack(pid: number): void {
  live.delete(pid);
  update();
}

/** Whether the exit listeners are installed (for tests). */
export function listening(): boolean {
  return installed;
}
