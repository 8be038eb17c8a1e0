// Private to catalog/: the validation every front end shares. An entry is a
// table (TOML) or an object (JSON) already parsed; it becomes a ServerSpec or
// a CatalogError naming the file, the table and the key. What the entry says
// is read here (with the fix spelled in the file's syntax); whether the spec
// it makes is one a client can run is the spec's own check (`checkSpec`),
// whose problem is mapped to the entry's key.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ResolvedServerSpec, ServerSpec, StdioServerSpec } from "../spec/mod.ts";
import { checkSpec, type SpecKey, type SpecProblem } from "../spec/check.ts";
import { MAX_SEGMENT_CHARS } from "../codegen/names.ts";
import {
  type CatalogError,
  type CatalogFormat,
  type CatalogOptions,
  MAX_CATALOG_SERVERS,
  type SkippedServer,
} from "./types.ts";
import { expandSpec, refuseSubstitution, type Variables, variablesOf } from "./_expand.ts";
import { isServerName, suggestName } from "./names.ts";
import { isRemoteEntry, readRemote, REMOTE_KEYS, unservableRemote } from "./_remote.ts";
import {
  isTable,
  type Problem,
  readArgs,
  readCommand,
  readEnv,
  readInheritEnv,
  readPath,
  readTimeout,
} from "./_fields.ts";
import { describe, renderKey, type Syntax } from "./_text.ts";
import { readRestart } from "./_restart.ts";

/** The file name used in messages when none is given. */
export const DEFAULT_FILE = "catalog";
const KEYS = [
  "command",
  "args",
  "env",
  "inherit_env",
  "cwd",
  "connect_timeout_ms",
  "call_timeout_ms",
  "stderr",
  "era",
  "versions",
  "restart",
] as const;
const JSON_KEYS: readonly string[] = [...KEYS, "type"];
// What the configuration files of other tools may also hold.
const JSON_KEYS_READ: readonly string[] = [...JSON_KEYS, "disabled"];
const TOML_KEYS_READ: readonly string[] = [...KEYS, "disabled"];

/** Where the servers of a document are: its file, its syntax, the key holding them. */
export type Place = { file: string; syntax: Syntax; root: string };

/**
 * How a front end reads entries: from the options of a reading, in one
 * place. A `literal` reading is the one of a file written for this library
 * alone; the configuration files of other tools are read with everything on.
 */
export type Mode = {
  /** Refuse the document at the first malformed entry (else skip it and go on). */
  strict: boolean;
  /** Skip disabled and remote entries with the reason (else refuse remote ones). */
  skipUnservable: boolean;
  /** Expand variables from here (else refuse any `${...}`, JSON only). */
  variables?: Variables;
  /** Expand the URL and headers of remote entries from here (when `variables` is not given). */
  remoteVariables?: Variables;
  /** Derive a server name from a name that is not one ("GitHub": github). */
  deriveNames: boolean;
};

/** The mode of a reading of a document in `format`. */
export function modeOf(options: CatalogOptions, format: CatalogFormat): Mode {
  const strict = options.strict ?? false;
  const variables = variablesOf(options);
  if (options.literal === true) {
    const mode: Mode = { strict, skipUnservable: false, deriveNames: false };
    if (variables !== undefined) mode.remoteVariables = variables;
    return mode;
  }
  const mode: Mode = { strict, skipUnservable: true, deriveNames: format === "json" };
  if (variables !== undefined) mode.variables = variables;
  return mode;
}

/** The servers of one document, and what was left out or renamed. */
export type Collected = {
  servers: ResolvedServerSpec[];
  skipped: SkippedServer[];
  renamed: { key: string; name: string }[];
};

/** Reads every server of a document's server table, in order. */
export function readServers(
  servers: Record<string, unknown>,
  place: Place,
  mode: Mode,
): Result<Collected, CatalogError> {
  const names = Object.keys(servers);
  if (names.length > MAX_CATALOG_SERVERS) {
    return err({
      kind: "invalid_catalog",
      file: place.file,
      key: place.root,
      message: `${place.file}: ${
        tableName(place.root, place.syntax)
      } lists ${names.length} servers, more than the ${MAX_CATALOG_SERVERS} one catalog may run; split it`,
    });
  }
  const collected: Collected = { servers: [], skipped: [], renamed: [] };
  const taken = new Map<string, string>();
  for (const key of names) {
    const where = serverName(place, key);
    const entry = servers[key];
    const unservable = mode.skipUnservable && isTable(entry) ? skipReason(entry) : undefined;
    if (unservable !== undefined) {
      collected.skipped.push({
        key,
        reason: unservable.reason,
        message: `${place.file}: ${where} skipped: ${unservable.what}`,
      });
      continue;
    }
    let name = key;
    if (mode.deriveNames && !isServerName(key)) {
      const derived = suggestName(key);
      if (derived !== undefined) name = derived;
    }
    const earlier = taken.get(name);
    const spec: Result<ResolvedServerSpec, Problem> = earlier !== undefined
      ? err({
        kind: "duplicate_name",
        what: `its server name ${quote(name)} is also the name of ${
          quote(earlier)
        }; rename one of them`,
      })
      : readServer(name, entry, place, mode);
    if (!spec.ok) {
      const error = placeProblem(spec.error, place, key);
      if (mode.strict) return err(error);
      collected.skipped.push({ key, reason: "invalid", message: error.message, error });
      continue;
    }
    taken.set(name, key);
    if (name !== key) collected.renamed.push({ key, name });
    collected.servers.push(spec.value);
  }
  return ok(collected);
}

function placeProblem(problem: Problem, place: Place, name: string): CatalogError {
  const { kind, key, what } = problem;
  const where = serverName(place, name);
  const message = key === undefined
    ? `${place.file}: ${where}: ${what}`
    : `${place.file}: ${where} key "${key}": ${what}`;
  const table = `${place.root}.${name}`;
  return key === undefined
    ? { kind, file: place.file, table, message }
    : { kind, file: place.file, table, key, message };
}

// An entry the library cannot serve, said before any other check.
function skipReason(
  entry: Record<string, unknown>,
): { reason: "disabled" | "remote"; what: string } | undefined {
  if (entry["disabled"] === true) return { reason: "disabled", what: 'it is "disabled": true' };
  const remote = isRemoteEntry(entry) ? unservableRemote(entry) : undefined;
  return remote === undefined ? undefined : { reason: "remote", what: remote.what };
}

function tableName(root: string, syntax: Syntax): string {
  return syntax === "toml" ? `[${root}]` : `"${root}"`;
}

function serverName(place: Place, name: string): string {
  const path = `${place.root}.${renderKey(name, "toml")}`;
  return place.syntax === "toml" ? `[${path}]` : path;
}

function readServer(
  name: string,
  entry: unknown,
  place: Place,
  mode: Mode,
): Result<ResolvedServerSpec, Problem> {
  const { syntax } = place;
  if (!isServerName(name)) {
    const suggestion = suggestName(name);
    return err({
      kind: "invalid_name",
      what: `invalid server name ${
        quote(name)
      }: use lowercase letters, digits, underscores and hyphens, starting with a letter, at most ${MAX_SEGMENT_CHARS} characters, not a device name${
        suggestion === undefined ? "" : `, such as ${JSON.stringify(suggestion)}`
      }`,
    });
  }
  if (!isTable(entry)) {
    return err({
      kind: "invalid_entry",
      what: `expected ${syntax === "toml" ? "a table" : "an object"} describing the server, found ${
        describe(entry, syntax)
      }`,
    });
  }
  const remote = isRemoteEntry(entry);
  const refusal = remote
    ? unservableRemote(entry)
    : syntax === "json"
    ? refuseUnsupported(entry)
    : undefined;
  if (refusal !== undefined) return err(refusal);
  const known = [
    ...(mode.skipUnservable
      ? syntax === "toml" ? TOML_KEYS_READ : JSON_KEYS_READ
      : syntax === "toml"
      ? KEYS as readonly string[]
      : JSON_KEYS),
    ...(remote ? REMOTE_KEYS : []),
  ];
  for (const key of Object.keys(entry)) {
    if (known.includes(key)) continue;
    const near = nearKey(key, known);
    return err({
      kind: "invalid_entry",
      key,
      what: `unknown key${
        near === undefined ? "" : ` (did you mean "${near}"?)`
      }; the known keys are ${known.join(", ")}`,
    });
  }
  if (entry["disabled"] !== undefined && typeof entry["disabled"] !== "boolean") {
    return err({
      kind: "invalid_entry",
      key: "disabled",
      what: `expected true or false, found ${describe(entry["disabled"], syntax)}`,
    });
  }
  const base = remote ? readRemote(name, entry, syntax) : readStdio(name, entry, syntax);
  if (!base.ok) return base;
  const spec: ServerSpec = base.value;
  const timeouts = readTimeouts(spec, entry, syntax);
  if (timeouts !== undefined) return err(timeouts);
  if (entry["restart"] !== undefined) {
    const restart = readRestart(entry["restart"], syntax);
    if (!restart.ok) return restart;
    spec.restart = restart.value;
  }
  const expanded = expandVariables(spec, remote, syntax, mode);
  if (!expanded.ok) return expanded;
  // Everything else is the spec's own rules, judged once the variables are
  // expanded; the keys that need no reading of their own go to it as written.
  const draft: Record<string, unknown> = { ...expanded.value };
  for (const key of ["stderr", "era", "versions"]) {
    if (entry[key] !== undefined) draft[key] = entry[key];
  }
  const checked = checkSpec(draft, { describe: (value) => describe(value, syntax) });
  return checked.ok ? checked : err(entryProblem(checked.error));
}

// The catalog's key for each key of a spec.
const CATALOG_KEYS: Readonly<Record<SpecKey, string>> = {
  name: "name",
  command: "command",
  args: "args",
  env: "env",
  inheritEnv: "inherit_env",
  cwd: "cwd",
  stderr: "stderr",
  url: "url",
  headers: "headers",
  connectTimeoutMs: "connect_timeout_ms",
  callTimeoutMs: "call_timeout_ms",
  era: "era",
  versions: "versions",
  restart: "restart",
};

// A spec's problem, said of the entry's key.
function entryProblem(problem: SpecProblem): Problem {
  const what = problem.message;
  return problem.key === undefined
    ? { kind: "invalid_entry", what }
    : { kind: "invalid_entry", key: CATALOG_KEYS[problem.key], what };
}

// Variables expand from the environment given; with none, a JSON entry that
// holds one is refused, and a remote entry's URL and headers expand from the
// environment of a literal reading (a token is read from the harness's
// environment, never written in the file).
function expandVariables(
  spec: ServerSpec,
  remote: boolean,
  syntax: Syntax,
  mode: Mode,
): Result<ServerSpec, Problem> {
  const variables = mode.variables ?? (remote ? mode.remoteVariables : undefined);
  if (variables !== undefined) return expandSpec(spec, variables);
  if (!remote && syntax !== "json") return ok(spec);
  const substitution = refuseSubstitution(spec);
  if (substitution === undefined) return ok(spec);
  if (!remote) return err(substitution);
  return err({
    ...substitution,
    what: `${substitution.what}, or read the catalog with loadCatalog or openCatalog ` +
      `(or give options.env), which expand it from the harness's environment`,
  });
}

function readStdio(
  name: string,
  entry: Record<string, unknown>,
  syntax: Syntax,
): Result<StdioServerSpec, Problem> {
  const args = readArgs(entry["args"], syntax);
  if (!args.ok) return args;
  const command = readCommand(entry["command"], args.value ?? [], syntax);
  if (!command.ok) return command;
  const env = readEnv(entry["env"], syntax);
  if (!env.ok) return env;
  const inheritEnv = readInheritEnv(entry["inherit_env"], syntax);
  if (!inheritEnv.ok) return inheritEnv;
  const spec: StdioServerSpec = { name, command: command.value };
  if (args.value !== undefined) spec.args = args.value;
  if (env.value !== undefined) spec.env = env.value;
  if (inheritEnv.value !== undefined) spec.inheritEnv = inheritEnv.value;
  if (entry["cwd"] !== undefined) {
    const cwd = readPath("cwd", entry["cwd"], syntax);
    if (!cwd.ok) return cwd;
    spec.cwd = cwd.value;
  }
  return ok(spec);
}

// The deadlines of an entry, read onto its spec: the catalog's own limits
// (a whole number, at most an hour), within the spec's timeout rule.
function readTimeouts(
  spec: ServerSpec,
  entry: Record<string, unknown>,
  syntax: Syntax,
): Problem | undefined {
  if (entry["connect_timeout_ms"] !== undefined) {
    const timeout = readTimeout("connect_timeout_ms", entry["connect_timeout_ms"], syntax);
    if (!timeout.ok) return timeout.error;
    spec.connectTimeoutMs = timeout.value;
  }
  if (entry["call_timeout_ms"] !== undefined) {
    const timeout = readTimeout("call_timeout_ms", entry["call_timeout_ms"], syntax);
    if (!timeout.ok) return timeout.error;
    spec.callTimeoutMs = timeout.value;
  }
  return undefined;
}

// VS Code's envFile is refused before the key check, so that it gets a
// message about what it is rather than "unknown key".
function refuseUnsupported(entry: Record<string, unknown>): Problem | undefined {
  const type = entry["type"];
  if (entry["envFile"] !== undefined) {
    return {
      kind: "unsupported_entry",
      key: "envFile",
      what: `env files are not supported; list the variables in "env" or "inherit_env"`,
    };
  }
  if (type !== undefined && type !== "stdio") {
    return {
      kind: "invalid_entry",
      key: "type",
      what: `expected "stdio", found ${describe(type, "json")}`,
    };
  }
  return undefined;
}

// A key that differs from a known one only in case, dashes or camelCase.
function nearKey(key: string, known: readonly string[]): string | undefined {
  const normal = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
  return known.find((candidate) => candidate === normal);
}
