// Private to catalog/: the variables the JSON configuration files of other
// tools write in their values (`${VAR}` and `${env:VAR}` as Claude Code and
// VS Code do, `${workspaceFolder}`, `${userHome}`), expanded from the
// harness's environment; and, where no environment was given, the refusal
// that says what to write instead.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isRemote, type ServerSpec } from "../spec/mod.ts";
import type { Problem } from "./_fields.ts";
import type { CatalogOptions } from "./types.ts";
import type { OAuthSettings } from "../spec/oauth.ts";
import { catalogOAuthKey } from "./_oauth.ts";

/** Where the values of variables come from. */
export type Variables = {
  /** A variable of the harness's environment, `undefined` when unset. */
  env: (name: string) => string | undefined;
  /** What `${workspaceFolder}` stands for: the folder the configuration belongs to. */
  workspaceFolder?: string;
};

const SUBSTITUTION = /\$\{([^}]*)\}/;
const SUBSTITUTIONS = /\$\{([^}]*)\}/g;
const WHOLE_SUBSTITUTION = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;
const VARIABLE = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Expands every variable of a spec's command, args, cwd and env values, or
 * of a remote spec's URL, header values and sign-in settings (a client
 * secret, say: a catalog never holds one).
 */
export function expandSpec(spec: ServerSpec, variables: Variables): Result<ServerSpec, Problem> {
  if (isRemote(spec)) {
    const url = expand("url", spec.url, variables);
    if (!url.ok) return url;
    const expanded: ServerSpec = { ...spec, url: url.value };
    if (spec.headers !== undefined) {
      const headers = expandRecord("headers", spec.headers, variables);
      if (!headers.ok) return headers;
      expanded.headers = headers.value;
    }
    if (spec.oauth !== undefined) {
      const oauth: Record<string, unknown> = { ...spec.oauth };
      for (const [name, value] of Object.entries(oauth)) {
        if (typeof value !== "string") continue;
        const done = expand(`oauth.${catalogOAuthKey(name)}`, value, variables);
        if (!done.ok) return done;
        oauth[name] = done.value;
      }
      expanded.oauth = oauth as OAuthSettings;
    }
    return ok(expanded);
  }
  const command = expand("command", spec.command, variables);
  if (!command.ok) return command;
  const expanded: ServerSpec = { ...spec, command: command.value };
  if (spec.args !== undefined) {
    const args: string[] = [];
    for (const arg of spec.args) {
      const value = expand("args", arg, variables);
      if (!value.ok) return value;
      args.push(value.value);
    }
    expanded.args = args;
  }
  if (spec.env !== undefined) {
    const env = expandRecord("env", spec.env, variables);
    if (!env.ok) return env;
    expanded.env = env.value;
  }
  if (spec.cwd !== undefined) {
    const cwd = expand("cwd", spec.cwd, variables);
    if (!cwd.ok) return cwd;
    expanded.cwd = cwd.value;
  }
  return ok(expanded);
}

// The values of a record expanded, in a record without a prototype.
function expandRecord(
  key: string,
  record: Readonly<Record<string, string>>,
  variables: Variables,
): Result<Record<string, string>, Problem> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, raw] of Object.entries(record)) {
    const value = expand(key, raw, variables);
    if (!value.ok) return value;
    out[name] = value.value;
  }
  return ok(out);
}

function expand(key: string, text: string, variables: Variables): Result<string, Problem> {
  let problem: Problem | undefined;
  const value = text.replace(SUBSTITUTIONS, (whole, inner: string) => {
    if (problem !== undefined) return whole;
    if (inner === "workspaceFolder") {
      if (variables.workspaceFolder !== undefined) return variables.workspaceFolder;
      problem = {
        kind: "unsupported_entry",
        key,
        what: `${
          quote(whole)
        } needs the folder the file belongs to, which is not known here; write the path itself`,
      };
      return whole;
    }
    const name = inner === "userHome" ? "HOME" : VARIABLE.exec(inner)?.[1];
    if (name !== undefined) {
      const found = variables.env(name);
      if (found !== undefined) return found;
      problem = {
        kind: "invalid_entry",
        key,
        what: `${
          quote(whole)
        } names the variable ${name}, which is not set in the harness's environment; set it, or write the value itself`,
      };
      return whole;
    }
    const input = /^input:(.+)$/.exec(inner)?.[1];
    problem = {
      kind: "unsupported_entry",
      key,
      what: input === undefined
        ? `unknown variable ${
          quote(whole)
        }; write the value itself, or \${env:NAME} for a variable of the harness's environment`
        : `${quote(whole)} asks VS Code to prompt for input ${
          quote(input)
        }, which only VS Code can do; write \${env:NAME} and set NAME in the harness's environment`,
    };
    return whole;
  });
  // What the expanded value may hold (no NUL, for one) is the spec's rule, judged after.
  return problem !== undefined ? err(problem) : ok(value);
}

/** Where no environment was given: refuses the first value holding a variable. */
export function refuseSubstitution(spec: ServerSpec): Problem | undefined {
  const found = (key: string, value: string): Problem => ({
    kind: "unsupported_entry",
    key,
    what: `variable substitution is not supported, found ${quote(value)}; write the value itself`,
  });
  if (isRemote(spec)) {
    if (SUBSTITUTION.test(spec.url)) return found("url", spec.url);
    for (const value of Object.values(spec.headers ?? {})) {
      if (SUBSTITUTION.test(value)) return found("headers", value);
    }
    for (const [name, value] of Object.entries(spec.oauth ?? {})) {
      if (typeof value === "string" && SUBSTITUTION.test(value)) {
        return found(`oauth.${catalogOAuthKey(name)}`, value);
      }
    }
    return undefined;
  }
  if (SUBSTITUTION.test(spec.command)) return found("command", spec.command);
  for (const arg of spec.args ?? []) if (SUBSTITUTION.test(arg)) return found("args", arg);
  if (spec.cwd !== undefined && SUBSTITUTION.test(spec.cwd)) return found("cwd", spec.cwd);
  for (const [name, value] of Object.entries(spec.env ?? {})) {
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

/** The variables of a reading's options: its environment and workspace folder, if given. */
export function variablesOf(
  options: Pick<CatalogOptions, "env" | "workspaceFolder">,
): Variables | undefined {
  const env = options.env;
  if (env === undefined && options.workspaceFolder === undefined) return undefined;
  const lookup = typeof env === "function"
    ? env
    : (name: string) => env !== undefined && Object.hasOwn(env, name) ? env[name] : undefined;
  const variables: Variables = { env: lookup };
  if (options.workspaceFolder !== undefined) variables.workspaceFolder = options.workspaceFolder;
  return variables;
}
