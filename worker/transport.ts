/**
 * The seam the client state machine is written against; its in-process
 * implementation, for tests, is `channel_transport.ts`.
 *
 * A transport carries bytes both ways and reports, separately, that the
 * channel broke (`end`) and that the server really exited (`exit`): a server
 * whose descendants hold its stdout open has still exited, and a server that
 * closed its stdout may still be running. Signals go to the server's whole
 * process group and are refused once its exit has been seen, because pids are
 * recycled.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import type { Drain, ExitStatus, GroupSignal, RemoteEvidence } from "../thread/evidence.ts";
import type { StartFailure } from "../thread/outcomes.ts";

export type { Drain, ExitStatus, GroupSignal };

/** Why the channel to a server broke. */
export type ChannelEnd =
  | { kind: "stdout_closed"; message: string }
  | { kind: "write_failed"; message: string }
  /** A remote server could not be reached, refused the client, or broke the wire. */
  | { kind: "http_failed"; message: string };

/** Where a transport delivers what happens; set once by `open`. */
export interface TransportSink {
  /** A chunk of the server's stdout. The chunk may be reused after the call. */
  bytes(chunk: Uint8Array): void;
  /** The channel broke; no more bytes will be delivered or written. */
  end(cause: ChannelEnd): void;
  /** The server's real exit status was observed. Delivered at most once. */
  exit(status: ExitStatus): void;
}

/** One way of running a server. */
export interface Transport {
  /** Starts the server; `sink` receives everything from then on. */
  open(sink: TransportSink): Promise<Result<{ pid: number | null }, { message: string }>>;
  /**
   * Queues text or UTF-8 bytes for the server's stdin, written in the order
   * queued. What one synchronous run of writes queues ends with a complete
   * line: a line may be queued in parts (a long request's parameters travel
   * as bytes between its head and tail), never left unfinished.
   */
  write(data: string | Uint8Array): void;
  /** Closes the server's stdin (its documented shutdown request). */
  closeStdin(): void;
  /** Signals the process group; does nothing once the exit has been seen. */
  signal(signal: GroupSignal): void;
  /**
   * After the exit: checks the group for survivors, kills those found, and
   * tells whether it ended empty. Resolves by `deadlineMs` from now at most
   * (as `false` if survivors remain then).
   */
  drain(deadlineMs: number): Promise<Drain>;
  /**
   * Releases what is left (pipes, readers) once the server is retired,
   * letting output already written be read first, briefly.
   */
  dispose(): Promise<void>;
  /** The kept tail of the server's stderr, decoded leniently. */
  stderrTail(): string;
  /**
   * Told when request `id` needs nothing more (answered, given up, or its
   * client died): a transport with a stream per request closes it.
   */
  done?(id: number): void;
  /**
   * Present on a transport with no process (a remote server): retirement
   * ends its session this way instead of closing stdin and signalling, and
   * the evidence says what was done.
   */
  release?(deadlineMs: number): Promise<RemoteEvidence>;
  /**
   * The start failure a transport met that no answer can explain (a remote
   * server unreachable, refusing the client's credentials, or breaking the
   * wire): a failed start reports it instead of what the start was asking.
   */
  refused?(): StartFailure | undefined;
}
