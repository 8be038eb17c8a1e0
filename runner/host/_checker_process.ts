/**
 * Private to runner/: the resident checker's process, seen from the host.
 * Spawns `compiler/entry.ts` in a `deno run` with no permission and a V8
 * heap cap, writes requests to its stdin and reads replies from its stdout,
 * one JSON line each way, and kills it.
 *
 * Why a process and not a Web Worker: in Deno 2.9.6 `worker.terminate()`
 * does not stop a worker busy in JavaScript (measured here: a worker in a
 * tight loop, terminated, kept a core busy and kept the process from
 * exiting; denoland/deno#35657 reports the same), so a program written to
 * make the compiler work without end would leave a spinning, growing thread
 * in the harness. A process dies on SIGKILL within about 10 ms, and
 * `--max-old-space-size` bounds its heap; `--max-semi-space-size` keeps its
 * young generation small, so a check leaves little resident
 * ({@linkcode CHECKER_SEMI_SPACE_MB}).
 *
 * The process runs with no `--allow-*` flag: a main module's static imports
 * load without permission (the compiler's library declarations are text
 * imports of its package), so even a compiler bug cannot read a host file.
 * Loaded from a URL, the library starts it from that URL with
 * `--allow-import` for that host alone; from a file, with `--no-remote`. It
 * leads its own process group (`detached`), so the exit guard's group kill
 * reaches it. It inherits the host's environment, which Deno itself reads
 * (`DENO_DIR`, where the compiler's package is cached, an npm registry or
 * proxy); the code inside has no `--allow-env` and cannot read it.
 *
 * Lifecycle: a `CheckerProcess` owns its process and its three pipes.
 * {@linkcode CheckerProcess.kill} sends SIGKILL; `exited` settles once the
 * process has exited and its pipes are drained and closed, on every path.
 * An exit nobody asked for is reported through `events.exit` with the exit
 * status and the tail of its stderr. The custody hook hears of the pid at
 * the spawn and of its exit once seen, so an exit guard can kill a process
 * left mid-check by a harness that dies (between checks, it ends on its own
 * when its stdin closes).
 *
 * @module
 */

import { LineDecoder } from "../../codec/framing.ts";
import type { CheckerRequest } from "../checker/protocol.ts";
import { CHECKER_SEMI_SPACE_MB, CHILD_STDERR_TAIL_CHARS } from "./limits.ts";

/**
 * Who else must know the checker's pids, such as a harness's exit guard that
 * kills what is left when the harness dies. An exception in either call is
 * ignored.
 */
export type ProcessCustody = {
  /** A checker process started. */
  started(pid: number): void;
  /** Its exit was seen: that pid must never be signalled again. */
  exited(pid: number): void;
};

/** What a process reports to its owner. */
export type ProcessEvents = {
  /** One line of stdout, parsed as JSON (still to be decoded). */
  reply(data: unknown): void;
  /** A line of stdout that is not JSON, not UTF-8, or too long. */
  fault(message: string): void;
  /** The process ended without {@linkcode CheckerProcess.kill}; `outOfMemory` when V8 said so. */
  exit(message: string, outOfMemory: boolean): void;
};

/** How to start a checker process. */
export type ProcessOptions = {
  /** The Deno executable. */
  deno: string;
  /** The V8 heap cap of the process, in MiB. */
  heapMb: number;
  /** Told the pid once spawned, and once its exit is seen. */
  custody: ProcessCustody | undefined;
};

/** How much of the process's stderr is kept to tell why it exited. */
/** How much of it an exit report quotes. */
const STDERR_REPORT_CHARS = 300;

const encoder = new TextEncoder();

/** The `deno run` arguments of a checker process whose entry is `entry`. */
export function checkerArgs(entry: URL, heapMb: number): string[] {
  return [
    "run",
    // No `--allow-*`: the main module and its static imports load without
    // permission, and the compiler needs none.
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--quiet",
    // A library loaded from a URL starts its checker from the same host.
    entry.protocol === "file:" ? "--no-remote" : `--allow-import=${entry.host}`,
    `--v8-flags=--max-old-space-size=${heapMb},--max-semi-space-size=${CHECKER_SEMI_SPACE_MB}`,
    entry.href,
  ];
}

function tell(custody: ProcessCustody | undefined, event: keyof ProcessCustody, pid: number) {
  try {
    custody?.[event](pid);
  } catch {
    // The caller's hook cannot break the checker.
  }
}

/** One running checker process (see the module doc). */
export class CheckerProcess {
  /** Settles once the process has exited and its pipes are closed. */
  readonly exited: Promise<void>;
  /** The process's id. */
  readonly pid: number;
  readonly #process: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #killed = false;
  #stderrTail = "";

  /** Spawns the process; throws when it cannot be spawned. */
  constructor(entry: URL, events: ProcessEvents, options: ProcessOptions) {
    this.#process = new Deno.Command(options.deno, {
      args: checkerArgs(entry, options.heapMb),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    this.#stdin = this.#process.stdin.getWriter();
    const pid = this.#process.pid;
    this.pid = pid;
    tell(options.custody, "started", pid);
    this.exited = Promise.all([
      this.#process.status,
      this.#readLines(events),
      this.#drainStderr(),
    ]).then(async ([status]) => {
      tell(options.custody, "exited", pid);
      await this.#stdin.close().catch(() => {});
      if (this.#killed) return;
      events.exit(this.#reason(status), /out of memory|heap limit/i.test(this.#stderrTail));
    });
  }

  /** Queues one request; a write to a dead process is reported by its exit. */
  send(request: CheckerRequest): void {
    this.#stdin.write(encoder.encode(`${JSON.stringify(request)}\n`)).catch(() => {});
  }

  /** Kills the process at once (SIGKILL); resolves when it has exited. */
  kill(): Promise<void> {
    if (!this.#killed) {
      this.#killed = true;
      try {
        this.#process.kill("SIGKILL");
      } catch {
        // It has exited already.
      }
    }
    return this.exited;
  }

  #reason(status: Deno.CommandStatus): string {
    const how = status.signal === null ? `code ${status.code}` : `signal ${status.signal}`;
    const last = this.#stderrTail.trim().split("\n").slice(-3).join(" ")
      .slice(-STDERR_REPORT_CHARS);
    return `the checker process exited (${how})${last === "" ? "" : `: ${last}`}`;
  }

  async #readLines(events: ProcessEvents): Promise<void> {
    const decoder = new LineDecoder();
    const deliver = (lines: string[]) => {
      for (const line of lines) {
        let data: unknown;
        try {
          data = JSON.parse(line);
        } catch {
          events.fault(`the checker process wrote a line that is not JSON: ${line.slice(0, 200)}`);
          continue;
        }
        events.reply(data);
      }
    };
    try {
      for await (const chunk of this.#process.stdout) {
        const pushed = decoder.push(chunk);
        if (pushed.ok) {
          deliver(pushed.value);
        } else {
          deliver(pushed.error.lines);
          events.fault(`the checker process wrote a bad line: ${pushed.error.message}`);
        }
      }
    } catch {
      // The pipe broke with the process: its exit says why.
    }
  }

  async #drainStderr(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.#process.stderr) {
        this.#stderrTail = (this.#stderrTail + decoder.decode(chunk, { stream: true }))
          .slice(-CHILD_STDERR_TAIL_CHARS);
      }
    } catch {
      // As above.
    }
  }
}
