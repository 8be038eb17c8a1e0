/**
 * The in-process implementation of the {@linkcode Transport} seam: the
 * client talks to a scripted {@linkcode ChannelPeer} instead of a process, so
 * every client behaviour is testable without one. It stands for a child
 * process, and has a process's control ({@linkcode ProcessControl}).
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";
import type { Drain, ExitStatus, GroupSignal } from "../thread/evidence.ts";
import type { ProcessControl, ServerControl, Transport, TransportSink } from "./transport.ts";

/** What a {@linkcode ChannelPeer} does when the client acts on it. */
export type PeerBehaviour = {
  /** Called with each line the client writes. */
  line?: (line: string, peer: ChannelPeer) => void;
  /** Called when the client closes stdin. */
  stdinClosed?: (peer: ChannelPeer) => void;
  /** Called for each signal; the default exits on either signal. */
  signal?: (signal: GroupSignal, peer: ChannelPeer) => void;
};

/** Options of a {@linkcode ChannelTransport}. */
export type ChannelOptions = {
  /** The pid the transport has once open; `null` by default. */
  pid?: number | null;
  /** When set, `open` fails with this message. */
  openFailure?: string;
  /** What `drain` answers; `true` by default. */
  drain?: Drain;
};

const encoder = new TextEncoder();

/**
 * The far end of a {@linkcode ChannelTransport}: a scripted server in the
 * same thread. Everything crosses on microtasks, never synchronously, as it
 * would through a pipe.
 *
 * @example Answer every line with garbage
 * ```ts
 * import { ChannelTransport } from "./channel_transport.ts";
 * const transport = new ChannelTransport({
 *   line: (_line, peer) => peer.send("not json\n"),
 * });
 * console.log(transport.peer.written.length); // 0
 * ```
 */
export class ChannelPeer {
  /** Every line the client wrote, in order. */
  readonly written: string[] = [];
  /** Signals received, in order. */
  readonly signals: GroupSignal[] = [];
  /** Whether the client closed stdin. */
  stdinClosed = false;
  /** The exit status, once the peer exited. */
  exitStatus: ExitStatus | undefined;
  /** When true, the client's writes fail. */
  failWrites = false;
  /** Whether the client has been told of the exit. */
  exitDelivered = false;
  #behaviour: PeerBehaviour;
  #sink: TransportSink | undefined;
  #stdoutOpen = true;
  #stderr: string[] = [];
  #partial = "";
  #decoder = new TextDecoder();

  constructor(behaviour: PeerBehaviour) {
    this.#behaviour = behaviour;
  }

  /** Sends text or bytes to the client's side, as stdout. */
  send(data: string | Uint8Array): void {
    const bytes = typeof data === "string" ? encoder.encode(data) : data.slice();
    queueMicrotask(() => {
      if (this.#stdoutOpen) this.#sink?.bytes(bytes);
    });
  }

  /** Appends to the stderr tail the client reports. */
  stderr(text: string): void {
    this.#stderr.push(text);
  }

  /** Closes stdout without exiting. */
  closeStdout(): void {
    queueMicrotask(() => this.#endStdout());
  }

  /** Exits: stdout closes, then the exit status is delivered. */
  exit(code: number, signal: string | null = null): void {
    if (this.exitStatus !== undefined) return;
    this.exitStatus = { code, signal };
    const status = this.exitStatus;
    queueMicrotask(() => {
      this.#endStdout();
      this.exitDelivered = true;
      this.#sink?.exit(status);
    });
  }

  #endStdout(): void {
    if (!this.#stdoutOpen) return;
    this.#stdoutOpen = false;
    this.#sink?.end({ kind: "stdout_closed", message: "The peer closed its stdout" });
  }

  /** @internal Called by the transport. */
  attach(sink: TransportSink): void {
    this.#sink = sink;
  }

  /** @internal Called by the transport. */
  receive(data: string | Uint8Array): void {
    if (this.exitStatus !== undefined || this.failWrites || this.stdinClosed) {
      const reason = this.failWrites ? "the peer refuses writes" : "the peer's stdin is closed";
      queueMicrotask(() => this.#sink?.end({ kind: "write_failed", message: reason }));
      return;
    }
    const text = this.#partial +
      (typeof data === "string" ? data : this.#decoder.decode(data, { stream: true }));
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.length === 0) continue;
      this.written.push(line);
      const handler = this.#behaviour.line;
      if (handler !== undefined) queueMicrotask(() => handler(line, this));
    }
  }

  /** @internal Called by the transport. */
  onStdinClosed(): void {
    if (this.stdinClosed) return;
    this.stdinClosed = true;
    const handler = this.#behaviour.stdinClosed;
    if (handler !== undefined) queueMicrotask(() => handler(this));
  }

  /** @internal Called by the transport. */
  onSignal(signal: GroupSignal): void {
    this.signals.push(signal);
    const handler = this.#behaviour.signal ??
      ((s: GroupSignal, peer: ChannelPeer) => peer.exit(128 + (s === "SIGKILL" ? 9 : 15), s));
    queueMicrotask(() => handler(signal, this));
  }

  /** @internal The stderr text written so far. */
  stderrText(): string {
    return this.#stderr.join("");
  }
}

/**
 * An in-process transport: the client talks to a {@linkcode ChannelPeer}
 * instead of a process, so every client behaviour is testable without one.
 *
 * @example Open a channel with a silent peer
 * ```ts
 * import { ChannelTransport } from "./channel_transport.ts";
 * const transport = new ChannelTransport({}, { pid: 7 });
 * const opened = await transport.open({ bytes() {}, end() {}, exit() {} });
 * console.log(opened.ok, transport.pid); // true 7
 * ```
 */
export class ChannelTransport implements Transport, ProcessControl {
  /** The scripted far end. */
  readonly peer: ChannelPeer;
  /** A child process's control: this transport's own. */
  readonly control: ServerControl = { kind: "process", process: this };
  #options: ChannelOptions;
  #opened = false;
  #attached = false;
  /** Signals sent after the exit was seen (must stay 0). */
  signalsAfterExit = 0;
  /** Whether `dispose` ran. */
  disposed = false;

  constructor(behaviour: PeerBehaviour, options: ChannelOptions = {}) {
    this.peer = new ChannelPeer(behaviour);
    this.#options = options;
  }

  /** The pid configured, once opened. */
  get pid(): number | null {
    return this.#attached ? this.#options.pid ?? null : null;
  }

  /** Attaches the sink, or fails as configured. */
  open(sink: TransportSink): Promise<Result<void, { message: string }>> {
    if (this.#opened) throw new TypeError("Cannot open a ChannelTransport twice");
    this.#opened = true;
    if (this.#options.openFailure !== undefined) {
      return Promise.resolve(err({ message: this.#options.openFailure }));
    }
    this.peer.attach(sink);
    this.#attached = true;
    return Promise.resolve(ok(undefined));
  }

  /** Hands what is written to the peer, which sees each line once complete. */
  write(data: string | Uint8Array): void {
    this.peer.receive(data);
  }

  /** Tells the peer its stdin closed. */
  closeStdin(): void {
    this.peer.onStdinClosed();
  }

  /** Delivers a signal to the peer, unless it has exited. */
  signal(signal: GroupSignal): void {
    if (this.peer.exitDelivered) {
      this.signalsAfterExit++;
      return;
    }
    if (this.peer.exitStatus !== undefined) return;
    this.peer.onSignal(signal);
  }

  /** Answers as configured. */
  drain(_deadlineMs: number): Promise<Drain> {
    return Promise.resolve(this.#options.drain ?? true);
  }

  /** Marks the transport disposed. */
  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }

  /** The stderr text the peer wrote. */
  stderrTail(): string {
    return this.peer.stderrText();
  }
}
