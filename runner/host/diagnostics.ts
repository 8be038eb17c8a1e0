/**
 * A rejected program's diagnostics as text for a model or a person to read:
 * each with its place, its code, its whole message, the source line with a
 * marker under the column, and the places it refers to. Nothing is cut: a
 * long message is wrapped at word boundaries when a width is asked for.
 *
 * @module
 */

import type { Diagnostic, RelatedInformation } from "../checker/protocol.ts";

/** How {@linkcode formatDiagnostics} lays text out. */
export type FormatOptions = {
  /**
   * Wrap messages at this many columns, at spaces, never cutting a word, each
   * further line indented by two spaces more than the first (excerpts are
   * indented four, and never wrapped). No wrapping by default.
   */
  width?: number;
};

/** The words of `text` in lines of at most `width` columns (a longer word has a line of its own). */
function wrap(text: string, width: number | undefined, indent: string): string {
  if (width === undefined) return text;
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join("\n");
}

function indented(excerpt: string | undefined, indent: string): string[] {
  return excerpt === undefined ? [] : excerpt.split("\n").map((line) => indent + line);
}

function place(at: Diagnostic | RelatedInformation): string {
  return `${at.file}:${at.line}:${at.column}`;
}

/**
 * Renders diagnostics, one block each:
 *
 * ```text
 * program.ts:2:12 - TS2322: Type 'string' is not assignable to type 'number'.
 *     const o: { b: number } = { b: "y" };
 *                                ^
 *   related: program.ts:2:12: The expected type comes from property 'b' ...
 *     const o: { b: number } = { b: "y" };
 *                ^
 * ```
 *
 * @example Show a rejected run to a model
 * ```ts
 * import { formatDiagnostics } from "@loom/mcp";
 * const text = formatDiagnostics([{
 *   file: "program.ts", line: 1, column: 7, code: 2322,
 *   message: "Type 'string' is not assignable to type 'number'.",
 *   excerpt: 'const n: number = "x";\n      ^',
 * }]);
 * console.log(text.split("\n")[0]); // program.ts:1:7 - TS2322: Type 'string' is not ...
 * ```
 */
export function formatDiagnostics(
  diagnostics: readonly Diagnostic[],
  options: FormatOptions = {},
): string {
  const { width } = options;
  if (width !== undefined && (!Number.isSafeInteger(width) || width < 20)) {
    throw new RangeError(
      `Cannot format diagnostics: width ${width} is not an integer of 20 or more`,
    );
  }
  const blocks = diagnostics.map((diagnostic) => {
    const code = diagnostic.code === undefined ? "" : `TS${diagnostic.code}: `;
    const lines = [
      wrap(`${place(diagnostic)} - ${code}${diagnostic.message}`, width, "  "),
      ...indented(diagnostic.excerpt, "    "),
    ];
    for (const related of diagnostic.related ?? []) {
      lines.push(
        wrap(`  related: ${place(related)}: ${related.message}`, width, "    "),
        ...indented(related.excerpt, "    "),
      );
    }
    return lines.join("\n");
  });
  return blocks.join("\n");
}
