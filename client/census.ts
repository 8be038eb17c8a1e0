/**
 * The census: every MCP client of a harness, published before any server
 * runs, so that whatever happens during start-up, the harness holds a
 * handle on every process it may have spawned and can retire all of them.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import { moduleSegment } from "../codegen/names.ts";
import type { RetirementError, RetirementEvidence, ServerInfo, StartError } from "./errors.ts";
import { Client } from "./client.ts";
import { isSupportedVersion, SUPPORTED_VERSIONS } from "../codec/protocol.ts";
import { eraPlan } from "../spec/era.ts";

const ERA_MODES: ReadonlySet<string> = new Set(["auto", "modern", "legacy"]);
import { hasWorkerOptions, type WorkerPermissions } from "./_worker_launch.ts";
import {
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  type RemoteServerSpec,
  type ServerSpec,
  type StdioServerSpec,
} from "../spec/mod.ts";

/** Options of {@linkcode Census.prepare}. */
export type CensusOptions = {
  /**
   * How client workers run. `"auto"` (the default) grants least privilege
   * when Deno was started with `--unstable-worker-options` on its command
   * line and inherits otherwise; `"least"` insists (only when the flag or
   * the `"worker-options"` unstable feature of deno.json is on: without it
   * Deno exits the process); `"inherit"` never restricts.
   */
  permissions?: "auto" | WorkerPermissions;
  /** Default deadline of each client's retirement, in milliseconds. */
  retirementTimeoutMs?: number;
};

/** Every client's retirement outcome, and whether all were confirmed. */
export type RetirementReport = {
  /** True only when every client returned evidence. */
  confirmed: boolean;
  /** Each client's outcome, by name. */
  clients: ReadonlyMap<string, Result<RetirementEvidence, RetirementError>>;
};

const STDERR_MODES: ReadonlySet<string> = new Set(["tail", "forward"]);

const ENV_NAME_RULE = "empty or holds '=' or NUL, which no environment variable name can";

// A key with "=" would be split by the child ("A=B" becomes "A" holding "B=..."),
// and one with NUL cut short: neither names the variable the catalog meant.
function isEnvName(name: string): boolean {
  return name !== "" && !name.includes("=") && !name.includes("\0");
}

function checkStdio(spec: StdioServerSpec, named: string): void {
  if (typeof spec.command !== "string" || spec.command.length === 0) {
    throw new TypeError(`${named}: its command is not a non-empty string`);
  }
  if (!Array.isArray(spec.args) || !spec.args.every((arg) => typeof arg === "string")) {
    throw new TypeError(`${named}: its args are not all strings`);
  }
  if (
    typeof spec.env !== "object" || spec.env === null ||
    !Object.values(spec.env).every((value) => typeof value === "string")
  ) {
    throw new TypeError(`${named}: its env is not a record of strings`);
  }
  for (const [key, value] of Object.entries(spec.env)) {
    if (!isEnvName(key)) {
      throw new TypeError(`${named}: its env key ${quote(key)} is ${ENV_NAME_RULE}`);
    }
    if (value.includes("\0")) {
      throw new TypeError(
        `${named}: its env value of ${quote(key)} holds NUL, which no environment can carry`,
      );
    }
  }
  if (!Array.isArray(spec.inheritEnv) || !spec.inheritEnv.every((n) => typeof n === "string")) {
    throw new TypeError(`${named}: its inheritEnv is not a list of names`);
  }
  for (const key of spec.inheritEnv) {
    if (!isEnvName(key)) {
      throw new TypeError(`${named}: its inheritEnv name ${quote(key)} is ${ENV_NAME_RULE}`);
    }
  }
  if (spec.cwd !== undefined && typeof spec.cwd !== "string") {
    throw new TypeError(`${named}: its cwd is not a string`);
  }
  if (!STDERR_MODES.has(spec.stderr)) {
    throw new TypeError(
      `${named}: its stderr mode ${JSON.stringify(spec.stderr)} is not "tail" or "forward"`,
    );
  }
}

function checkRemote(spec: RemoteServerSpec, named: string): void {
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new TypeError(`${named}: its url ${quote(String(spec.url))} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`${named}: its url ${quote(spec.url)} is not http or https`);
  }
  if (
    typeof spec.headers !== "object" || spec.headers === null ||
    !Object.values(spec.headers).every((value) => typeof value === "string")
  ) {
    throw new TypeError(`${named}: its headers are not a record of strings`);
  }
  for (const [name, value] of Object.entries(spec.headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      throw new TypeError(
        `${named}: its header ${quote(name)} is not a valid HTTP header name and value`,
      );
    }
  }
}

function checkSpec(spec: ServerSpec, index: number): void {
  const where = `Cannot prepare server ${index}`;
  if (typeof spec !== "object" || spec === null) {
    throw new TypeError(`${where}: it is not an object`);
  }
  if (typeof spec.name !== "string" || spec.name.length === 0) {
    throw new TypeError(
      `${where}: its name ${JSON.stringify(spec.name)} is not a non-empty string`,
    );
  }
  const segment = moduleSegment(spec.name);
  if (!segment.ok) {
    // The name is the generated module's segment: refused before anything spawns.
    throw new TypeError(`${where}: ${segment.error.message}`);
  }
  const named = `Cannot prepare server "${spec.name}"`;
  if (spec.url !== undefined) checkRemote(spec, named);
  else checkStdio(spec, named);
  if (spec.era !== undefined && !ERA_MODES.has(spec.era)) {
    throw new TypeError(
      `${named}: its era ${JSON.stringify(spec.era)} is not "auto", "modern" or "legacy"`,
    );
  }
  if (
    spec.versions !== undefined &&
    (!Array.isArray(spec.versions) ||
      !spec.versions.every((v) => typeof v === "string" && isSupportedVersion(v)))
  ) {
    throw new RangeError(
      `${named}: its versions ${JSON.stringify(spec.versions)} are not all among ` +
        `${SUPPORTED_VERSIONS.join(", ")}`,
    );
  }
  // A mode left with nothing to offer is refused here, before any spawn.
  eraPlan(spec.era, spec.versions);
  for (const key of ["connectTimeoutMs", "callTimeoutMs"] as const) {
    const value = spec[key];
    if (
      value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value > 0)
    ) {
      throw new RangeError(`${named}: its ${key} ${String(value)} is not a positive number of ms`);
    }
  }
}

/**
 * Every client of a harness, one worker per connected server.
 *
 * @example Prepare, connect, retire
 * ```ts ignore
 * import { Census } from "@loom/mcp";
 * const census = Census.prepare([{
 *   name: "echo",
 *   command: Deno.execPath(),
 *   args: ["run", "tests/fixtures/echo_server.ts"],
 *   env: {},
 *   inheritEnv: [],
 *   stderr: "tail",
 * }]);
 * const started = await census.connectAll();
 * console.log(started.get("echo")?.ok);
 * const report = await census.retire();
 * console.log(report.confirmed);
 * ```
 */
export class Census {
  /** Every client, parked until connected, by name, in the order given. */
  readonly clients: ReadonlyMap<string, Client>;
  /** Whether the clients' workers run with least privilege or inherit. */
  readonly permissions: WorkerPermissions;
  #retirementTimeoutMs: number;

  private constructor(
    clients: ReadonlyMap<string, Client>,
    permissions: WorkerPermissions,
    retirementTimeoutMs: number,
  ) {
    this.clients = clients;
    this.permissions = permissions;
    this.#retirementTimeoutMs = retirementTimeoutMs;
  }

  /**
   * Records a parked client per spec (no worker, no process yet). Throws
   * `TypeError` on a malformed spec or a duplicate name.
   */
  static prepare(specs: readonly ServerSpec[], options: CensusOptions = {}): Census {
    if (!Array.isArray(specs)) {
      throw new TypeError("Cannot prepare a census: specs is not an array");
    }
    const mode = options.permissions ?? "auto";
    if (mode !== "auto" && mode !== "least" && mode !== "inherit") {
      throw new TypeError(
        `Cannot prepare a census: permissions ${JSON.stringify(mode)} is unknown`,
      );
    }
    const permissions: WorkerPermissions = mode === "auto"
      ? (hasWorkerOptions() ? "least" : "inherit")
      : mode;
    const retirementTimeoutMs = options.retirementTimeoutMs ?? DEFAULT_RETIREMENT_TIMEOUT_MS;
    const clients = new Map<string, Client>();
    specs.forEach((spec, index) => {
      checkSpec(spec, index);
      if (clients.has(spec.name)) {
        throw new TypeError(
          `Cannot prepare a census: the name ${JSON.stringify(spec.name)} is used twice`,
        );
      }
      clients.set(spec.name, new Client(spec, { permissions, retirementTimeoutMs }));
    });
    return new Census(clients, permissions, retirementTimeoutMs);
  }

  /** Connects every parked client in parallel; a slow start delays no other. */
  async connectAll(): Promise<ReadonlyMap<string, Result<ServerInfo, StartError>>> {
    const entries = [...this.clients];
    const outcomes = await Promise.all(entries.map(([, client]) => client.connect()));
    return new Map(
      entries.map(([name], index) => [name, outcomes[index] as Result<ServerInfo, StartError>]),
    );
  }

  /** Retires every client in parallel, each with its evidence or its error. */
  async retire(options: { timeoutMs?: number } = {}): Promise<RetirementReport> {
    const timeoutMs = options.timeoutMs ?? this.#retirementTimeoutMs;
    const entries = [...this.clients];
    const outcomes = await Promise.all(entries.map(([, client]) => client.retire({ timeoutMs })));
    return {
      confirmed: outcomes.every((outcome) => outcome.ok),
      clients: new Map(
        entries.map(([name], index) => [
          name,
          outcomes[index] as Result<RetirementEvidence, RetirementError>,
        ]),
      ),
    };
  }
}
