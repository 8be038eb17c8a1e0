/**
 * The source line a diagnostic is about, with a marker under its span: what
 * `deno check` prints under a message, drawn the same, made once for the checker's
 * diagnostics and the runner's own import diagnostics alike. Pure; shared by
 * the checker's process and the host.
 *
 * @module
 */

/** The most characters of a source line an excerpt shows; a longer line is cut around the column. */
export const MAX_EXCERPT_CHARS = 160;

const ELLIPSIS = "…";

/**
 * Two lines: the source line (cut to {@linkcode MAX_EXCERPT_CHARS} around the
 * column, each cut marked with an ellipsis) and, under it, the marker of the
 * span from the 1-based `column` for `length` characters (at most to the end
 * of the line), drawn as `deno check` draws it: `^` under one character, `~`
 * under each of a longer span. Tabs before the column stay tabs in the marker
 * line, so the marker stays under its place however tabs are shown.
 *
 * @example A marker under a misspelled field
 * ```ts ignore
 * excerpt("export default r.txt;", 18, 3); // "export default r.txt;\n                 ~~~"
 * ```
 */
export function excerpt(lineText: string, column: number, length: number): string {
  const text = lineText.trimEnd();
  let from = Math.max(0, Math.min(column - 1, text.length));
  let span = Math.max(1, Math.min(length, text.length - from));
  let shown = text;
  let lead = "";
  if (text.length > MAX_EXCERPT_CHARS) {
    const start = Math.max(
      0,
      Math.min(from - Math.floor(MAX_EXCERPT_CHARS / 3), text.length - MAX_EXCERPT_CHARS),
    );
    const end = start + MAX_EXCERPT_CHARS;
    lead = start > 0 ? ELLIPSIS : "";
    shown = `${lead}${text.slice(start, end)}${end < text.length ? ELLIPSIS : ""}`;
    from = from - start;
    span = Math.max(1, Math.min(span, MAX_EXCERPT_CHARS - from));
  }
  const before = shown.slice(0, lead.length + from).replace(/[^\t]/g, " ");
  return `${shown}\n${before}${span === 1 ? "^" : "~".repeat(span)}`;
}
