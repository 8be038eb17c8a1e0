// Private to catalog/: the readers of one entry's fields. Each takes the parsed
// value and returns it typed (nothing for a key not written, whose default the
// spec says), or a Problem saying what was found and, where one exists, the
// line to write instead. What a value may hold is the spec's rule
// (`checkSpec`), judged once the entry is read; these say how to write it in
// the file's syntax.

import { isAbsolute } from "node:path";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isTimeoutMs } from "../settings/check.ts";
import { type CatalogErrorKind, MAX_CATALOG_TIMEOUT_MS } from "./types.ts";
import { assignment, describe, splitPlainWords, stringArray, type Syntax } from "./_text.ts";

/** What is wrong with one entry, before the file and table are added. */
export type Problem = { kind: CatalogErrorKind; key?: string; what: string };

// Portable variable names (POSIX): letters, digits, underscore, no leading digit.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHITESPACE = /\s/;

export function readCommand(
  value: unknown,
  args: readonly string[],
  syntax: Syntax,
): Result<string, Problem> {
  const key = "command";
  const example = assignment(key, '"npx"', syntax);
  if (value === undefined) {
    return err({
      kind: "invalid_entry",
      key,
      what: `missing; add the executable to run, such as ${example}`,
    });
  }
  if (typeof value !== "string") {
    const words = Array.isArray(value) && value.length > 0 &&
        value.every((word) => typeof word === "string")
      ? value as string[]
      : undefined;
    return err({
      kind: "invalid_entry",
      key,
      what: `expected a string naming the executable, found ${describe(value, syntax)}${
        words === undefined ? "" : `; write ${splitAdvice(words, args, syntax)}`
      }`,
    });
  }
  if (value.trim() === "") {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected the executable to run, found ${describe(value, syntax)}`,
    });
  }
  // An absolute path with spaces in it is one executable when the file is
  // there ("/Users/Jo Smith/bin/server"); anything else with spaces is a shell string.
  if (WHITESPACE.test(value) && !isFileAt(value)) {
    const words = splitPlainWords(value);
    return err({
      kind: "invalid_entry",
      key,
      what: `expected one executable, found a shell string (${
        quote(value)
      }); no shell runs it, so ${
        words === undefined
          ? "put the executable in command and each argument in its own element of args"
          : `write ${splitAdvice(words, args, syntax)}`
      }${
        isAbsolute(value)
          ? "; if it is one executable whose path holds spaces, no file is at that path"
          : ""
      }`,
    });
  }
  return ok(value);
}

// Whether an absolute path names a file here; false where it cannot be looked at.
function isFileAt(path: string): boolean {
  if (!isAbsolute(path)) return false;
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function splitAdvice(words: readonly string[], args: readonly string[], syntax: Syntax): string {
  const [command = "", ...rest] = words;
  const all = [...rest, ...args];
  const head = assignment("command", JSON.stringify(command), syntax);
  return all.length === 0 ? head : `${head} and ${assignment("args", stringArray(all), syntax)}`;
}

export function readArgs(value: unknown, syntax: Syntax): Result<string[] | undefined, Problem> {
  const key = "args";
  if (value === undefined) return ok(undefined);
  if (!Array.isArray(value)) {
    let fix = "";
    if (typeof value === "string") {
      const words = WHITESPACE.test(value) ? splitPlainWords(value) : [value];
      if (words !== undefined) fix = `; write ${assignment(key, stringArray(words), syntax)}`;
    }
    return err({
      kind: "invalid_entry",
      key,
      what: `expected an array of strings, found ${describe(value, syntax)}${fix}`,
    });
  }
  const args: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string") {
      const scalar = isScalar(item);
      return err({
        kind: "invalid_entry",
        key,
        what: `expected an array of strings, found ${describe(item, syntax)} at index ${index}${
          scalar ? `; quote it: ${JSON.stringify(String(item))}` : ""
        }`,
      });
    }
    args.push(item);
  }
  return ok(args);
}

export function readEnv(
  value: unknown,
  syntax: Syntax,
): Result<Record<string, string> | undefined, Problem> {
  const key = "env";
  if (value === undefined) return ok(undefined);
  // No prototype: a variable may be called __proto__ without touching one.
  const env: Record<string, string> = Object.create(null);
  if (!isTable(value)) {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected ${
        syntax === "toml" ? "a table" : "an object"
      } of strings by variable name, found ${describe(value, syntax)}`,
    });
  }
  for (const [name, item] of Object.entries(value)) {
    if (!ENV_NAME.test(name)) return err(envNameProblem(key, name));
    if (typeof item !== "string") {
      const scalar = isScalar(item);
      return err({
        kind: "invalid_entry",
        key,
        what: `expected a string for ${quote(name)}, found ${describe(item, syntax)}${
          scalar ? `; write ${assignment(name, JSON.stringify(String(item)), syntax)}` : ""
        }`,
      });
    }
    env[name] = item;
  }
  return ok(env);
}

export function readInheritEnv(
  value: unknown,
  syntax: Syntax,
): Result<string[] | undefined, Problem> {
  const key = "inherit_env";
  if (value === undefined) return ok(undefined);
  if (!Array.isArray(value)) {
    const fix = typeof value === "string" && ENV_NAME.test(value)
      ? `; write ${assignment(key, stringArray([value]), syntax)}`
      : "";
    return err({
      kind: "invalid_entry",
      key,
      what: `expected an array of variable names, found ${describe(value, syntax)}${fix}`,
    });
  }
  const names: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string") {
      return err({
        kind: "invalid_entry",
        key,
        what: `expected an array of variable names, found ${
          describe(item, syntax)
        } at index ${index}`,
      });
    }
    if (!ENV_NAME.test(item)) return err(envNameProblem(key, item));
    names.push(item);
  }
  return ok(names);
}

export function readPath(key: string, value: unknown, syntax: Syntax): Result<string, Problem> {
  if (typeof value !== "string") {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected a directory path, found ${describe(value, syntax)}`,
    });
  }
  return ok(value);
}

// A catalog's deadline is the spec's timeout rule, as a whole number of at most an hour.
export function readTimeout(key: string, value: unknown, syntax: Syntax): Result<number, Problem> {
  if (isTimeoutMs(value) && Number.isInteger(value) && value <= MAX_CATALOG_TIMEOUT_MS) {
    return ok(value);
  }
  const fix = typeof value === "string" && /^[1-9][0-9]{0,6}$/.test(value) &&
      Number(value) <= MAX_CATALOG_TIMEOUT_MS
    ? `; write ${assignment(key, value, syntax)}`
    : "";
  return err({
    kind: "invalid_entry",
    key,
    what:
      `expected a whole number of milliseconds from 1 to ${MAX_CATALOG_TIMEOUT_MS} (one hour), found ${
        describe(value, syntax)
      }${fix}`,
  });
}

function envNameProblem(key: string, name: string): Problem {
  return {
    kind: "invalid_entry",
    key,
    what: `invalid variable name ${
      quote(name)
    }: use letters, digits and underscores, not starting with a digit`,
  };
}

/** Whether a parsed value is a table (TOML) or an object (JSON). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}

// A number or boolean where a string was wanted: quoting it is the fix.
function isScalar(value: unknown): boolean {
  return typeof value === "number" || typeof value === "bigint" || typeof value === "boolean";
}
