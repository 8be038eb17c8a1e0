/**
 * The message that starts a client's worker, sent once and first: what to
 * run or reach, its deadlines, its era, what it answers of a server's
 * requests, and the rings batches cross. Its decoder reads every field
 * defensively; `to_worker.ts` routes it with the main thread's other
 * messages.
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";
import { isSupportedVersion, type SupportedVersion } from "../../codec/protocol.ts";
import { isLogLevel, type LogLevel } from "../../codec/server_requests.ts";
import { type EraMode, isEraMode } from "../../settings/era.ts";
import { isRingMemory, type RingMemory } from "./ring.ts";
import { type Fields, isDuration, isRecord, isString, isStringRecord } from "./guards.ts";
import { isServedRequests, type ServedRequests } from "./asked.ts";

/** Everything a worker needs to start its server: sent once, first. */
export type StartMessage = {
  kind: "start";
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  connectTimeoutMs: number;
  retirementTimeoutMs: number;
  forwardStderr: boolean;
  /** How the era is chosen. */
  era: EraMode;
  /** The versions offered, or `null` for all. */
  versions: SupportedVersion[] | null;
  /**
   * A remote server's endpoint and the headers every request carries; the
   * worker then owns an HTTP session instead of a child, and `command`,
   * `args`, `env` and `cwd` are unused.
   */
  remote: RemoteTarget | null;
  /** What the server's requests are answered with, and so the capabilities declared. */
  served: ServedRequests;
  /** The shared memory of the rings batches cross (`ring.ts`). */
  rings: StartRings;
  /** The least level of log messages asked of the server; none asked when absent. */
  logLevel?: LogLevel;
  /**
   * The trace context of the start's `initialize` span (`traceparent`, ...),
   * written into the `_meta` of the start's requests; absent when not tracing.
   */
  traceContext?: Record<string, string>;
};

/** The two rings between a worker and the main thread: requests in, answers out. */
export type StartRings = { requests: RingMemory; answers: RingMemory };

/**
 * Where a remote server is, and what every request to it carries; `signIn`
 * when the main thread holds a sign-in for it, which the worker asks for the
 * credentials of its requests (absent: none).
 */
export type RemoteTarget = { url: string; headers: Record<string, string>; signIn?: boolean };

/** Encodes a start. */
export function encodeStart(start: Omit<StartMessage, "kind">): StartMessage {
  return { ...start, kind: "start" };
}

/** Decodes a start, or says which field is wrong. */
export function decodeStart(data: Fields): Result<StartMessage, string> {
  const { name, command, args, env, cwd } = data;
  if (!isString(name) || !isString(command)) return err("no name or command");
  if (!Array.isArray(args) || !args.every(isString)) return err("args are not strings");
  if (!isStringRecord(env)) return err("env is not a string record");
  if (cwd !== null && !isString(cwd)) return err("cwd is not a string");
  const { connectTimeoutMs, retirementTimeoutMs, forwardStderr } = data;
  if (!isDuration(connectTimeoutMs)) return err("bad deadline");
  if (!isDuration(retirementTimeoutMs)) return err("bad retirement deadline");
  if (typeof forwardStderr !== "boolean") return err("forwardStderr is not a boolean");
  const { era, versions } = data;
  if (!isEraMode(era)) return err("unknown era");
  if (
    versions !== null &&
    (!Array.isArray(versions) || !versions.every((v) => isString(v) && isSupportedVersion(v)))
  ) {
    return err("versions are not supported versions");
  }
  const remote = decodeRemote(data.remote);
  if (remote === undefined) return err("remote is not a URL with string headers");
  const logLevel = data.logLevel;
  if (logLevel !== undefined && !isLogLevel(logLevel)) return err("logLevel is not a log level");
  const rings = data.rings;
  if (!isRecord(rings) || !isRingMemory(rings.requests) || !isRingMemory(rings.answers)) {
    return err("rings are not two rings' shared memory");
  }
  const served = data.served;
  if (!isServedRequests(served)) return err("served is not what a client serves");
  const traceContext = data.traceContext;
  if (traceContext !== undefined && !isStringRecord(traceContext)) {
    return err("traceContext is not a string record");
  }
  return ok({
    ...(traceContext === undefined ? {} : { traceContext: { ...traceContext } }),
    kind: "start",
    name,
    command,
    args: [...args],
    env: { ...env },
    cwd,
    connectTimeoutMs,
    retirementTimeoutMs,
    forwardStderr,
    era,
    versions: versions === null ? null : [...versions] as SupportedVersion[],
    remote,
    served: {
      elicit: served.elicit,
      sample: served.sample,
      roots: served.roots === null ? null : served.roots.map((root) => ({ ...root })),
    },
    rings: { requests: rings.requests, answers: rings.answers },
    ...(logLevel === undefined ? {} : { logLevel }),
  });
}

function decodeRemote(value: unknown): RemoteTarget | null | undefined {
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  const { url, headers, signIn } = value;
  if (!isString(url) || !isStringRecord(headers)) return undefined;
  if (signIn !== undefined && typeof signIn !== "boolean") return undefined;
  return signIn === true
    ? { url, headers: { ...headers }, signIn }
    : { url, headers: { ...headers } };
}
