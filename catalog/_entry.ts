// Private to catalog/: the validation every front end shares. An entry is a
// table (TOML) or an object (JSON) already parsed; it becomes a ServerSpec or
// a CatalogError naming the file, the table and the key. What the entry says
// is read here (with the fix spelled in the file's syntax); whether the spec
// it makes is one a client can run is the spec's own check (`checkSpec`),
// whose problem is mapped to the entry's key.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isRemote, type ResolvedServerSpec, type ServerSpec } from "../settings/mod.ts";
import { checkSpec } from "../settings/check.ts";
import { MAX_SEGMENT_CHARS } from "../codegen/names.ts";
import {
  type CatalogError,
  type CatalogFormat,
  type CatalogOptions,
  type DisabledServer,
  MAX_CATALOG_SERVERS,
  type SkippedServer,
  type Substitution,
} from "./types.ts";
import {
  expandSpec,
  refuseSubstitution,
  substitutionsOf,
  type Variables,
  variablesOf,
  withheld,
} from "./_expand.ts";
import { readEnvFile } from "./_env_file.ts";
import { isServerName, suggestName } from "./names.ts";
import {
  isRemoteEntry,
  readRemote,
  REMOTE_KEYS,
  unservableRemote,
  urlKeyOf,
  WINDSURF_URL_KEY,
} from "./_remote.ts";
import { isTable, type Problem, readTimeout } from "./_fields.ts";
import { entryProblem } from "./_keys.ts";
import { readStdio } from "./_stdio.ts";
import { describe, nearKey, renderKey, type Syntax } from "./_text.ts";
import { JSON_TOOL_KEYS, readToolKeys, TOOL_KEYS } from "./_tool_lists.ts";
import type { LogLevel } from "../codec/server_requests.ts";
import { readRestart } from "./_restart.ts";
import { readRoots } from "./_roots.ts";

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
  ...TOOL_KEYS,
  "restart",
  "log_level",
  "roots",
] as const;
// What the configuration files of other tools may also hold; VS Code's `dev`
// (restart on file changes, attach a debugger) is its editor's own, and read
// by nothing here; its `sandbox` is read only as far as `sandboxEnabled` says.
const JSON_KEYS: readonly string[] = [
  ...KEYS,
  "type",
  ...JSON_TOOL_KEYS,
  "disabled",
  "envFile",
  "dev",
  "sandboxEnabled",
  "sandbox",
];
const TOML_KEYS: readonly string[] = [...KEYS, "disabled"];

/**
 * Where the servers of a document are: its file, its syntax, the key holding
 * them; for another tool's entries, how each is said in the catalog's keys
 * and which of its own keys a message names instead.
 */
export type Place = {
  file: string;
  syntax: Syntax;
  root: string;
  translate?: (entry: Record<string, unknown>) => Result<Record<string, unknown>, Problem>;
  keyNames?: Readonly<Record<string, string>>;
};

/**
 * How a front end reads entries: from the options of a reading, in one
 * place. Every file is read the way the tool that wrote it does; the mode
 * decides only what a malformed entry does.
 */
export type Mode = {
  /** Refuse the document at the first malformed entry (else skip it and go on). */
  strict: boolean;
  /** Expand variables from here (else refuse any `${...}`, JSON only). */
  variables?: Variables;
  /** Derive a server name from a name that is not one ("GitHub": github). */
  deriveNames: boolean;
  /** Reads the env file an entry names (VS Code's `envFile`); none when absent. */
  envFile?: CatalogOptions["envFile"];
  /** The folder relative paths of `roots` mean; unknown for a text without one. */
  folder?: string;
};

/**
 * The mode of a reading of a document in `format`; `inputs` are the VS Code
 * inputs the document declares, by id, with their descriptions.
 */
export function modeOf(
  options: CatalogOptions,
  format: CatalogFormat,
  inputs?: ReadonlyMap<string, string>,
): Mode {
  const variables = variablesOf(options, inputs);
  const mode: Mode = { strict: options.mode === "strict", deriveNames: format === "json" };
  if (variables !== undefined) mode.variables = variables;
  if (options.envFile !== undefined) mode.envFile = options.envFile;
  if (options.workspaceFolder !== undefined) mode.folder = options.workspaceFolder;
  return mode;
}

/** The servers of one document, and what was left out or renamed. */
export type Collected = {
  servers: ResolvedServerSpec[];
  skipped: SkippedServer[];
  disabled: DisabledServer[];
  renamed: { key: string; name: string }[];
  substitutions: Substitution[];
  envFiles: { server: string; path: string }[];
  tables: { server: string; table: string }[];
};

/** Nothing collected yet. */
export function emptyCollected(): Collected {
  return {
    servers: [],
    skipped: [],
    disabled: [],
    renamed: [],
    substitutions: [],
    envFiles: [],
    tables: [],
  };
}

/** An entry whose variables the reading does not allow: read, but not expanded. */
type Withheld = { kind: "withheld"; variables: string[]; written: ServerSpec };

/** An entry read: its spec, the values it wrote with variables, its env file. */
type Read = { spec: ResolvedServerSpec; substitutions: Substitution[]; envFile?: string };

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
  const collected = emptyCollected();
  const taken = new Map<string, string>();
  for (const key of names) {
    const where = serverName(place, key);
    let entry = servers[key];
    if (place.translate !== undefined && isTable(entry)) {
      const translated = place.translate(entry);
      if (!translated.ok) {
        const error = placeProblem(translated.error, { ...place, keyNames: {} }, key);
        if (mode.strict) return err(error);
        collected.skipped.push({ key, reason: "invalid", message: error.message, error });
        continue;
      }
      entry = translated.value;
    }
    const off = isTable(entry) ? disabledBy(entry, place) : undefined;
    if (off !== undefined) {
      collected.disabled.push({
        key,
        table: where,
        message: `${place.file}: ${where} is ${off}, so it is not started`,
      });
      continue;
    }
    const unservable = isTable(entry) ? skipReason(entry) : undefined;
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
    const read: Result<Read, Problem | Withheld> = earlier !== undefined
      ? err({
        kind: "duplicate_name",
        what: `its server name ${quote(name)} is also the name of ${
          quote(earlier)
        }; rename one of them`,
      })
      : readServer(name, entry, place, mode);
    if (!read.ok && read.error.kind === "withheld") {
      const { variables, written } = read.error;
      taken.set(name, key);
      if (name !== key) collected.renamed.push({ key, name });
      collected.tables.push({ server: name, table: where });
      collected.substitutions.push(...substitutionsOf(written));
      collected.skipped.push({
        key,
        reason: "unexpanded",
        message:
          `${place.file}: ${where} skipped: it reads ${
            variables.join(", ")
          } from the environment, which this reading does not expand (a file found rather than ` +
          "named expands no variable unless allowed)",
        variables,
        written,
      });
      continue;
    }
    if (!read.ok) {
      const error = placeProblem(read.error as Problem, place, key);
      if (mode.strict) return err(error);
      // Named by the server name it would have had, as an unexpanded entry is.
      if (name !== key && read.error.kind !== "duplicate_name") {
        collected.renamed.push({ key, name });
      }
      collected.skipped.push({ key, reason: "invalid", message: error.message, error });
      continue;
    }
    taken.set(name, key);
    if (name !== key) collected.renamed.push({ key, name });
    collected.tables.push({ server: name, table: where });
    collected.servers.push(read.value.spec);
    collected.substitutions.push(...read.value.substitutions);
    if (read.value.envFile !== undefined) {
      collected.envFiles.push({ server: name, path: read.value.envFile });
    }
  }
  return ok(collected);
}

function placeProblem(problem: Problem, place: Place, name: string): CatalogError {
  const { kind, what } = problem;
  const key = problem.key === undefined ? undefined : place.keyNames?.[problem.key] ?? problem.key;
  const where = serverName(place, name);
  const message = key === undefined
    ? `${place.file}: ${where}: ${what}`
    : `${place.file}: ${where} key ${quote(key)}: ${what}`;
  const table = `${place.root}.${name}`;
  return key === undefined
    ? { kind, file: place.file, table, message }
    : { kind, file: place.file, table, key, message };
}

// What turns an entry off, as its file says it; said before any other check,
// since a disabled entry is not started (nor judged) by the tool that wrote it.
function disabledBy(entry: Record<string, unknown>, place: Place): string | undefined {
  if (entry["disabled"] !== true) return undefined;
  return place.keyNames?.["disabled"] === "enabled"
    ? "disabled (enabled = false)"
    : place.syntax === "toml"
    ? "disabled (disabled = true)"
    : 'disabled ("disabled": true)';
}

// An entry the library cannot serve, said before any other check.
function skipReason(
  entry: Record<string, unknown>,
): { reason: "remote"; what: string } | undefined {
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

// An entry read; a problem with its URL is said of the key it wrote it under.
function readServer(
  name: string,
  entry: unknown,
  place: Place,
  mode: Mode,
): Result<Read, Problem | Withheld> {
  const read = readEntry(name, entry, place, mode);
  if (read.ok || read.error.kind === "withheld" || read.error.key !== "url") return read;
  if (place.syntax !== "json" || !isTable(entry) || urlKeyOf(entry) === "url") return read;
  return err({ ...read.error, key: WINDSURF_URL_KEY });
}

function readEntry(
  name: string,
  entry: unknown,
  place: Place,
  mode: Mode,
): Result<Read, Problem | Withheld> {
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
    ? refuseType(entry)
    : undefined;
  if (refusal !== undefined) return err(refusal);
  const known = syntax === "toml"
    ? [...TOML_KEYS, ...(remote ? REMOTE_KEYS : [])]
    : [...JSON_KEYS, ...(remote ? [...REMOTE_KEYS, WINDSURF_URL_KEY] : [])];
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
  const timeouts = readTimeouts(spec, entry, syntax) ?? readToolKeys(spec, entry, syntax);
  if (timeouts !== undefined) return err(timeouts);
  // The level is the spec's to judge (`checkSpec`), its problem said of log_level.
  if (entry["log_level"] !== undefined) spec.logLevel = entry["log_level"] as LogLevel;
  if (entry["roots"] !== undefined) {
    const roots = readRoots(entry["roots"], mode.folder, syntax);
    if (!roots.ok) return roots;
    spec.roots = roots.value;
  }
  if (entry["restart"] !== undefined) {
    const restart = readRestart(entry["restart"], syntax);
    if (!restart.ok) return restart;
    spec.restart = restart.value;
  }
  const substitutions = substitutionsOf(spec);
  const envFile = entry["envFile"] === undefined
    ? undefined
    : readEnvFile(entry["envFile"], mode.variables, mode.envFile, syntax);
  if (envFile !== undefined && !envFile.ok) return envFile;
  if (envFile !== undefined && typeof entry["envFile"] === "string") {
    substitutions.push(
      ...substitutionsOf({ name, command: entry["envFile"] }).map((found) => ({
        ...found,
        key: "envFile",
      })),
    );
  }
  const hidden = mode.variables === undefined ? [] : withheld(spec, mode.variables);
  const hiddenFile = envFile === undefined ? [] : envFile.value.withheld;
  if (hidden.length > 0 || hiddenFile.length > 0) {
    return err({
      kind: "withheld",
      variables: [...new Set([...hidden, ...hiddenFile])],
      written: spec,
    });
  }
  const expanded = expandVariables(spec, remote, syntax, mode);
  if (!expanded.ok) return expanded;
  if (envFile !== undefined && !isRemote(expanded.value)) {
    // The entry's own env wins over its env file's, as in VS Code. The env
    // file's values are taken as written, after expansion: a `${VAR}` in them
    // would read the harness's environment past what the reading allows.
    expanded.value.env = Object.assign(
      Object.create(null),
      envFile.value.env,
      expanded.value.env ?? {},
    );
  }
  // Everything else is the spec's own rules, judged once the variables are
  // expanded; the keys that need no reading of their own go to it as written.
  const draft: Record<string, unknown> = { ...expanded.value };
  for (const key of ["stderr", "era", "versions"]) {
    if (entry[key] !== undefined) draft[key] = entry[key];
  }
  const checked = checkSpec(draft, { describe: (value) => describe(value, syntax) });
  if (!checked.ok) return err(entryProblem(checked.error));
  return ok(
    envFile?.value.path === undefined
      ? { spec: checked.value, substitutions }
      : { spec: checked.value, substitutions, envFile: envFile.value.path },
  );
}

// Variables expand from the environment given; with none, a JSON entry or
// a remote entry that holds one is refused (a token is read from the
// harness's environment, never written in the file).
function expandVariables(
  spec: ServerSpec,
  remote: boolean,
  syntax: Syntax,
  mode: Mode,
): Result<ServerSpec, Problem> {
  if (mode.variables !== undefined) return expandSpec(spec, mode.variables);
  if (!remote && syntax !== "json") return ok(spec);
  const substitution = refuseSubstitution(spec);
  if (substitution === undefined) return ok(spec);
  if (!remote) return err(substitution);
  return err({
    ...substitution,
    what: `${substitution.what}, or open the file with openCatalog (or give options.env), ` +
      `which expands it from the harness's environment`,
  });
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

// A JSON entry without a url is a stdio server, whatever else it says;
// GitHub Copilot's files call it "local".
function refuseType(entry: Record<string, unknown>): Problem | undefined {
  const type = entry["type"];
  if (type !== undefined && type !== "stdio" && type !== "local") {
    return {
      kind: "invalid_entry",
      key: "type",
      what: `expected "stdio", found ${describe(type, "json")}`,
    };
  }
  return undefined;
}
