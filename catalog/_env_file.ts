// Private to catalog/: the env files VS Code's `envFile` names, in the dotenv
// form: `NAME=value` lines, `export ` allowed before the name, `#` comments,
// values bare (an inline ` #` starts a comment), in single quotes (as
// written) or in double quotes (with \n, \t, \" and \\ escapes). Values are
// taken as written: nothing in them expands.

import { err, ok, type Result } from "../codec/result.ts";

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
