// Private to catalog/: the validation every front end shares. An entry is a
// table (TOML) or an object (JSON) already parsed; it becomes a ServerSpec or
// a CatalogError naming the file, the table and the key.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ServerSpec } from "../client/spec.ts";
import { type CatalogError, MAX_CATALOG_SERVERS } from "./types.ts";
import { isServerName, suggestName } from "./names.ts";
import {
  isTable,
  type Problem,
  readArgs,
  readCommand,
  readEnv,
  readInheritEnv,
  readPath,
  readStderr,
  readTimeout,
} from "./_fields.ts";
import { describe, renderKey, type Syntax } from "./_text.ts";

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
] as const;
const JSON_KEYS: readonly string[] = [...KEYS, "type"];
const REMOTE_TYPES: readonly string[] = [
  "http",
  "sse",
  "streamable-http",
  "streamable_http",
  "streamableHttp",
  "ws",
  "websocket",
];
const SUBSTITUTION = /\$\{([^}]*)\}/;
const WHOLE_SUBSTITUTION = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Where the servers of a document are: its file, its syntax, the key holding them. */
export type Place = { file: string; syntax: Syntax; root: string };

/** Reads every server of a document's server table, in order; the first mistake refuses all. */
export function readServers(
  servers: Record<string, unknown>,
  place: Place,
): Result<ServerSpec[], CatalogError> {
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
  const specs: ServerSpec[] = [];
  for (const name of names) {
    const spec = readServer(name, servers[name], place);
    if (!spec.ok) {
      const { kind, key, what } = spec.error;
      const where = serverName(place, name);
      const message = key === undefined
        ? `${place.file}: ${where}: ${what}`
        : `${place.file}: ${where} key "${key}": ${what}`;
      const table = `${place.root}.${name}`;
      return err(
        key === undefined
          ? { kind, file: place.file, table, message }
          : { kind, file: place.file, table, key, message },
      );
    }
    specs.push(spec.value);
  }
  return ok(specs);
}

function tableName(root: string, syntax: Syntax): string {
  return syntax === "toml" ? `[${root}]` : `"${root}"`;
}

function serverName(place: Place, name: string): string {
  const path = `${place.root}.${renderKey(name, "toml")}`;
  return place.syntax === "toml" ? `[${path}]` : path;
}

function readServer(name: string, entry: unknown, place: Place): Result<ServerSpec, Problem> {
  const { syntax } = place;
  if (!isServerName(name)) {
    const suggestion = suggestName(name);
    return err({
      kind: "invalid_name",
      what: `invalid server name ${
        quote(name)
      }: use lowercase letters, digits, underscores and hyphens, starting with a letter, at most 64 characters, not a device name${
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
  if (syntax === "json") {
    const refusal = refuseUnsupported(entry);
    if (refusal !== undefined) return err(refusal);
  }
  const known = syntax === "toml" ? KEYS as readonly string[] : JSON_KEYS;
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
  const args = readArgs(entry["args"], syntax);
  if (!args.ok) return args;
  const command = readCommand(entry["command"], args.value, syntax);
  if (!command.ok) return command;
  const env = readEnv(entry["env"], syntax);
  if (!env.ok) return env;
  const inheritEnv = readInheritEnv(entry["inherit_env"], syntax);
  if (!inheritEnv.ok) return inheritEnv;
  const stderr = readStderr(entry["stderr"], syntax);
  if (!stderr.ok) return stderr;
  const spec: ServerSpec = {
    name,
    command: command.value,
    args: args.value,
    env: env.value,
    inheritEnv: inheritEnv.value,
    stderr: stderr.value,
  };
  if (entry["cwd"] !== undefined) {
    const cwd = readPath("cwd", entry["cwd"], syntax);
    if (!cwd.ok) return cwd;
    spec.cwd = cwd.value;
  }
  if (entry["connect_timeout_ms"] !== undefined) {
    const timeout = readTimeout("connect_timeout_ms", entry["connect_timeout_ms"], syntax);
    if (!timeout.ok) return timeout;
    spec.connectTimeoutMs = timeout.value;
  }
  if (entry["call_timeout_ms"] !== undefined) {
    const timeout = readTimeout("call_timeout_ms", entry["call_timeout_ms"], syntax);
    if (!timeout.ok) return timeout;
    spec.callTimeoutMs = timeout.value;
  }
  if (syntax === "json") {
    const substitution = refuseSubstitution(spec);
    if (substitution !== undefined) return err(substitution);
  }
  return ok(spec);
}

// Remote servers and VS Code's envFile are refused before the key check, so
// that they get a message about what they are rather than "unknown key".
function refuseUnsupported(entry: Record<string, unknown>): Problem | undefined {
  const type = entry["type"];
  if (entry["url"] !== undefined || (typeof type === "string" && REMOTE_TYPES.includes(type))) {
    return {
      kind: "unsupported_entry",
      key: entry["url"] !== undefined ? "url" : "type",
      what:
        `remote (URL) servers are not supported, only stdio servers started from a "command"; remove this entry or give the command that runs the server locally`,
    };
  }
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

function refuseSubstitution(spec: ServerSpec): Problem | undefined {
  const found = (key: string, value: string): Problem => ({
    kind: "unsupported_entry",
    key,
    what: `variable substitution is not supported, found ${quote(value)}; write the value itself`,
  });
  if (SUBSTITUTION.test(spec.command)) return found("command", spec.command);
  for (const arg of spec.args) if (SUBSTITUTION.test(arg)) return found("args", arg);
  if (spec.cwd !== undefined && SUBSTITUTION.test(spec.cwd)) return found("cwd", spec.cwd);
  for (const [name, value] of Object.entries(spec.env)) {
    if (!SUBSTITUTION.test(value)) continue;
    const variable = WHOLE_SUBSTITUTION.exec(value)?.[1];
    return {
      kind: "unsupported_entry",
      key: "env",
      what: `variable substitution is not supported, found ${quote(value)} for ${quote(name)}; ${
        variable === undefined
          ? "write the value itself"
          : variable === name
          ? `remove it from "env" and write "inherit_env": ["${name}"]`
          : `write the value itself, or set ${name} in the harness's environment and write "inherit_env": ["${name}"]`
      }`,
    };
  }
  return undefined;
}
// A key that differs from a known one only in case, dashes or camelCase.
function nearKey(key: string, known: readonly string[]): string | undefined {
  const normal = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
  return known.find((candidate) => candidate === normal);
}
