/**
 * What the main thread sends a client's worker, as plain data with a
 * `kind`, and how the worker reads it, defensively. What the worker sends
 * back is `from_worker.ts`.
 *
 * Requests, the hot path, travel as compact strings (`ticket|timeoutMs|
 * method|params`), several joined by `\n` in one message: a string crosses
 * the boundary far cheaper than an object, and the rendered parameters reach
 * the pipe without being parsed again.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import { isSupportedVersion, type SupportedVersion } from "../codec/protocol.ts";
import { type EraMode, isEraMode } from "../spec/era.ts";
import { isRingMemory, type RingMemory } from "./ring.ts";
import { isCount, isDuration, isRecord, isString, isStringRecord } from "./guards.ts";
import { type Drain, isDrain } from "./evidence.ts";

/** The methods a main thread may ask a worker to run. */
export const REQUEST_METHODS = ["tools/call", "tools/list", "ping"] as const;

/** A method a main thread may ask a worker to run, one of {@linkcode REQUEST_METHODS}. */
export type RequestMethod = (typeof REQUEST_METHODS)[number];

/** One request, decoded in the worker. */
export type WorkerRequest = {
  ticket: number;
  timeoutMs: number;
  method: RequestMethod;
  /** Compact JSON of the params object, as text (`""` for none) or UTF-8 bytes. */
  params: string | Uint8Array;
};

/**
 * Parameters at least this long (in UTF-16 units) cross to the worker as
 * UTF-8 bytes in a transferred buffer, in a `request` message of their own:
 * posting a long string costs a copy on each side (measured: 27 ms to post 8
 * MiB as a string, 0.3 ms as a transferred buffer), and the worker would
 * encode it again before writing.
 */
export const TRANSFER_PARAMS_CHARS = 64 * 1024;

/** A request whose parameters are transferred bytes; see {@linkcode TRANSFER_PARAMS_CHARS}. */
export type BytesRequest = {
  kind: "request";
  ticket: number;
  timeoutMs: number;
  method: RequestMethod;
  params: Uint8Array;
};

/** Everything a worker needs to start its server. */
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
  /** The shared memory of the rings batches cross (`ring.ts`). */
  rings: StartRings;
};

/** The two rings between a worker and the main thread: requests in, answers out. */
export type StartRings = { requests: RingMemory; answers: RingMemory };

/** Where a remote server is, and what every request to it carries. */
export type RemoteTarget = { url: string; headers: Record<string, string> };

/**
 * A message from the main thread other than a batch of requests (those are
 * strings): a start, a request with long parameters, a cancel, a retire, a
 * drain answer.
 */
export type ToWorker =
  | StartMessage
  | BytesRequest
  | { kind: "cancel"; ticket: number; timedOut: boolean }
  | { kind: "malformed"; message: string; cause: "malformed" | "framing" }
  | { kind: "retire"; timeoutMs: number }
  | { kind: "drained"; seq: number; drained: Drain };

// A set for the hot path's one look-up per request.
const METHODS: ReadonlySet<string> = new Set(REQUEST_METHODS);
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/**
 * Renders one request for the worker. `paramsText` must be compact JSON of an
 * object (no raw newline can occur in it) or `""`.
 *
 * @example Render a ping
 * ```ts
 *  * console.log(renderRequest(1, 500, "ping", "")); // 1|500|ping|
 * ```
 */
export function renderRequest(
  ticket: number,
  timeoutMs: number,
  method: RequestMethod,
  paramsText: string,
): string {
  return `${ticket}|${timeoutMs}|${method}|${paramsText}`;
}

/**
 * Decodes a batch of requests; a line that is not one is reported by its
 * index, with the requests before it.
 *
 * @example Decode a batch of two
 * ```ts
 *  * const batch = decodeRequests('1|500|ping|\n2|500|tools/call|{"name":"x","arguments":{}}');
 * console.log(batch.requests.length); // 2
 * ```
 */
export function decodeRequests(
  batch: string,
): { requests: WorkerRequest[]; fault?: string; faultTicket?: number } {
  const requests: WorkerRequest[] = [];
  for (const line of batch.split("\n")) {
    const first = line.indexOf("|");
    const second = line.indexOf("|", first + 1);
    const third = line.indexOf("|", second + 1);
    const ticket = Number(line.slice(0, first));
    const timeoutMs = Number(line.slice(first + 1, second));
    const method = line.slice(second + 1, third);
    const paramsText = line.slice(third + 1);
    const params = paramsText === "" ||
      (paramsText.startsWith("{") && paramsText.endsWith("}"));
    if (
      first <= 0 || second < 0 || third < 0 || !Number.isSafeInteger(ticket) || ticket < 0 ||
      !(timeoutMs >= 0) || !Number.isFinite(timeoutMs) || !METHODS.has(method) || !params
    ) {
      const fault = `Cannot decode request ${requests.length} from the main thread: ` +
        JSON.stringify(line.slice(0, 60));
      return Number.isSafeInteger(ticket)
        ? { requests, fault, faultTicket: ticket }
        : { requests, fault };
    }
    requests.push({ ticket, timeoutMs, method: method as RequestMethod, params: paramsText });
  }
  return { requests };
}

/**
 * Decodes a control message in the worker.
 *
 * @example Decode a retire message
 * ```ts
 *  * console.log(decodeToWorker({ kind: "retire", timeoutMs: 5000 }).ok); // true
 * ```
 */
export function decodeToWorker(data: unknown): Result<ToWorker, string> {
  if (!isRecord(data)) return err("Cannot decode a message to the worker: it is not an object");
  const bad = (what: string) => err(`Cannot decode a "${String(data.kind)}" message: ${what}`);
  switch (data.kind) {
    case "start": {
      const { name, command, args, env, cwd } = data;
      if (!isString(name) || !isString(command)) return bad("no name or command");
      if (!Array.isArray(args) || !args.every(isString)) return bad("args are not strings");
      if (!isStringRecord(env)) return bad("env is not a string record");
      if (cwd !== null && !isString(cwd)) return bad("cwd is not a string");
      const { connectTimeoutMs, retirementTimeoutMs, forwardStderr } = data;
      if (!isDuration(connectTimeoutMs)) return bad("bad deadline");
      if (!isDuration(retirementTimeoutMs)) return bad("bad retirement deadline");
      if (typeof forwardStderr !== "boolean") return bad("forwardStderr is not a boolean");
      const { era, versions } = data;
      if (!isEraMode(era)) return bad("unknown era");
      if (
        versions !== null &&
        (!Array.isArray(versions) || !versions.every((v) => isString(v) && isSupportedVersion(v)))
      ) {
        return bad("versions are not supported versions");
      }
      const remote = readRemote(data.remote);
      if (remote === undefined) return bad("remote is not a URL with string headers");
      const rings = data.rings;
      if (!isRecord(rings) || !isRingMemory(rings.requests) || !isRingMemory(rings.answers)) {
        return bad("rings are not two rings' shared memory");
      }
      return ok({
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
        rings: { requests: rings.requests, answers: rings.answers },
      });
    }
    case "request": {
      const { ticket, timeoutMs, method, params } = data;
      if (!isCount(ticket) || !isDuration(timeoutMs)) return bad("bad ticket or deadline");
      if (!isString(method) || !METHODS.has(method)) return bad("unknown method");
      // Compact JSON of an object: braces at both ends, no raw newline to break the line.
      if (
        !(params instanceof Uint8Array) || params[0] !== OPEN_BRACE ||
        params[params.length - 1] !== CLOSE_BRACE || params.includes(NEWLINE)
      ) {
        return bad("params are not the bytes of one compact JSON object");
      }
      return ok({ kind: "request", ticket, timeoutMs, method: method as RequestMethod, params });
    }
    case "cancel":
      return isCount(data.ticket) && typeof data.timedOut === "boolean"
        ? ok({ kind: "cancel", ticket: data.ticket, timedOut: data.timedOut })
        : bad("bad ticket");
    case "malformed":
      return isString(data.message) && (data.cause === "malformed" || data.cause === "framing")
        ? ok({ kind: "malformed", message: data.message, cause: data.cause })
        : bad("message is not a string or cause unknown");
    case "retire":
      return isDuration(data.timeoutMs)
        ? ok({ kind: "retire", timeoutMs: data.timeoutMs })
        : bad("bad deadline");
    case "drained":
      return isCount(data.seq) && isDrain(data.drained)
        ? ok({ kind: "drained", seq: data.seq, drained: data.drained })
        : bad("bad seq or drain");
    default:
      return bad("unknown kind");
  }
}

function readRemote(value: unknown): RemoteTarget | null | undefined {
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  const { url, headers } = value;
  if (!isString(url) || !isStringRecord(headers)) return undefined;
  return { url, headers: { ...headers } };
}
