// Private to client/: what a client's worker is given: its environment,
// built on the main thread, and its permissions.

import { encodeStart, type StartMessage, type StartRings } from "./thread/to_worker.ts";
import { type ServedRequests, SERVES_NONE } from "./thread/asked.ts";
import {
  CHILD_ENV_DEFAULTS,
  ENV_ALLOWLIST,
  isRemote,
  type ResolvedStdioSpec,
  type ServerSpec,
  withDefaults,
} from "../settings/mod.ts";

import type { WorkerPermissions } from "./permissions.ts";
import type { LogLevel } from "../codec/server_requests.ts";
import type { StartError } from "./thread/outcomes.ts";
import type { StateReport } from "./thread/state.ts";
import { noResource } from "./thread/evidence.ts";

/**
 * The child's whole environment: the defaults, then the allowlist and the
 * spec's `inheritEnv` names where set and readable without a prompt, then
 * the spec's own pairs.
 */
export function childEnv(spec: ResolvedStdioSpec): Record<string, string> {
  const env: Record<string, string> = Object.create(null);
  Object.assign(env, CHILD_ENV_DEFAULTS);
  for (const name of [...ENV_ALLOWLIST, ...spec.inheritEnv]) {
    const value = readEnv(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(spec.env)) env[name] = value;
  return env;
}

function readEnv(name: string): string | undefined {
  try {
    // Query first: reading an ungranted variable would prompt on a terminal.
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * The message that starts a worker: what to run, its deadlines, where stderr
 * goes; for a remote server, whether the main thread holds its sign-in.
 */
export function startMessage(
  given: ServerSpec,
  connectTimeoutMs: number,
  retirementTimeoutMs: number,
  rings: StartRings,
  options: {
    signIn?: boolean;
    logLevel?: LogLevel;
    served?: ServedRequests;
    traceContext?: Record<string, string>;
  } = {},
): StartMessage {
  const signIn = options.signIn ?? false;
  const spec = withDefaults(given);
  const common = {
    rings,
    name: spec.name,
    connectTimeoutMs,
    retirementTimeoutMs,
    era: spec.era ?? "auto",
    versions: spec.versions === undefined ? null : [...spec.versions],
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
    served: options.served ?? SERVES_NONE,
    ...(options.traceContext === undefined ? {} : { traceContext: options.traceContext }),
  };
  if (isRemote(spec)) {
    return encodeStart({
      ...common,
      command: "",
      args: [],
      env: {},
      cwd: null,
      forwardStderr: false,
      remote: signIn
        ? { url: spec.url, headers: { ...spec.headers }, signIn }
        : { url: spec.url, headers: { ...spec.headers } },
    });
  }
  return encodeStart({
    ...common,
    command: spec.command,
    args: [...spec.args],
    env: childEnv(spec),
    cwd: spec.cwd ?? null,
    forwardStderr: spec.stderr === "forward",
    remote: null,
  });
}

/**
 * Whether this process runs with `--unstable-worker-options`. Asking the
 * runtime by constructing a restricted worker is not possible: without the
 * flag Deno 2.9 exits the whole process (code 70) rather than throwing. So
 * the command line is read (Linux `/proc/self/cmdline`, flags before the
 * script only); anything unreadable answers false, the safe side.
 */
export function hasWorkerOptions(): boolean {
  let cmdline: string;
  try {
    cmdline = Deno.readTextFileSync("/proc/self/cmdline");
  } catch {
    return false;
  }
  const args = cmdline.split("\0");
  // args[0] is the runtime, args[1] the subcommand; flags run up to the script.
  for (const arg of args.slice(2)) {
    if (arg === "--") return false;
    if (!arg.startsWith("-")) return false;
    if (arg === "--unstable-worker-options") return true;
  }
  return false;
}

/**
 * The worker's module: `client/worker/entry.ts` bundled into one file, which boots
 * faster than its sixteen modules; resolved beside this one (a file or a
 * remote URL alike).
 */
export function workerUrl(): URL {
  return new URL("../_generated/worker_bundle.js", import.meta.url);
}

/**
 * What a worker is granted under least privilege: running its one command,
 * or, for a remote server, the network to its one host (`host:port`).
 */
export type WorkerGrant = { run: string } | { net: string };

/** The grant a spec's worker needs. */
export function grantOf(spec: ServerSpec): WorkerGrant {
  return isRemote(spec) ? { net: new URL(spec.url).host } : { run: spec.command };
}

/** Starts a client's worker with the given permissions. */
export function createWorker(
  name: string,
  permissions: WorkerPermissions,
  grant: WorkerGrant,
): Worker {
  const url = workerUrl();
  if (permissions === "inherit") return new Worker(url, { type: "module", name });
  const remote = url.protocol === "https:" || url.protocol === "http:";
  const options = {
    type: "module" as const,
    name,
    deno: {
      permissions: {
        // Spawning its one command is all a local server's worker does
        // itself (signals and drain checks are relayed to the main thread);
        // a remote server's worker reaches its one host and nothing else.
        run: "run" in grant ? [grant.run] : false,
        // Module loads are checked against the process's permissions, not
        // the worker's (measured), so a local worker needs no read access.
        read: false,
        write: false,
        net: "net" in grant ? [grant.net] : false,
        env: false,
        sys: false,
        ffi: false,
        import: remote ? [url.host] : false,
      },
    },
  };
  return new Worker(url, options as WorkerOptions);
}

/** A client whose worker could not be made: what it reports, and why its start failed. */
export function noWorker(name: string, error: unknown): { report: StateReport; error: StartError } {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    report: {
      state: "failed",
      death: {
        kind: "unavailable",
        cause: "not_connected",
        message: `Client "${name}" has no worker`,
        stderrTail: "",
      },
      evidence: noResource(),
    },
    error: {
      kind: "transport_failed",
      message: `Cannot start the worker of "${name}": ${reason}`,
      stderrTail: "",
    },
  };
}
