/**
 * The census: every MCP client of a harness, published before any server
 * runs, so that whatever happens during start-up, the harness holds a
 * handle on every process it may have spawned and can retire all of them.
 *
 * @module
 */

import type { Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { RetirementError, RetirementEvidence, ServerInfo, StartError } from "./errors.ts";
import { Client } from "./client.ts";
import { checkSpec, oauthProblem, type SpecProblem } from "../settings/check.ts";
import type { GenerationRecord } from "./supervisor.ts";
import { hasWorkerOptions } from "./_worker_launch.ts";
import type { WorkerPermissions } from "./permissions.ts";
import type { LogOptions } from "./logs.ts";
import { checkLogOptions } from "./_logs.ts";
import {
  DEFAULT_RETIREMENT_TIMEOUT_MS,
  type OAuthSettings,
  type ServerSpec,
} from "../settings/mod.ts";
import { FileTokenStore, type TokenStore } from "../oauth/store.ts";
import type { ServerRequestHandlers } from "./handlers.ts";
import { checkHandlers } from "./_answers.ts";

/** Options of {@linkcode Census.prepare}. */
export type CensusOptions =
  & {
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
    /**
     * The sign-in settings of every remote server whose spec has no `oauth` of
     * its own (each server gets a sign-in of its own, with these settings);
     * none when absent.
     */
    oauth?: OAuthSettings;
    /**
     * Where the sign-ins keep their tokens: one store for every server; a
     * `FileTokenStore` in the user's config folder (`$XDG_CONFIG_HOME/loom-mcp/`
     * or `~/.config/loom-mcp/`, files of mode 0600) when absent.
     */
    tokenStore?: TokenStore;
    /** Call the tools whose `taskSupport` is `"optional"` as tasks too (default `false`). */
    optionalTasks?: boolean;
  }
  & LogOptions
  & ServerRequestHandlers;

/** Every client's retirement outcome, and whether all were confirmed. */
export type RetirementReport = {
  /** True only when every client returned evidence. */
  confirmed: boolean;
  /** Each client's outcome, by name. */
  clients: ReadonlyMap<string, Result<RetirementEvidence, RetirementError>>;
  /**
   * Every generation of each client, by name, the first first: one start
   * each, and for a restarted server, each death with the evidence of its
   * end and what followed it.
   */
  generations: ReadonlyMap<string, readonly GenerationRecord[]>;
};

// A spec's problem as the misuse it is: where the spec is (its name, or its
// place in the list while the name is in question), the key, what is wrong.
function refusal(problem: SpecProblem, spec: unknown, index: number): TypeError | RangeError {
  // A problem of any key but the name comes from an object with a good name.
  const server = problem.key === undefined || problem.key === "name"
    ? `server ${index}`
    : `server ${quote((spec as ServerSpec).name)}`;
  const key = problem.key === undefined ? "" : `key "${problem.key}": `;
  const message = `Cannot prepare ${server}: ${key}${problem.message}`;
  return problem.kind === "out_of_range" ? new RangeError(message) : new TypeError(message);
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
   * Records a parked client per spec (no worker, no process yet), each
   * spec checked and its defaults written out by `checkSpec`. Throws the
   * spec's problem as a `TypeError` (a `RangeError` for a deadline or a
   * version out of range), and a `TypeError` on a duplicate name.
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
    const oauth = oauthProblem(options.oauth);
    if (oauth !== undefined) {
      const message = `Cannot prepare a census: option "oauth": ${oauth.message}`;
      throw oauth.kind === "out_of_range" ? new RangeError(message) : new TypeError(message);
    }
    const signIn = options.oauth === undefined ? {} : { oauth: options.oauth };
    checkHandlers(options, "Cannot prepare a census");
    const { onElicit, onSample, roots } = options;
    const handlers: ServerRequestHandlers = {
      ...(onElicit === undefined ? {} : { onElicit }),
      ...(onSample === undefined ? {} : { onSample }),
      ...(roots === undefined ? {} : { roots }),
    };
    // One store for every sign-in, made only when a server signs in.
    let tokenStore = options.tokenStore;
    const storeFor = (spec: ServerSpec) => {
      if (spec.url === undefined || (spec.oauth ?? options.oauth) === undefined) return {};
      tokenStore ??= new FileTokenStore();
      return { tokenStore };
    };
    const logs = checkLogOptions(options, "Cannot prepare a census");
    const clients = new Map<string, Client>();
    specs.forEach((given, index) => {
      const checked = checkSpec(given);
      if (!checked.ok) throw refusal(checked.error, given, index);
      const spec = checked.value;
      if (clients.has(spec.name)) {
        throw new TypeError(
          `Cannot prepare a census: the name ${JSON.stringify(spec.name)} is used twice`,
        );
      }
      clients.set(
        spec.name,
        new Client(spec, {
          permissions,
          retirementTimeoutMs,
          ...signIn,
          ...handlers,
          ...storeFor(spec),
          ...(options.optionalTasks === undefined ? {} : { optionalTasks: options.optionalTasks }),
          ...logs,
        }),
      );
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
      generations: new Map(entries.map(([name, client]) => [name, [...client.generations]])),
    };
  }
}
