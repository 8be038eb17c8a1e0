// Private to catalog/: an entry's `roots` (`roots = ["./src", "file:///srv"]`,
// or tables `{ uri, name }`), read onto its spec's `roots` as `file:` URIs;
// whether each may be served is the spec's own rule (`checkSpec`).

import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { err, ok, type Result } from "../codec/result.ts";
import type { Problem } from "./_fields.ts";
import { describe, type Syntax } from "./_text.ts";

/** A URI's scheme, as RFC 3986 spells one: a letter, then letters, digits, `+`, `-`, `.`. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * An entry's `roots`: each a path (absolute, or relative to the catalog's
 * folder) or a `file:` URI, or a table `{ uri, name }`; paths become `file:`
 * URIs here, so the spec's own check judges URIs only.
 */
export function readRoots(
  value: unknown,
  folder: string | undefined,
  syntax: Syntax,
): Result<{ uri: string; name?: string }[], Problem> {
  const wrong = (what: string): Result<never, Problem> =>
    err({ kind: "invalid_entry", key: "roots", what });
  if (!Array.isArray(value)) {
    return wrong(`expected a list of paths or file: URIs, found ${describe(value, syntax)}`);
  }
  const roots: { uri: string; name?: string }[] = [];
  for (const [index, item] of value.entries()) {
    const table = typeof item === "object" && item !== null && !Array.isArray(item);
    const given = table ? (item as Record<string, unknown>)["uri"] : item;
    const name = table ? (item as Record<string, unknown>)["name"] : undefined;
    if (typeof given !== "string" || given === "") {
      return wrong(
        `root ${index} is ${describe(item, syntax)}; expected a path, a file: URI, ` +
          "or a table with a uri and a name",
      );
    }
    if (name !== undefined && typeof name !== "string") {
      return wrong(`root ${index}'s name is ${describe(name, syntax)}, not a string`);
    }
    const stray = table
      ? Object.keys(item as Record<string, unknown>).find((key) => key !== "uri" && key !== "name")
      : undefined;
    if (stray !== undefined) {
      return wrong(
        `root ${index} has the unknown field ${JSON.stringify(stray)}; ` +
          "the fields are uri and name",
      );
    }
    let uri = given;
    if (!SCHEME.test(given)) {
      if (!isAbsolute(given) && folder === undefined) {
        return wrong(
          `root ${index} is the relative path ${JSON.stringify(given)}, and this text has no ` +
            "folder to resolve it against; write an absolute path or a file: URI, or give " +
            "workspaceFolder",
        );
      }
      uri = pathToFileURL(isAbsolute(given) ? given : resolve(folder!, given)).href;
    }
    roots.push(typeof name === "string" ? { uri, name } : { uri });
  }
  return ok(roots);
}
