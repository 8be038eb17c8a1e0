// Private to client/: what a generation shares with its client, across
// the generations of one client: its spec, its stderr tail, its history,
// its sign-in, its handlers, and what it hears of each generation's life.

import type { LogLevel } from "../codec/server_requests.ts";
import type { Notice } from "./thread/notices.ts";
import type { ClientError } from "./thread/outcomes.ts";
import type { ByteTail } from "./transport/stdio/tail.ts";
import type { ServerSpec } from "../settings/mod.ts";
import type { SignIn } from "./_sign_in.ts";
import type { ServerAnswers } from "./_answers.ts";
import type { ServedRequests } from "./thread/asked.ts";
import type { WorkerPermissions } from "./permissions.ts";
import type { Generations } from "./supervisor.ts";

/** What a generation shares with its client. */
export type GenerationHost = {
  spec: ServerSpec;
  permissions: WorkerPermissions;
  retirementTimeoutMs: number;
  /** The server's stderr tail, kept across generations. */
  tail: ByteTail;
  /** The record of every generation. */
  history: Generations;
  /** A ready generation died. */
  died(death: ClientError): void;
  /** The generation became ready. */
  ready(): void;
  /** What a call is answered while the client is not ready. */
  unavailable(base: ClientError): ClientError;
  /** A remote server's sign-in, kept across generations; none for a server that signs in with none. */
  signIn: SignIn | undefined;
  /** The server said its tools changed. */
  toolsChanged(): void;
  /** The least level of log messages asked of the server, when one is. */
  logLevel: LogLevel | undefined;
  /** The server told a notice (a log message, a resource's update, a list's change). */
  notice(notice: Notice): void;
  /** What the server's requests are answered with, and so the capabilities declared. */
  served: ServedRequests;
  /** The answers to the server's requests, by the harness's handlers. */
  answers: ServerAnswers;
};
