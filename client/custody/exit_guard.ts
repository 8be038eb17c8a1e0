// When the harness process ends, no server outlives it,
// and the signals stay the harness's. The harness's type checker process
// (`runner/host/_checker_process.ts`) is tracked here like a server, from its spawn
// to its exit, so one left in the middle of a check dies with the harness.
//
// The library installs no signal listener: a listener would replace Deno's
// default action (ending the process), so a harness's own "cancel this turn"
// handler would be followed by an exit it never asked for, or a harness
// without one would lose the usual 130/143/129 status. Instead two mechanisms
// cover every way the process can end:
//
// - In process, synchronously: `unload` (a normal end, `Deno.exit`), and
//   `error` and `unhandledrejection` left unhandled, kill every live server's
//   process tree, group and session before the process goes. These listeners
//   exist only while a client is starting or a server is live.
// - Out of process: a custodian, one small `sh` started with the first server
//   and kept for the life of the process, in a session and process group of
//   its own and deaf to SIGINT, SIGTERM, SIGHUP and SIGQUIT. It holds the read
//   end of a pipe whose only writer is this process and is told each live
//   server's pid. When the harness dies by any means (a default signal,
//   SIGKILL included), the pipe ends, and it stops every server's group and
//   every pid it was told of at once, collects their descendants and session
//   members from /proc, then kills them all.
//
// A server cannot be kept from signalling the custodian: any process of the
// same user may signal any other, whatever its session or group. What it can
// be kept from is gaining by it. Stopped (SIGSTOP), the custodian would sleep
// through the harness's death; so it runs under `setpriv --pdeathsig CONT`,
// which has the kernel continue it when the harness dies, and this process
// looks at it every CUSTODIAN_CHECK_MS and replaces one it finds stopped (or
// gone). A server that kills the custodian and the harness together, or
// stops it again in the microseconds between its wakening and its first
// signal, still outlives both: only a PID namespace around the servers (the
// spawn's business) would close that. Where `setpriv` is missing or too old,
// the custodian is a plain `sh`, and a custodian stopped when the harness is
// killed stays stopped.
//
// Worker termination alone would not do: it kills a worker's child but not
// that child's descendants, and `Deno.exit` kills neither. The custodian
// needs `--allow-run` for `sh` (a harness runs its servers with it); where it
// cannot start, the in-process paths still hold and signals end the process
// as Deno's default does, leaving the servers to notice their closed stdin.
//
// Who controls the child: the worker owns it (pipes, retirement order); the
// guard is the main thread's because only the main thread sees the process
// end (a worker's hooks do not run then) and only it may signal a group when
// workers run with least privilege. Pids arrive through `client/custody/custody.ts` as
// soon as the worker spawns them and leave as soon as their exit is seen.

import { signalGroup } from "./process_group.ts";
import { environValue, readProc, scanNow, stopped } from "./proc.ts";
import { SERVER_MARKER_VARIABLE } from "./process_tree.ts";

/** How often the custodian is looked at, and replaced when found stopped, in milliseconds. */
export const CUSTODIAN_CHECK_MS = 250;

const live = new Set<number>();
// The markers of servers in custody (`process_tree.ts`): an orphan this
// process adopted that carries one is that server's, whether or not the
// server still lives.
const markers = new Set<string>();
let holds = 0;
let installed = false;

// The custodian's script. Its arguments: the pids live when it starts.
// Lines on stdin: "+<pid>" a server (or a descendant that left its group)
// started, "-<pid>" its exit was seen (never signal it again: pids are
// recycled). At the end of stdin, first and in one command, every tracked
// pid and the group each leads are stopped; then, while the tree still holds,
// every descendant and every member of their groups and sessions is
// collected from /proc (and stopped in turn), then all are killed, then
// every group.
const CUSTODIAN_SCRIPT = `trap '' INT TERM HUP QUIT
pids="$*"
while IFS= read -r line; do
  case $line in
    +*) pids="$pids \${line#+}" ;;
    -*) kept=; for p in $pids; do [ "$p" = "\${line#-}" ] || kept="$kept $p"; done; pids=$kept ;;
  esac
done
[ -z "$pids" ] && exit 0
set --
for p in $pids; do set -- "$@" "-$p" "$p"; done
kill -s STOP -- "$@" 2>/dev/null
found=$pids
if [ -r /proc/self/stat ]; then
  while :; do
    more=
    for s in /proc/[0-9]*/stat; do
      read -r st < "$s" 2>/dev/null || continue
      pid=\${st%% *}
      set -- \${st##*) }
      case " $found $more " in *" $pid "*) continue ;; esac
      case " $found " in *" $2 "*) more="$more $pid"; continue ;; esac
      case " $pids " in *" $3 "*|*" $4 "*) more="$more $pid" ;; esac
    done
    [ -z "$more" ] && break
    kill -s STOP $more 2>/dev/null
    found="$found $more"
  done
fi
kill -s KILL $found 2>/dev/null
for p in $pids; do kill -s KILL -- "-$p" 2>/dev/null; done
exit 0
`;

type Custodian = { pid: number; tell(line: string): void; end(): void };
let custodian: Custodian | null | undefined;
/** Whether `setpriv --pdeathsig` can start the custodian; false once it could not. */
let setpriv = true;
let checker: ReturnType<typeof setInterval> | undefined;
/** Every custodian started whose exit has not been seen (a replaced one may linger). */
const custodians = new Set<number>();
const encoder = new TextEncoder();

function spawnCustodian(): { child: Deno.ChildProcess; underSetpriv: boolean } {
  // The live set travels in argv, so it is the custodian's from its first instruction.
  const shell = ["-c", CUSTODIAN_SCRIPT, "custodian", ...[...live].map(String)];
  const options = {
    stdin: "piped",
    stdout: "null",
    stderr: "null",
    cwd: "/",
    clearEnv: true,
    detached: true,
  } as const;
  if (setpriv) {
    try {
      // The kernel sends SIGCONT when this thread (the main thread: the
      // process) ends, which wakes a custodian someone stopped.
      const args = ["--pdeathsig", "CONT", "sh", ...shell];
      return {
        child: new Deno.Command("setpriv", { args, ...options }).spawn(),
        underSetpriv: true,
      };
    } catch {
      setpriv = false;
    }
  }
  return {
    child: new Deno.Command("sh", { args: shell, ...options }).spawn(),
    underSetpriv: false,
  };
}

function startCustodian(): Custodian | null {
  let spawned: ReturnType<typeof spawnCustodian>;
  try {
    spawned = spawnCustodian();
  } catch {
    return null; // No sh, or no permission to run it: the in-process paths remain.
  }
  const { child, underSetpriv } = spawned;
  custodians.add(child.pid);
  // It must never keep the harness alive, nor count as its work.
  child.unref();
  const writer = child.stdin.getWriter();
  const started: Custodian = {
    pid: child.pid,
    tell(line) {
      writer.write(encoder.encode(`${line}\n`)).catch(() => {
        // It died (killed from outside): the next change starts another.
        if (custodian === started) custodian = undefined;
      });
    },
    end() {
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited already.
      }
    },
  };
  // Killed from outside while this process lives: another takes its place.
  child.status.then((status) => {
    custodians.delete(child.pid);
    // A setpriv that cannot start it (too old for --pdeathsig) exits with a
    // status of its own; the script itself only ever exits with 0.
    if (underSetpriv && status.code !== 0 && status.signal === null) setpriv = false;
    if (custodian !== started) return;
    custodian = undefined;
    if (live.size > 0) custodian = startCustodian();
  }, () => {});
  return started;
}

// A stopped custodian would sleep through the harness's end: it is replaced,
// and one found missing is started.
function checkCustodian(): void {
  const current = custodian;
  if (current === null) return;
  if (current === undefined) {
    if (live.size > 0) custodian = startCustodian();
    return;
  }
  const proc = readProc(current.pid);
  if (proc === undefined || !stopped(proc.state)) return;
  custodian = undefined;
  current.end();
  if (live.size > 0) custodian = startCustodian();
}

// Tells the custodian of a change; starting one tells it the whole live set.
function tell(line: string): void {
  if (custodian === undefined) custodian = startCustodian();
  else custodian?.tell(line);
}

/** Whether the custodian process runs (for tests); starts none. */
export function custodianRunning(): boolean {
  return custodian !== undefined && custodian !== null;
}

/** The pids of the custodians that run: the current one, and any replaced one not yet gone. */
export function custodianPids(): Iterable<number> {
  return custodians;
}

/** The pids guarded now: live servers, the checker, descendants that left their group. */
export function guardedPids(): Iterable<number> {
  return live;
}

/**
 * Kills every live server's process tree, group and session, now.
 * Descendants that left the session (`setsid`) are found through `/proc`
 * while their parents still live; elsewhere only the groups are signalled.
 */
export function killAll(): void {
  if (live.size === 0 && markers.size === 0) return;
  // Stopped first, so that no member starts another process meanwhile.
  for (const pid of live) send(-pid, "SIGSTOP");
  for (const pid of descendants(live)) send(pid, "SIGKILL");
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}

function send(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(pid, signal);
  } catch {
    // Gone already, or not ours to signal.
  }
}

// Every process below `roots` in the tree or in a group or session one of
// them leads, or below a child of this process that carries a server's
// marker, from one look at /proc.
function descendants(roots: ReadonlySet<number>): number[] {
  const look = scanNow();
  if (look === undefined) return [];
  const found = new Set(roots);
  for (const proc of look.values()) {
    if (roots.has(proc.pgid) || roots.has(proc.sid)) found.add(proc.pid);
    else if (proc.ppid === Deno.pid && markers.size > 0 && proc.state !== "Z") {
      const marker = environValue(proc.pid, SERVER_MARKER_VARIABLE);
      if (marker !== undefined && markers.has(marker)) found.add(proc.pid);
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const proc of look.values()) {
      if (!found.has(proc.pid) && found.has(proc.ppid)) {
        found.add(proc.pid);
        grew = true;
      }
    }
  }
  found.delete(Deno.pid);
  return [...found].filter((pid) => !roots.has(pid));
}

function onUnload(): void {
  killAll();
}

function onFatal(event: Event): void {
  // A handler that prevented the default keeps the process, and its servers, alive.
  if (!event.defaultPrevented) killAll();
}

function update(): void {
  const wanted = holds > 0 || live.size > 0 || markers.size > 0;
  if (wanted === installed) return;
  installed = wanted;
  if (wanted) {
    checker = setInterval(checkCustodian, CUSTODIAN_CHECK_MS);
    Deno.unrefTimer(checker);
    globalThis.addEventListener("unload", onUnload);
    globalThis.addEventListener("error", onFatal);
    globalThis.addEventListener("unhandledrejection", onFatal);
  } else {
    clearInterval(checker);
    checker = undefined;
    globalThis.removeEventListener("unload", onUnload);
    globalThis.removeEventListener("error", onFatal);
    globalThis.removeEventListener("unhandledrejection", onFatal);
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

/** Records a live server's pid, here and with the custodian. */
export function track(pid: number): void {
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  live.add(pid);
  tell(`+${pid}`);
  update();
}

/** Forgets a pid whose exit was seen: it must never be signalled again. */
export function untrack(pid: number): void {
  if (live.delete(pid)) tell(`-${pid}`);
  update();
}

/**
 * Guards the orphans of a server by the marker it was spawned with, until
 * {@linkcode unmark}: at the harness's end, a child of this process that
 * carries it is killed with whatever is below it.
 */
export function mark(marker: string): void {
  markers.add(marker);
  update();
}

/** Ends the {@linkcode mark} of a server whose custody ended. */
export function unmark(marker: string): void {
  markers.delete(marker);
  update();
}

/** Whether the exit listeners are installed (for tests). */
export function listening(): boolean {
  return installed;
}
