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
import { describe } from "./_text.ts";

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
  if (entry["env_vars"] !== undefined) out["inherit_env"] = entry["env_vars"];
  if (entry["enabled"] !== undefined) {
    if (typeof entry["enabled"] !== "boolean") {
      return err({
        kind: "invalid_entry",
        key: "enabled",
        what: `expected true or false, found ${describe(entry["enabled"], "toml")}`,
      });
    }
    out["disabled"] = !entry["enabled"];
  }
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
