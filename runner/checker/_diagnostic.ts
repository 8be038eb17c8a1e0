/**
 * One TypeScript diagnostic as the runner reports it: its message as
 * `deno check` prints it, its code, the source line with a marker under its
 * span, TypeScript's related information (`The expected type comes from
 * property 'b' ...`), and, where a program uses a global the world leaves
 * out, the reason it is not there instead of a guess at another name.
 *
 * @module
 */

import "./_no_node_system.ts";
import ts from "npm:typescript@6.0.3";
import { excerpt as excerptOf } from "./_excerpt.ts";
import { displayName } from "./_host.ts";
import type { Diagnostic, RelatedInformation } from "./protocol.ts";
import { missingGlobalReason } from "./_world.ts";

/** The most related places one diagnostic carries. */
export const MAX_RELATED_INFORMATION = 4;

/** "Cannot find name", with or without a hint or a suggestion, and "only refers to a type". */
const NAME_CODES = new Set([2304, 2552, 2580, 2581, 2582, 2584, 2591, 2592, 2593, 2693]);
/** "Property does not exist on type", with or without a suggestion, and the index form. */
const PROPERTY_CODES = new Set([2339, 2551, 7017]);
const GLOBAL_SCOPE = /'(?:WorkerGlobalScope & )?typeof globalThis'/;
const SUGGESTION = / Did you mean '[^']*'\?$/;

/** The message chain's lines trimmed and joined by spaces, as `deno check` prints it. */
function flatten(message: string | ts.DiagnosticMessageChain): string {
  return ts.flattenDiagnosticMessageText(message, "\n")
    .split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" ");
}

type Place = { file: string; line: number; column: number; excerpt: string };

function placeOf(file: ts.SourceFile, start: number, length: number | undefined): Place {
  const at = file.getLineAndCharacterOfPosition(start);
  const lineStart = file.getLineStarts()[at.line] ?? 0;
  const lineEnd = file.getLineEndOfPosition(start);
  return {
    file: displayName(file.fileName),
    line: at.line + 1,
    column: at.character + 1,
    excerpt: excerptOf(file.text.slice(lineStart, lineEnd), at.character + 1, length ?? 1),
  };
}

/** The global a diagnostic says is missing, if it is one the world leaves out on purpose. */
function missingGlobal(diagnostic: ts.Diagnostic, message: string): string | undefined {
  const { file, start, length } = diagnostic;
  if (file === undefined || start === undefined || length === undefined) return undefined;
  const named = NAME_CODES.has(diagnostic.code);
  if (!named && !(PROPERTY_CODES.has(diagnostic.code) && GLOBAL_SCOPE.test(message))) {
    return undefined;
  }
  const name = /([A-Za-z_$][\w$]*)$/.exec(file.text.slice(start, start + length))?.[1];
  return name !== undefined && missingGlobalReason(name) !== undefined ? name : undefined;
}

/**
 * One diagnostic at the 1-based line and column of its start
 * (`program.ts:1:1` when it has no place), with its code, excerpt and
 * related places.
 */
export function toDiagnostic(diagnostic: ts.Diagnostic): Diagnostic {
  let message = flatten(diagnostic.messageText);
  const hidden = missingGlobal(diagnostic, message);
  let related = diagnostic.relatedInformation ?? [];
  if (hidden !== undefined) {
    // A suggestion of another global would lead away from the reason, and
    // "no index signature" would hide that the name is the problem.
    const head = diagnostic.code === 7017
      ? `Property '${hidden}' does not exist on type 'typeof globalThis'`
      : message.replace(SUGGESTION, "").replace(/\.$/, "");
    message = `${head}: ${missingGlobalReason(hidden)}`;
    related = [];
  }
  const { file, start } = diagnostic;
  if (file === undefined || start === undefined) {
    return { file: "program.ts", line: 1, column: 1, message, code: diagnostic.code };
  }
  const { excerpt, ...at } = placeOf(file, start, diagnostic.length);
  const out: Diagnostic = { ...at, message, code: diagnostic.code, excerpt };
  const places: RelatedInformation[] = [];
  for (const each of related.slice(0, MAX_RELATED_INFORMATION)) {
    const text = flatten(each.messageText);
    if (each.file === undefined || each.start === undefined) continue;
    const { excerpt, ...at } = placeOf(each.file, each.start, each.length);
    places.push({ ...at, message: text, excerpt });
  }
  if (places.length > 0) out.related = places;
  return out;
}
