// Private to catalog/: the env files VS Code's `envFile` names, found and
// read for an entry, in the dotenv
// form: `NAME=value` lines, `export ` allowed before the name, `#` comments,
// values bare (an inline ` #` starts a comment), in single quotes (as
// written) or in double quotes (with \n, \t, \" and \\ escapes). Values are
// taken as written: nothing in them expands.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { CatalogOptions } from "./types.ts";
import { expand, type Variables, withheld } from "./_expand.ts";
import type { Problem } from "./_fields.ts";
import { describe, type Syntax } from "./_text.ts";

const LINE =
  /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(?:"((?:[^"\\]|\\[\s\S])*)"|'([^']*)'|([^\r\n]*?))\s*(?:#.*)?$/;
const ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t" };

/** The variables of an env file's text, or the first line that is not one, 1-based. */
export function parseEnvFile(text: string): Result<Record<string, string>, number> {
  const env: Record<string, string> = Object.create(null);
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (/^\s*(?:#.*)?$/.test(line)) continue;
    const match = LINE.exec(line);
    if (match === null) return err(index + 1);
    const [, name = "", double, single, bare] = match;
    env[name] = double !== undefined
      ? double.replace(/\\([\s\S])/g, (_, char: string) => ESCAPES[char] ?? char)
      : single ?? (bare ?? "").trim();
  }
  return ok(env);
}

// An entry's env file: its path expanded (only ${workspaceFolder} and the
// variables allowed) and resolved against the project folder, then read.
export function readEnvFile(
  value: unknown,
  variables: Variables | undefined,
  reader: CatalogOptions["envFile"],
  syntax: Syntax,
): Result<{ path?: string; env: Record<string, string>; withheld: string[] }, Problem> {
  const key = "envFile";
  if (typeof value !== "string" || value === "") {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected the path of an env file, found ${describe(value, syntax)}`,
    });
  }
  if (variables === undefined) {
    return err({
      kind: "unsupported_entry",
      key,
      what: "an env file is read only where variables expand: read the file with openCatalog, " +
        "or give readCatalog options.env and options.envFile",
    });
  }
  const hidden = withheld({ name: "x", command: value }, variables);
  if (hidden.length > 0) return ok({ env: {}, withheld: hidden });
  const expanded = expand(key, value, variables);
  if (!expanded.ok) return expanded;
  const folder = variables.workspaceFolder;
  const path = expanded.value.startsWith("/") || /^[A-Za-z]:[\\/]/.test(expanded.value) ||
      folder === undefined
    ? expanded.value
    : `${folder.replace(/[\\/]+$/, "")}/${expanded.value}`;
  if (reader === undefined) {
    return err({
      kind: "unsupported_entry",
      key,
      what: `the env file ${quote(path)} cannot be read here; openCatalog reads it, ` +
        "readCatalog takes options.envFile",
    });
  }
  const text = reader(path);
  if (!text.ok) {
    return err({
      kind: "invalid_entry",
      key,
      what: `cannot read the env file ${quote(path)} (${text.error}); check the path`,
    });
  }
  const env = parseEnvFile(text.value);
  if (!env.ok) {
    return err({
      kind: "invalid_entry",
      key,
      what: `the env file ${quote(path)} has a line that is not NAME=value (line ${env.error})`,
    });
  }
  return ok({ path, env: env.value, withheld: [] });
}
