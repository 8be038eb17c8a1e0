/**
 * Diagnostics that help: a post-processing of the type checker's diagnostics,
 * whichever checker made them. Host paths become paths relative to the
 * program (`./mcp/everything.ts`), and a name a program imports or reads
 * from a module that does not export it gets the closest exports of that
 * module (`did you mean get_sum?`), or the list of them when none is close.
 *
 * @module
 */

import { closestNames } from "../../codegen/names.ts";
import type { Diagnostic } from "../checker/protocol.ts";

/** The most exports a diagnostic lists when none is close to the name asked for. */
export const MAX_LISTED_EXPORTS = 12;

/** What {@linkcode explainDiagnostics} knows of the run. */
export type ExplainContext = {
  /** Each module segment mapped to the names its module exports. */
  exports: ReadonlyMap<string, readonly string[]>;
  /** Host locations of the build root (URL and path forms), each shown as `./`. */
  hostRoots: readonly string[];
};

// A build root the runner made, in any form a checker may print it.
const LOOM_ROOT = /(?:file:\/\/)?\/[^\s"'`]*?\/loom-run-[^/\s"'`]+\/(?:root\/)?/g;
const IMPORT_TYPE = /typeof import\("([^"]+)", \{ with: \{ "resolution-mode": "import" \} \}\)/g;
const NO_MEMBER =
  /^(?:Module )?'"\.\/mcp\/([^"]+)\.ts"' has no exported member (?:named )?'([^']+)'\.(?: Did you mean '[^']+'\?)?$/;
const NO_PROPERTY =
  /^Property '([^']+)' does not exist on type 'typeof import\("\.\/mcp\/([^"]+)\.ts"\)'\.(?: Did you mean '[^']+'\?)?$/;

/** Removes every host location of the build root from `text`. */
export function unrootText(text: string, hostRoots: readonly string[]): string {
  let out = text;
  for (const root of [...hostRoots].sort((a, b) => b.length - a.length)) {
    if (root.length > 1) out = out.replaceAll(root, "./");
  }
  return out.replace(LOOM_ROOT, "./").replace(IMPORT_TYPE, 'typeof import("$1")');
}

/**
 * Rewrites diagnostics for the model that reads them: no host path anywhere,
 * and a missing export named with the closest exports of its module.
 *
 * @example Suggest the export a guess meant
 * ```ts ignore
 * const [shown] = explainDiagnostics([{
 *   file: "program.ts", line: 1, column: 10,
 *   message: `'"./mcp/everything.ts"' has no exported member named 'getSum'.`,
 * }], { exports: new Map([["everything", ["get_sum", "echo"]]]), hostRoots: [] });
 * // shown.message: 'Module "./mcp/everything.ts" has no export "getSum"; did you mean get_sum?'
 * ```
 */
export function explainDiagnostics(
  diagnostics: readonly Diagnostic[],
  context: ExplainContext,
): Diagnostic[] {
  const unroot = <T extends { file: string; message: string }>(place: T): T => ({
    ...place,
    file: unrootText(place.file, context.hostRoots).replace(/^\.\//, ""),
    message: unrootText(place.message, context.hostRoots),
  });
  return diagnostics.map((diagnostic) => {
    const out = unroot(diagnostic);
    if (out.related !== undefined) out.related = out.related.map(unroot);
    const member = NO_MEMBER.exec(out.message);
    const property = member === null ? NO_PROPERTY.exec(out.message) : null;
    const segment = member?.[1] ?? property?.[2];
    const name = member?.[2] ?? property?.[1];
    if (segment !== undefined && name !== undefined) {
      out.message = missingExport(segment, name, context.exports.get(segment) ?? []);
      // TypeScript's related place of a suggestion it made: the message now says more.
      delete out.related;
    }
    return out;
  });
}

function missingExport(segment: string, name: string, exports: readonly string[]): string {
  const head = `Module "./mcp/${segment}.ts" has no export "${name}"`;
  const close = closestNames(name, exports);
  if (close.length > 0) return `${head}; did you mean ${close.join(" or ")}?`;
  if (exports.length === 0) return `${head}; it exports nothing`;
  const shown = exports.slice(0, MAX_LISTED_EXPORTS).join(", ");
  const more = exports.length > MAX_LISTED_EXPORTS
    ? ` and ${exports.length - MAX_LISTED_EXPORTS} more`
    : "";
  return `${head}; its exports are ${shown}${more}`;
}
