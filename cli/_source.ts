// Private to cli/: where a command's servers come from. Either the --stdio
// commands (each split into argv here, never by a shell) or a catalog: the
// file given, or the first found in the usual places. What the catalog left
// out, renamed or found suspicious comes back as notes for the person.

import { basename } from "node:path";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ServerSpec } from "../spec/mod.ts";
import { type Catalog, isServerName, openCatalog } from "../catalog/mod.ts";
import type { Common } from "./_args.ts";

/** The servers of one invocation, where they came from, and what to tell about them. */
export type Source = {
  /** The catalog file read, or `--stdio`. */
  origin: string;
  specs: ServerSpec[];
  /** The catalog's report, when there was a catalog. */
  catalog?: Catalog;
};

/** Reads the servers of an invocation; the error is one line for a person. */
export async function serversOf(common: Common): Promise<Result<Source, string>> {
  if (common.stdio.length > 0) return stdioServers(common.stdio);
  const opened = await openCatalog(common.catalog, { strict: common.strict });
  if (!opened.ok) return err(opened.error.message);
  return ok({ origin: opened.value.file, specs: opened.value.servers, catalog: opened.value });
}

/** What a person should know about the catalog before anything boots, one line each. */
export function notes(source: Source): string[] {
  const catalog = source.catalog;
  if (catalog === undefined) return [];
  return [
    ...catalog.renamed.map(({ key, name }) =>
      `note: server ${quote(key)} is named ${name} here (its module is mcp/${name}.ts)`
    ),
    ...catalog.skipped.map((skipped) => `skipped: ${skipped.message}`),
    ...catalog.warnings.map((warning) => `warning: ${warning}`),
  ];
}

function stdioServers(
  entries: readonly { command: string; name?: string }[],
): Result<Source, string> {
  const specs: ServerSpec[] = [];
  const taken = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const words = splitWords(entry.command);
    if (!words.ok) return words;
    const [command, ...args] = words.value;
    if (command === undefined) return err(`--stdio ${quote(entry.command)} names no command`);
    let name = entry.name ?? nameFor(words.value, index);
    if (!isServerName(name)) {
      return err(
        `--name ${
          quote(name)
        } is not a server name: use lowercase letters, digits, _ and -, starting with a letter`,
      );
    }
    if (taken.has(name)) {
      if (entry.name !== undefined) return err(`--name ${quote(name)} is given twice; keep one`);
      name = `${name}_${index + 1}`;
    }
    taken.add(name);
    specs.push({
      name,
      command,
      args,
      env: {},
      inheritEnv: [],
      stderr: "tail",
      cwd: Deno.cwd(),
    });
  }
  return ok({ origin: "--stdio", specs });
}

// A name from the command: its package or script, without scope, version,
// extension or an "mcp-server-" prefix; "server" when nothing is left.
function nameFor(words: readonly string[], index: number): string {
  const subject = [...words].reverse().find((word) => !word.startsWith("-")) ?? "";
  const base = basename(subject.replace(/^(?:npm|jsr):/, "").replace(/(.)@[^/]*$/, "$1"))
    .replace(/\.[cm]?[jt]s$/, "")
    .toLowerCase()
    .replace(/^(?:mcp[-_])?server[-_]|[-_]mcp[-_]server$|[-_]?mcp$/g, "")
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^[^a-z]+|[_-]+$/g, "")
    .slice(0, 64);
  return isServerName(base) ? base : `server${index + 1}`;
}

/**
 * Splits a command into words the way a shell would for plain words, single
 * and double quotes, and backslash escapes; anything a shell would expand is
 * refused, since no shell runs it.
 */
export function splitWords(text: string): Result<string[], string> {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'" || char === '"') {
      const end = text.indexOf(char, i + 1);
      if (end === -1) return err(`--stdio ${quote(text)} has an unclosed ${char}; close it`);
      word = (word ?? "") +
        text.slice(i + 1, end).replace(char === '"' ? /\\(["\\])/g : /$^/, "$1");
      i = end;
    } else if (char === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else if ("$`|&;<>(){}*?".includes(char)) {
      return err(
        `--stdio ${quote(text)} holds ${quote(char)}, which only a shell understands; ` +
          `no shell runs it, so write the command and its arguments plainly`,
      );
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return ok(words);
}
