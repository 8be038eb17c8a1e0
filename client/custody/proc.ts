// What `/proc` says of processes, read the way custody can afford on the
// main thread. One process is one small file (`stat`), and its children one
// more (`task/<tid>/children`); a look at every process is one file per
// process on the machine. Reading thousands of them in one turn stalled the
// harness's event loop for 160-200 ms (the second attack run, 2,000 idle
// children), so a whole scan reads at most PROC_READS_PER_SLICE files per
// turn and lets the event loop run between slices (BENCHMARKS.md, "Custody's
// cost"). Deno lets a process read `/proc` only with every permission; where
// it cannot, every function here answers `undefined` and custody says
// "unknown".

/** Files of `/proc` a scan reads in one turn of the event loop before it lets others run. */
export const PROC_READS_PER_SLICE = 128;

/** One process as `/proc/<pid>/stat` shows it. */
export type Proc = {
  readonly pid: number;
  /** `R`, `S`, `D`, `T` (stopped), `t` (traced), `Z` (a zombie: it runs nothing) ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly threads: number;
  /** Its start, in clock ticks since boot: with the pid, it names one process. */
  readonly start: number;
};

/** Every process at one look: by pid. */
export type Scan = ReadonlyMap<number, Proc>;

/** Parses `/proc/<pid>/stat`: "pid (comm) state ppid pgrp session ... starttime(22nd)". */
function parseStat(pid: number, text: string): Proc | undefined {
  // comm may hold spaces and parentheses: the fields start after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[19]);
  if (!Number.isSafeInteger(start)) return undefined;
  return {
    pid,
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    threads: Number(fields[17]),
    start,
  };
}

/** Reads one process, or undefined when it is gone or unreadable. */
export function readProc(pid: number): Proc | undefined {
  try {
    return parseStat(pid, Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return undefined;
  }
}

/** Whether `state` is a stopped or traced process's (`T`, `t`). */
export function stopped(state: string): boolean {
  return state === "T" || state === "t";
}

function readList(path: string, into: number[]): void {
  for (const word of Deno.readTextFileSync(path).split(" ")) {
    const child = Number(word);
    if (word !== "" && Number.isSafeInteger(child)) into.push(child);
  }
}

/**
 * The children of a process, from every one of its threads (one file when
 * it has one thread, as `proc.threads` said); undefined when unreadable.
 */
export function readChildren(proc: Proc): number[] | undefined {
  const children: number[] = [];
  try {
    if (proc.threads === 1) {
      readList(`/proc/${proc.pid}/task/${proc.pid}/children`, children);
      return children;
    }
    for (const task of Deno.readDirSync(`/proc/${proc.pid}/task`)) {
      try {
        readList(`/proc/${proc.pid}/task/${task.name}/children`, children);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue; // The thread ended.
        throw error;
      }
    }
  } catch {
    return undefined;
  }
  return children;
}

/** The clock ticks since boot now (the unit of {@linkcode Proc.start}), or undefined. */
export function uptimeTicks(): number | undefined {
  try {
    const seconds = Number(Deno.readTextFileSync("/proc/uptime").split(" ")[0]);
    // Linux shows starts in USER_HZ, 100 a second on every architecture it runs on.
    return Number.isFinite(seconds) ? Math.floor(seconds * 100) : undefined;
  } catch {
    return undefined;
  }
}

function listPids(): number[] | undefined {
  if (Deno.build.os !== "linux") return undefined;
  const pids: number[] = [];
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      const pid = Number(entry.name);
      if (Number.isSafeInteger(pid) && pid > 0) pids.push(pid);
    }
  } catch {
    return undefined;
  }
  return pids;
}

/** Every process at once, in one turn (for the exit paths, which have no later turn). */
export function scanNow(): Scan | undefined {
  const pids = listPids();
  if (pids === undefined) return undefined;
  const scan = new Map<number, Proc>();
  for (const pid of pids) {
    const proc = readProc(pid);
    if (proc !== undefined) scan.set(pid, proc);
  }
  return scan;
}

/**
 * Resolves on a later turn of the event loop. A message on a channel of its
 * own: a `setTimeout` of 0 ms fires after 2.1 ms in Deno 2.9.6 (a message,
 * after 0.013 ms). The channel is closed once used, so it holds no process.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

async function scanSliced(): Promise<Scan | undefined> {
  const pids = listPids();
  if (pids === undefined) return undefined;
  const scan = new Map<number, Proc>();
  for (let index = 0; index < pids.length; index++) {
    if (index > 0 && index % PROC_READS_PER_SLICE === 0) await nextTurn();
    const pid = pids[index] as number;
    const proc = readProc(pid);
    if (proc !== undefined) scan.set(pid, proc);
  }
  return scan;
}

let nextScan: Promise<Scan | undefined> | undefined;

/**
 * Every process, read in slices over several turns. A scan is shared by
 * every caller that asks before it starts, so many retirements at once cost
 * one look per turn, not one each; it is never older than the request it
 * answers. Each entry was true when it was read; the scan as a whole spans
 * its slices.
 */
export function scan(): Promise<Scan | undefined> {
  nextScan ??= nextTurn().then(() => {
    nextScan = undefined;
    return scanSliced();
  });
  return nextScan;
}

/**
 * The value of variable `name` in the environment a process started with,
 * or undefined when it has none or cannot be read.
 */
export function environValue(pid: number, name: string): string | undefined {
  try {
    const prefix = `${name}=`;
    const found = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0")
      .find((entry) => entry.startsWith(prefix));
    return found?.slice(prefix.length);
  } catch {
    return undefined;
  }
}
