/**
 * The seam the client state machine is written against: a transport carries
 * bytes and an end. Its in-process implementation, for tests, is
 * `channel_transport.ts`.
 *
 * A transport writes bytes to the server, delivers what the server writes,
 * and reports, separately, that the channel broke (`end`) and that the server
 * really exited (`exit`): a server whose descendants hold its stdout open has
 * still exited, and a server that closed its stdout may still be running.
 *
 * What only one kind of server has is a capability of its own, the
 * transport's {@linkcode ServerControl}: a child process has
 * {@linkcode ProcessControl} (its pid, stdin close, its group's signals, the
 * drain check, the tail of its stderr), a remote server
 * {@linkcode SessionControl} (the release of its session). The retirement
 * takes the stopping strategy that fits (`retirement.ts`).
 *
 * @module
 */

import type { Result } from "../../codec/result.ts";
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
  /** A chunk of what the server wrote. The chunk may be reused after the call. */
  bytes(chunk: Uint8Array): void;
  /** The channel broke; no more bytes will be delivered or written. */
  end(cause: ChannelEnd): void;
  /** The server's real exit status was observed. Delivered at most once. */
  exit(status: ExitStatus): void;
  /**
   * The answer to request `id` was lost with its stream, and the request is
   * to be sent again as a new one: returns the id it goes under (its caller
   * still waits for it, as for the first), or `undefined` when nothing waits
   * for it any more.
   */
  reissue?(id: number): number | undefined;
  /**
   * The server forgot its session and a new one was opened: what the old
   * one held is to be asked for again (a legacy HTTP session's 404).
   */
  renewed?(): void;
}

/** One way of reaching a server: bytes both ways, and an end. */
export interface Transport {
  /** Starts the server; `sink` receives everything from then on. */
  open(sink: TransportSink): Promise<Result<void, { message: string }>>;
  /**
   * Queues text or UTF-8 bytes for the server, written in the order queued.
   * What one synchronous run of writes queues ends with a complete line: a
   * line may be queued in parts (a long request's parameters travel as bytes
   * between its head and tail), never left unfinished.
   */
  write(data: string | Uint8Array): void;
  /**
   * Told when request `id` needs nothing more (answered, given up, or its
   * client died): a transport with a stream per request closes it.
   */
  done?(id: number): void;
  /**
   * Releases what is left (pipes, readers, requests) once the server is
   * retired, letting output already written be read first, briefly.
   */
  dispose(): Promise<void>;
  /** What controls the server behind the transport, and so how it is stopped. */
  readonly control: ServerControl;
}

/** The capability a transport has over its server: a process's, or a session's. */
export type ServerControl =
  | { kind: "process"; process: ProcessControl }
  | { kind: "session"; session: SessionControl };

/** What a transport can do to a server that is a child process. */
export interface ProcessControl {
  /** The child's pid (also its process group's id) once spawned; `null` before. */
  readonly pid: number | null;
  /** Closes the child's stdin (its documented request to end). */
  closeStdin(): void;
  /** Signals the process group; does nothing once the exit has been seen. */
  signal(signal: GroupSignal): void;
  /**
   * After the exit: checks the group for survivors, kills those found, and
   * tells whether it ended empty. Resolves by `deadlineMs` from now at most
   * (as `false` if survivors remain then).
   */
  drain(deadlineMs: number): Promise<Drain>;
  /** The kept tail of the child's stderr, decoded leniently. */
  stderrTail(): string;
}

/** What a transport can do to a server behind a session (a remote server). */
export interface SessionControl {
  /** Ends the session within `deadlineMs`; says what was done, never claiming an exit. */
  release(deadlineMs: number): Promise<RemoteEvidence>;
  /**
   * The start failure the transport met that no answer can explain (the
   * server unreachable, refusing the client's credentials, or breaking the
   * wire): a failed start reports it instead of what the start was asking.
   */
  refused(): StartFailure | undefined;
  /** The session's id, when the server gave one (a legacy Streamable HTTP session's `Mcp-Session-Id`). */
  sessionId?(): string | undefined;
}

/** The kept tail of the server's stderr: a process's, or none. */
export function stderrTailOf(control: ServerControl): string {
  return control.kind === "process" ? control.process.stderrTail() : "";
}
