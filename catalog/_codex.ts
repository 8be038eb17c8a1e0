// Private to catalog/: Codex's `config.toml`, whose servers are
// `[mcp_servers.<name>]` tables. Each entry is said again in the catalog's
// own keys (its seconds as milliseconds, its bearer token variable and
// header variables as `${VAR}` headers, `enabled = false` as disabled; its
// `enabled_tools` and `disabled_tools` are the catalog's own), and
// then read as every entry is; a mistake is reported under Codex's own key.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isTable, type Problem } from "./_fields.ts";
import { MAX_CATALOG_TIMEOUT_MS } from "./types.ts";
import { describe, renderKey } from "./_text.ts";

/** The keys of a Codex server entry that are read. */
export const CODEX_KEYS: readonly string[] = [
  "command",
  "args",
  "env",
  "env_vars",
  "cwd",
  "url",
  "bearer_token_env_var",
  "http_headers",
  "env_http_headers",
  "startup_timeout_sec",
  "startup_timeout_ms",
  "tool_timeout_sec",
  "enabled",
  "enabled_tools",
  "disabled_tools",
  "required",
  "scopes",
  "experimental_environment",
];

/** The Codex key each catalog key came from, for messages. */
export const CODEX_KEY_NAMES: Readonly<Record<string, string>> = {
  inherit_env: "env_vars",
  headers: "http_headers",
  connect_timeout_ms: "startup_timeout_sec",
  call_timeout_ms: "tool_timeout_sec",
  disabled: "enabled",
};

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A Codex entry in the catalog's keys, or what is wrong with it under Codex's key. */
export function fromCodex(
  entry: Record<string, unknown>,
): Result<Record<string, unknown>, Problem> {
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(entry)) {
    if (!CODEX_KEYS.includes(key)) {
      return err({
        kind: "invalid_entry",
        key,
        what: `unknown key; the keys Codex servers take here are ${CODEX_KEYS.join(", ")}`,
      });
    }
  }
  // Codex's tool lists are the catalog's own keys, read the same way.
  for (const key of ["command", "args", "env", "cwd", "url", "enabled_tools", "disabled_tools"]) {
    if (entry[key] !== undefined) out[key] = entry[key];
  }
  if (entry["env_vars"] !== undefined) {
    const names = envVarsOf(entry["env_vars"]);
    if (!names.ok) return names;
    out["inherit_env"] = names.value;
  }
  for (const key of ["required", "enabled"]) {
    if (entry[key] !== undefined && typeof entry[key] !== "boolean") {
      return err({
        kind: "invalid_entry",
        key,
        what: `expected true or false, found ${describe(entry[key], "toml")}`,
      });
    }
  }
  const scopes = entry["scopes"];
  if (
    scopes !== undefined &&
    !(Array.isArray(scopes) && scopes.every((scope) => typeof scope === "string"))
  ) {
    return err({
      kind: "invalid_entry",
      key: "scopes",
      what: `expected an array of OAuth scopes, found ${describe(scopes, "toml")}`,
    });
  }
  const where = entry["experimental_environment"];
  if (where !== undefined && where !== "local") {
    return err({
      kind: "unsupported_entry",
      key: "experimental_environment",
      what: `the server runs in Codex's ${
        typeof where === "string" ? quote(where) : describe(where, "toml")
      } executor environment, which only Codex has; remove the key to run it here`,
    });
  }
  if (entry["enabled"] !== undefined) out["disabled"] = !entry["enabled"];
  const headers = headersOf(entry);
  if (!headers.ok) return headers;
  if (headers.value !== undefined) out["headers"] = headers.value;
  for (
    const [key, target, scale] of [
      ["startup_timeout_sec", "connect_timeout_ms", 1000],
      ["startup_timeout_ms", "connect_timeout_ms", 1],
      ["tool_timeout_sec", "call_timeout_ms", 1000],
    ] as const
  ) {
    const value = entry[key];
    if (value === undefined) continue;
    const ms = typeof value === "number" ? Math.round(value * scale) : NaN;
    if (!(ms >= 1 && ms <= MAX_CATALOG_TIMEOUT_MS)) {
      return err({
        kind: "invalid_entry",
        key,
        what: `expected a number of ${scale === 1 ? "milliseconds" : "seconds"} from ${
          scale === 1 ? 1 : 0.001
        } to ${MAX_CATALOG_TIMEOUT_MS / scale} (one hour), found ${describe(value, "toml")}`,
      });
    }
    out[target] = ms;
  }
  return ok(out);
}

// Codex's env_vars: names, or `{ name, source }` tables whose source is
// "local" (the harness's environment) or absent; "remote" is Codex's own.
function envVarsOf(value: unknown): Result<unknown, Problem> {
  if (!Array.isArray(value)) return ok(value); // The catalog's inherit_env says how it is wrong.
  const names: unknown[] = [];
  for (const [index, item] of value.entries()) {
    if (!isTable(item)) {
      names.push(item);
      continue;
    }
    const source = item["source"];
    if (typeof item["name"] !== "string" || (source !== undefined && source !== "local")) {
      return err({
        kind: source === "remote" ? "unsupported_entry" : "invalid_entry",
        key: "env_vars",
        what: source === "remote"
          ? `entry ${index} reads ${
            quote(String(item["name"]))
          } from Codex's remote executor environment, which only Codex has; write it as a name, read from the harness's environment`
          : `expected a variable name or { name = "NAME", source = "local" } at index ${index}, found ${
            describe(item, "toml")
          }`,
      });
    }
    names.push(item["name"]);
  }
  return ok(names);
}

/**
 * What a Codex entry says that refuses nothing but does not hold here, one
 * line each: `required` (Codex will not start without the server; here a
 * server that fails to start is reported, and the harness decides) and
 * `scopes` (for Codex's own sign-in).
 */
export function codexWarnings(servers: Record<string, unknown>, file: string): string[] {
  const warnings: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (!isTable(entry) || entry["enabled"] === false) continue;
    const table = `[mcp_servers.${renderKey(name, "toml")}]`;
    if (entry["required"] === true) {
      warnings.push(
        `${file}: ${table} required = true is not enforced: a server that fails to start is reported in the census, and the harness decides`,
      );
    }
    if (entry["scopes"] !== undefined) {
      warnings.push(
        `${file}: ${table} scopes are for Codex's own sign-in (codex mcp login) and are not read here`,
      );
    }
  }
  return warnings;
}

// The headers of a remote entry: http_headers as written, env_http_headers
// and bearer_token_env_var as `${VAR}`, expanded (and allowed) like any other.
function headersOf(
  entry: Record<string, unknown>,
): Result<Record<string, unknown> | undefined, Problem> {
  const given = entry["http_headers"];
  const fromEnv = entry["env_http_headers"];
  const bearer = entry["bearer_token_env_var"];
  if (given === undefined && fromEnv === undefined && bearer === undefined) return ok(undefined);
  const headers: Record<string, unknown> = Object.create(null);
  if (given !== undefined) {
    if (!isTable(given)) {
      return err({
        kind: "invalid_entry",
        key: "http_headers",
        what: `expected a table of header names and values, found ${describe(given, "toml")}`,
      });
    }
    Object.assign(headers, given);
  }
  if (fromEnv !== undefined) {
    if (!isTable(fromEnv)) {
      return err({
        kind: "invalid_entry",
        key: "env_http_headers",
        what: `expected a table of header names and variable names, found ${
          describe(fromEnv, "toml")
        }`,
      });
    }
    for (const [name, variable] of Object.entries(fromEnv)) {
      if (typeof variable !== "string" || !VARIABLE_NAME.test(variable)) {
        return err({
          kind: "invalid_entry",
          key: "env_http_headers",
          what: `expected a variable name for header ${quote(name)}, found ${
            describe(variable, "toml")
          }`,
        });
      }
      headers[name] = `\${${variable}}`;
    }
  }
  if (bearer !== undefined) {
    if (typeof bearer !== "string" || !VARIABLE_NAME.test(bearer)) {
      return err({
        kind: "invalid_entry",
        key: "bearer_token_env_var",
        what: `expected the name of the variable holding the token, found ${
          describe(bearer, "toml")
        }`,
      });
    }
    headers["Authorization"] = `Bearer \${${bearer}}`;
  }
  return ok(headers);
}
