// Private to catalog/: the variables the configuration files of other tools
// write in their values: `${VAR}` and `${env:VAR}` as Claude Code and VS Code
// do, with Claude Code's `${VAR:-default}` and `${VAR:?message}`,
// `${workspaceFolder}`, `${userHome}` and VS Code's `${input:id}`; expanded
// from the environment the reading was given, and only the variables it
// allows. Where no environment was given, the refusal says what to write
// instead.

import { basename, sep } from "node:path";
import { MAX_QUOTED_CHARS, printableLine, quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isRemote, type ServerSpec } from "../settings/mod.ts";
import type { Problem } from "./_fields.ts";
import { type CatalogOptions, MAX_EXPANDED_CHARS, type Substitution } from "./types.ts";
import type { OAuthSettings } from "../settings/oauth.ts";
import { catalogOAuthKey } from "./_oauth.ts";

/** Where the values of variables come from, and which of them may be read. */
export type Variables = {
  /** A variable of the harness's environment, `undefined` when unset. */
  env: (name: string) => string | undefined;
  /** The environment variables that may be read; every one when absent. */
  allow?: ReadonlySet<string>;
  /** What `${workspaceFolder}` stands for: the folder the configuration belongs to. */
  workspaceFolder?: string;
  /** The value of a VS Code input by its id, `undefined` when not given. */
  input: (id: string) => string | undefined;
  /** What the file says of each input it declares (its `description`), for messages. */
  inputs?: ReadonlyMap<string, string>;
};

const SUBSTITUTION = /\$\{([^}]*)\}/;
const SUBSTITUTIONS = /\$\{([^}]*)\}/g;
const WHOLE_SUBSTITUTION = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;
// `NAME`, `env:NAME`, then `:-default` or `:?message`.
const VARIABLE = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([\s\S]*))?$/;

// VS Code's and Cursor's predefined variables that read no environment
// variable: the project folder, its last segment, the path separator.
const FOLDER_VARIABLES: readonly string[] = ["workspaceFolder", "workspaceFolderBasename"];
const SEPARATOR_VARIABLES: readonly string[] = ["pathSeparator", "/"];
// What the other tools' variables this library cannot give do, by prefix.
const FOREIGN_VARIABLES: Readonly<Record<string, string>> = {
  "config:": "reads a VS Code setting, which only VS Code has",
  "command:": "runs a VS Code command, which only VS Code can",
  "file:": "reads a file into the value (Windsurf), which is not done here",
};

/** The environment variable a `${...}` reads, if it reads one. */
function variableOf(inner: string): string | undefined {
  if (FOLDER_VARIABLES.includes(inner) || SEPARATOR_VARIABLES.includes(inner)) return undefined;
  return inner === "userHome" ? "HOME" : VARIABLE.exec(inner)?.[1];
}

/** Every value of a spec that holds a `${...}`, with the variables each reads. */
export function substitutionsOf(spec: ServerSpec): Substitution[] {
  const found: Substitution[] = [];
  const look = (key: string, written: string) => {
    if (!SUBSTITUTION.test(written)) return;
    const variables = new Set<string>();
    for (const match of written.matchAll(SUBSTITUTIONS)) {
      const name = variableOf(match[1] ?? "");
      if (name !== undefined) variables.add(name);
    }
    found.push({ server: spec.name, key, written, variables: [...variables] });
  };
  if (isRemote(spec)) {
    look("url", spec.url);
    for (const [name, value] of Object.entries(spec.headers ?? {})) look(`headers.${name}`, value);
    return found;
  }
  look("command", spec.command);
  (spec.args ?? []).forEach((arg, index) => look(`args.${index}`, arg));
  for (const [name, value] of Object.entries(spec.env ?? {})) look(`env.${name}`, value);
  if (spec.cwd !== undefined) look("cwd", spec.cwd);
  return found;
}

/**
 * The variables of a spec that the reading may not read, in the order
 * written: those its values expand, and those it asks to inherit (which
 * would hand the harness's own values to its command).
 */
export function withheld(spec: ServerSpec, variables: Variables): string[] {
  const allow = variables.allow;
  if (allow === undefined) return [];
  const names = substitutionsOf(spec).flatMap((substitution) => substitution.variables);
  if (!isRemote(spec)) names.push(...(spec.inheritEnv ?? []));
  return [...new Set(names.filter((name) => !allow.has(name)))];
}

/**
 * What is left of the characters one entry's values may hold once expanded
 * (`MAX_EXPANDED_CHARS`): a variable written many times, or holding a large
 * value, cannot make a string the runtime refuses to build.
 */
export type Budget = { left: number };

/** A fresh budget for one entry's values. */
export function entryBudget(): Budget {
  return { left: MAX_EXPANDED_CHARS };
}

/**
 * Expands every variable of a spec's command, args, cwd and env values, or
 * of a remote spec's URL, header values and sign-in settings (a client
 * secret, say: a catalog never holds one), all within one budget.
 */
export function expandSpec(spec: ServerSpec, variables: Variables): Result<ServerSpec, Problem> {
  const budget = entryBudget();
  if (isRemote(spec)) {
    const url = expand("url", spec.url, variables, budget);
    if (!url.ok) return url;
    const expanded: ServerSpec = { ...spec, url: url.value };
    if (spec.headers !== undefined) {
      const headers = expandRecord("headers", spec.headers, variables, budget);
      if (!headers.ok) return headers;
      expanded.headers = headers.value;
    }
    if (spec.oauth !== undefined) {
      const oauth: Record<string, unknown> = { ...spec.oauth };
      for (const [name, value] of Object.entries(oauth)) {
        if (typeof value !== "string") continue;
        const done = expand(`oauth.${catalogOAuthKey(name)}`, value, variables, budget);
        if (!done.ok) return done;
        oauth[name] = done.value;
      }
      expanded.oauth = oauth as OAuthSettings;
    }
    return ok(expanded);
  }
  const command = expand("command", spec.command, variables, budget);
  if (!command.ok) return command;
  const expanded: ServerSpec = { ...spec, command: command.value };
  if (spec.args !== undefined) {
    const args: string[] = [];
    for (const arg of spec.args) {
      const value = expand("args", arg, variables, budget);
      if (!value.ok) return value;
      args.push(value.value);
    }
    expanded.args = args;
  }
  if (spec.env !== undefined) {
    const env = expandRecord("env", spec.env, variables, budget);
    if (!env.ok) return env;
    expanded.env = env.value;
  }
  if (spec.cwd !== undefined) {
    const cwd = expand("cwd", spec.cwd, variables, budget);
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
  budget: Budget,
): Result<Record<string, string>, Problem> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, raw] of Object.entries(record)) {
    const value = expand(key, raw, variables, budget);
    if (!value.ok) return value;
    out[name] = value.value;
  }
  return ok(out);
}

/**
 * Expands the variables of one value, taking its expanded length from
 * `budget` (one value's own when none is given). Expansion is one pass: a
 * value that holds `${...}` is not expanded again.
 */
export function expand(
  key: string,
  text: string,
  variables: Variables,
  budget: Budget = entryBudget(),
): Result<string, Problem> {
  let problem: Problem | undefined;
  budget.left -= text.length;
  const value = text.replace(SUBSTITUTIONS, (whole, inner: string) => {
    if (problem !== undefined) return whole;
    const expanded = expandOne(key, whole, inner, variables);
    if (!expanded.ok) {
      problem = expanded.error;
      return whole;
    }
    // Checked before the piece is kept, so the string built stays within the budget.
    budget.left -= expanded.value.length - whole.length;
    if (budget.left < 0) {
      problem = {
        kind: "invalid_entry",
        key,
        what: `its values hold more than ${MAX_EXPANDED_CHARS} characters once ${
          quote(whole)
        } and the other variables are expanded; check what the variables hold, or write the value itself`,
      };
      return whole;
    }
    return expanded.value;
  });
  // What the expanded value may hold (no NUL, for one) is the spec's rule, judged after.
  return problem !== undefined ? err(problem) : ok(value);
}

function expandOne(
  key: string,
  whole: string,
  inner: string,
  variables: Variables,
): Result<string, Problem> {
  if (SEPARATOR_VARIABLES.includes(inner)) return ok(sep);
  if (FOLDER_VARIABLES.includes(inner)) {
    const folder = variables.workspaceFolder;
    if (folder !== undefined) {
      return ok(inner === "workspaceFolder" ? folder : basename(folder));
    }
    return err({
      kind: "unsupported_entry",
      key,
      what: `${
        quote(whole)
      } needs the folder the file belongs to, which is not known here; write the path itself`,
    });
  }
  const input = inputOf(inner);
  if (input !== undefined) {
    const given = variables.input(input);
    if (given !== undefined) return ok(given);
    return err(inputProblem(key, whole, input, variables.inputs));
  }
  const parts = inner === "userHome" ? ["", "HOME"] : VARIABLE.exec(inner);
  if (parts === null) {
    const foreign = Object.keys(FOREIGN_VARIABLES).find((prefix) => inner.startsWith(prefix));
    return err({
      kind: "unsupported_entry",
      key,
      what: `${foreign === undefined ? "unknown variable " : ""}${quote(whole)}${
        foreign === undefined ? "" : ` ${FOREIGN_VARIABLES[foreign]}`
      }; write the value itself, or \${env:NAME} for a variable of the harness's environment`,
    });
  }
  const [, name = "", operator, operand = ""] = parts;
  const found = variables.env(name);
  if (operator === ":-" && (found === undefined || found === "")) return ok(operand);
  if (operator === ":?" && (found === undefined || found === "")) {
    return err({
      kind: "invalid_entry",
      key,
      what: `${quote(whole)}: ${name} is not set in the harness's environment${
        operand === ""
          ? ""
          : `: ${printableLine(operand.slice(0, MAX_QUOTED_CHARS))}${
            operand.length > MAX_QUOTED_CHARS ? "…" : ""
          }`
      }`,
    });
  }
  if (found !== undefined) return ok(found);
  return err({
    kind: "invalid_entry",
    key,
    what: `${
      quote(whole)
    } names the variable ${name}, which is not set in the harness's environment; set it, or write the value itself`,
  });
}

// The id of a VS Code `${input:id}`.
function inputOf(inner: string): string | undefined {
  return /^input:(.+)$/s.exec(inner)?.[1];
}

// The first VS Code input a value holds, as the problem of one not given.
function inputIn(key: string, value: string): Problem | undefined {
  for (const match of value.matchAll(SUBSTITUTIONS)) {
    const input = inputOf(match[1] ?? "");
    if (input !== undefined) return inputProblem(key, match[0], input, undefined);
  }
  return undefined;
}

// A VS Code input not given: what it is, and how to give it.
function inputProblem(
  key: string,
  whole: string,
  input: string,
  declared: ReadonlyMap<string, string> | undefined,
): Problem {
  const description = declared?.get(input);
  const option = /^[A-Za-z0-9_.-]+$/.test(input) ? input : quote(input);
  return {
    kind: "unsupported_entry",
    key,
    what:
      `${quote(whole)} is the VS Code input ${quote(input)}${
        description === undefined || description === "" ? "" : ` (${quote(description)})`
      }, which VS Code prompts for; give its value (loom-mcp: --input ${option}=VALUE; ` +
      `readCatalog and openCatalog: the inputs option)`,
  };
}

/** Where no environment was given: refuses the first value holding a variable. */
export function refuseSubstitution(spec: ServerSpec): Problem | undefined {
  const found = (key: string, value: string): Problem =>
    inputIn(key, value) ?? {
      kind: "unsupported_entry",
      key,
      what: `variable substitution is not supported, found ${quote(value)}; write the value itself`,
    };
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
    const input = inputIn("env", value);
    if (input !== undefined) return input;
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

/**
 * The variables of a reading's options: its environment, the variables it
 * allows, its workspace folder and inputs, if given; `undefined` when the
 * reading expands nothing at all.
 */
export function variablesOf(
  options: Pick<CatalogOptions, "env" | "workspaceFolder" | "expand" | "inputs">,
  declared?: ReadonlyMap<string, string>,
): Variables | undefined {
  const { env, expand: allowed, inputs } = options;
  if (
    env === undefined && options.workspaceFolder === undefined && allowed === undefined &&
    inputs === undefined
  ) {
    return undefined;
  }
  const lookup = typeof env === "function"
    ? env
    : (name: string) => env !== undefined && Object.hasOwn(env, name) ? env[name] : undefined;
  const variables: Variables = {
    env: lookup,
    input: (id) => inputs !== undefined && Object.hasOwn(inputs, id) ? inputs[id] : undefined,
  };
  if (allowed !== undefined) variables.allow = new Set(allowed.allow);
  if (options.workspaceFolder !== undefined) variables.workspaceFolder = options.workspaceFolder;
  if (declared !== undefined) variables.inputs = declared;
  return variables;
}
