/**
 * The production transport: a real child process from `Deno.Command`.
 *
 * Who closes what: the transport owns the child's three pipes. stdin closes
 * on `closeStdin` (after queued writes) or on `dispose`; stdout and stderr
 * are read until they end or `dispose` cancels them (a descendant may hold
 * them open past the exit). The exit is taken from `child.status`, never
 * from the end of stdout. Signals and the drain check go through a
 * {@linkcode GroupControl}, because in a least-privilege worker `Deno.kill`
 * and `/proc` are out of reach and the main thread does them.
 *
 * @module
 */

import { err, ok, type Result } from "../../../codec/result.ts";
import { encodeUtf8 } from "../../../codec/_utf8.ts";
import { printable } from "../../../codec/quote.ts";
import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import { ByteTail } from "./tail.ts";
import { MAX_UNREAD_STDIN_BYTES } from "../../../settings/limits.ts";
import type {
  Drain,
  GroupSignal,
  ProcessControl,
  ServerControl,
  Transport,
  TransportSink,
} from "../transport.ts";

/** Signals and drain checks of a process group, done wherever permitted. */
export interface GroupControl {
  /** Signals the group led by `pid`. */
  signal(pid: number, signal: GroupSignal): void;
  /** After the leader's exit: kills survivors and tells whether the group emptied. */
  drain(pid: number, deadlineMs: number): Promise<Drain>;
}

/** What to run, and where its events go besides the sink. */
export type CommandOptions = {
  /** The server's name, for the stderr prefix and messages. */
  name: string;
  /** The executable; never a shell string. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The child's whole environment. */
  env: Readonly<Record<string, string>>;
  /** The child's working directory, or the harness's. */
  cwd?: string | undefined;
  /** Also write stderr to the harness's stderr, each line prefixed `[name] `. */
  forwardStderr?: boolean;
  /** Signals and drain checks. */
  group: GroupControl;
  /** Called as soon as the child exists. */
  onSpawn?: (pid: number) => void;
  /** Called with each stderr chunk (a copy the callee may keep). */
  onStderr?: (chunk: Uint8Array) => void;
  /** Called once with the real exit status. */
  onExit?: (status: { code: number; signal: string | null }) => void;
  /** The clock of the dispose grace; the system clock by default. */
  clock?: Clock;
};

/** How long a retired server's pipes are read before they are cancelled, in ms. */
export const DISPOSE_GRACE_MS = 100;

/** The size of each read of stdout, in bytes: what a pipe holds on Linux. */
export const READ_BUFFER_BYTES = 64 * 1024;

/**
 * The size of the buffer requests are encoded into, in bytes; text that may
 * need more is encoded into a buffer of its own.
 */
export const WRITE_BUFFER_BYTES = 64 * 1024;

/** The longest partial stderr line held for forwarding before it is written anyway. */
export const FORWARD_LINE_BYTES = 16 * 1024;

const encoder = new TextEncoder();
const lenient = new TextDecoder();
const NEWLINE = 0x0a;

/**
 * Runs a server as a child process leading its own process group.
 *
 * @example Run a server
 * ```ts
 * import { CommandTransport } from "./command_transport.ts";
 * const transport = new CommandTransport({
 *   name: "echo",
 *   command: Deno.execPath(),
 *   args: ["run", "server.ts"],
 *   env: {},
 *   group: { signal: () => {}, drain: () => Promise.resolve("unknown") },
 * });
 * console.log(transport.stderrTail()); // ""
 * ```
 */
export class CommandTransport implements Transport, ProcessControl {
  /** A child process's control: this transport's own. */
  readonly control: ServerControl = { kind: "process", process: this };
  #options: CommandOptions;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #stdout: ReadableStreamBYOBReader | undefined;
  #stderr: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #sink: TransportSink | undefined;
  #queue: Array<string | Uint8Array> = [];
  // What was queued and is not yet written: queued, or in a write not done.
  #unwritten = 0;
  #overflowed = false;
  #writing = false;
  #stdinOpen = false;
  #closeRequested = false;
  #exited = false;
  #tail = new ByteTail();
  #forwardHeld: Uint8Array[] = [];
  #forwardHeldBytes = 0;
  #stdoutDone: Promise<void> = Promise.resolve();
  #stderrDone: Promise<void> = Promise.resolve();
  #stdoutEnded = false;
  // The buffer text is encoded into for a write, kept between writes.
  #out = new Uint8Array(0);
  #stderrEnded = false;

  constructor(options: CommandOptions) {
    this.#options = options;
  }

  /** The child's pid once spawned. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** Spawns the child and starts reading its stdout and stderr. */
  open(sink: TransportSink): Promise<Result<void, { message: string }>> {
    if (this.#child !== undefined) throw new TypeError("Cannot open a CommandTransport twice");
    const options = this.#options;
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(options.command, {
        args: [...options.args],
        env: { ...options.env },
        clearEnv: true,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return Promise.resolve(
        err({ message: `${JSON.stringify(options.command)} could not be spawned: ${reason}` }),
      );
    }
    this.#child = child;
    this.#sink = sink;
    options.onSpawn?.(child.pid);
    this.#writer = child.stdin.getWriter();
    this.#stdinOpen = true;
    this.#stdout = child.stdout.getReader({ mode: "byob" });
    this.#stderr = child.stderr.getReader();
    this.#stdoutDone = this.#readStdout(this.#stdout, sink);
    this.#stderrDone = this.#readStderr(this.#stderr);
    void child.status.then((status) => {
      this.#exited = true;
      const exit = { code: status.code, signal: status.signal };
      options.onExit?.(exit);
      sink.exit(exit);
    });
    return Promise.resolve(ok(undefined));
  }

  /**
   * Queues text or bytes for stdin; written in order, adjacent text coalesced.
   * The first write starts on a microtask, so that what one synchronous run
   * queues (a request's head, parameters and tail; a batch of requests)
   * reaches the pipe in one `write`: a line split across two writes costs
   * the server a second read, and a thread wake-up each side (measured with
   * strace: two writes and two reads per call before this).
   */
  write(data: string | Uint8Array): void {
    if (!this.#stdinOpen || this.#closeRequested) return;
    this.#unwritten += data.length;
    if (this.#unwritten > MAX_UNREAD_STDIN_BYTES) return this.#unread();
    this.#queue.push(data);
    if (this.#writing) return;
    this.#writing = true;
    queueMicrotask(() => void this.#pump());
  }

  async #pump(): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined) {
      this.#writing = false;
      return;
    }
    try {
      while (this.#queue.length > 0 && this.#stdinOpen) {
        const queued = this.#queue;
        this.#queue = [];
        // Each write is done before the next is encoded: the kept buffer is free again.
        for (const chunk of coalesce(queued)) {
          await writer.write(this.#encode(chunk));
          this.#unwritten -= chunk.length;
        }
      }
    } catch (error) {
      // A write the overflow aborted: the end is already on its way.
      if (this.#overflowed) return;
      this.#stdinOpen = false;
      this.#queue = [];
      this.#unwritten = 0;
      const reason = error instanceof Error ? error.message : String(error);
      this.#sink?.end({ kind: "write_failed", message: reason });
      return;
    } finally {
      this.#writing = false;
    }
    if (this.#closeRequested) this.#closeWriter();
  }

  /**
   * Text as bytes, in the kept buffer when it fits there: a fresh buffer
   * per write cost more than encoding into a kept one (measured: 1.7 µs to
   * encode a 300-byte request into a fresh buffer, 0.3 µs into a kept one).
   */
  #encode(chunk: string | Uint8Array): Uint8Array {
    if (typeof chunk !== "string") return chunk;
    if (chunk.length * 3 > WRITE_BUFFER_BYTES) return encodeUtf8(chunk);
    if (this.#out.length === 0) this.#out = new Uint8Array(WRITE_BUFFER_BYTES);
    return this.#out.subarray(0, encoder.encodeInto(chunk, this.#out).written);
  }

  /**
   * The server left more than {@linkcode MAX_UNREAD_STDIN_BYTES} unread: what
   * waits is dropped, the write under way aborted, and the channel ends, on
   * a microtask, as a failed write does (never inside the write that found it).
   */
  #unread(): void {
    this.#overflowed = true;
    this.#stdinOpen = false;
    this.#queue = [];
    this.#unwritten = 0;
    this.#writer?.abort().catch(() => {});
    queueMicrotask(() =>
      this.#sink?.end({
        kind: "write_failed",
        message: "it stopped reading its stdin: more than MAX_UNREAD_STDIN_BYTES " +
          `(${MAX_UNREAD_STDIN_BYTES}) of what was written to it waits unread; a server must ` +
          "keep reading its input while it asks or is asked",
      })
    );
  }

  /** Closes stdin once queued writes are out. */
  closeStdin(): void {
    if (this.#closeRequested) return;
    this.#closeRequested = true;
    if (!this.#writing) this.#closeWriter();
  }

  #closeWriter(): void {
    if (!this.#stdinOpen) return;
    this.#stdinOpen = false;
    this.#writer?.close().catch(() => {});
  }

  /** Signals the group, unless the exit has been seen. */
  signal(signal: GroupSignal): void {
    const child = this.#child;
    if (child === undefined || this.#exited) return;
    this.#options.group.signal(child.pid, signal);
  }

  /** Checks the group after the exit. */
  drain(deadlineMs: number): Promise<Drain> {
    const child = this.#child;
    if (child === undefined || !this.#exited) return Promise.resolve("unknown");
    return this.#options.group.drain(child.pid, deadlineMs);
  }

  /**
   * Releases the pipes. Output already written is read for at most
   * {@linkcode DISPOSE_GRACE_MS} first; a descendant that survived may hold
   * stdout or stderr open for ever, so the readers are then cancelled.
   */
  async dispose(): Promise<void> {
    // A writer closed after its last write has nothing left to abort; one
    // still open or stuck in a write to a full pipe is aborted.
    if (this.#stdinOpen || this.#writing) this.#writer?.abort().catch(() => {});
    this.#stdinOpen = false;
    this.#queue = [];
    this.#unwritten = 0;
    if (!this.#stdoutEnded || !this.#stderrEnded) {
      const clock = this.#options.clock ?? systemClock;
      let timer: TimerHandle | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = clock.setTimer(DISPOSE_GRACE_MS, resolve);
      });
      await Promise.race([Promise.all([this.#stdoutDone, this.#stderrDone]), grace]);
      if (timer !== undefined) clock.clearTimer(timer);
      if (!this.#stdoutEnded) this.#stdout?.cancel().catch(() => {});
      if (!this.#stderrEnded) this.#stderr?.cancel().catch(() => {});
    }
    await Promise.all([this.#stdoutDone, this.#stderrDone]);
    this.#flushForward(true);
  }

  /** The kept tail of stderr. */
  stderrTail(): string {
    return this.#tail.text();
  }

  /**
   * Reads stdout into one kept buffer, handed to the sink for the length of
   * its call (the sink copies what it keeps): a fresh 64 KiB buffer per read
   * cost 13 µs, more than the rest of reading a short answer.
   */
  async #readStdout(reader: ReadableStreamBYOBReader, sink: TransportSink): Promise<void> {
    let buffer = new ArrayBuffer(READ_BUFFER_BYTES);
    try {
      for (;;) {
        const { done, value } = await reader.read(new Uint8Array(buffer));
        if (done || value === undefined) break;
        sink.bytes(value);
        buffer = value.buffer as ArrayBuffer;
      }
      this.#stdoutEnded = true;
      sink.end({ kind: "stdout_closed", message: "end of output" });
    } catch (error) {
      this.#stdoutEnded = true;
      const reason = error instanceof Error ? error.message : String(error);
      sink.end({ kind: "stdout_closed", message: `reading failed: ${reason}` });
    }
  }

  async #readStderr(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#tail.append(value);
        this.#options.onStderr?.(value);
        if (this.#options.forwardStderr === true) this.#forward(value);
      }
    } catch {
      // Cancelled by dispose, or the pipe broke: the tail keeps what came.
    }
    this.#stderrEnded = true;
    this.#flushForward(true);
  }

  #forward(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      this.#forwardHeld.push(chunk.subarray(start, end + 1));
      this.#forwardHeldBytes += end + 1 - start;
      this.#flushForward(false);
      start = end + 1;
    }
    if (start < chunk.length) {
      this.#forwardHeld.push(chunk.slice(start));
      this.#forwardHeldBytes += chunk.length - start;
      if (this.#forwardHeldBytes > FORWARD_LINE_BYTES) this.#flushForward(true);
    }
  }

  #flushForward(partial: boolean): void {
    if (this.#forwardHeldBytes === 0) return;
    const bytes = new Uint8Array(this.#forwardHeldBytes);
    let offset = 0;
    for (const part of this.#forwardHeld) {
      bytes.set(part, offset);
      offset += part.length;
    }
    this.#forwardHeld = [];
    this.#forwardHeldBytes = 0;
    // The server's text reaches a terminal: printable only, so that neither a
    // `\r` (posing as another server's line) nor an escape sequence (a title,
    // the clipboard) acts on it. The newline is ours.
    const decoded = lenient.decode(bytes);
    const text = partial ? decoded : decoded.replace(/\r?\n$/, "");
    const line = encoder.encode(`[${this.#options.name}] ${printable(text)}\n`);
    try {
      writeAll(line);
    } catch {
      // The harness's stderr is gone; the tail still has everything.
    }
  }
}

/** What is queued, each run of adjacent text joined into one string, empty bytes left out. */
function coalesce(queued: ReadonlyArray<string | Uint8Array>): Array<string | Uint8Array> {
  if (queued.length === 1 && typeof queued[0] === "string") return [queued[0]];
  const out: Array<string | Uint8Array> = [];
  let text: string[] = [];
  for (const item of queued) {
    if (typeof item === "string") {
      text.push(item);
      continue;
    }
    if (text.length > 0) out.push(text.join(""));
    text = [];
    if (item.length > 0) out.push(item);
  }
  if (text.length > 0) out.push(text.join(""));
  return out;
}

function writeAll(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stderr.writeSync(bytes.subarray(offset));
}
