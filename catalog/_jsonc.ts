// Private to catalog/: JSON with comments and trailing commas, as VS Code
// writes its mcp.json. The JSONC scanner finds the comments and the commas
// that close nothing; they become spaces (a comment's line breaks stay), so
// that the strict reader that follows (exact integers, bounded nesting,
// repeated keys refused) reports every position as it is in the file.

import { createScanner, SyntaxKind, UNEXPECTED_END_OF_COMMENT } from "./_jsonc_parser.ts";

/** A JSONC text made strict JSON, or the offset of a comment that never ends. */
export type Strict = { ok: true; text: string } | { ok: false; offset: number; reason: string };

/** Blanks the comments and trailing commas of a JSONC text, keeping every offset. */
export function strictJson(text: string): Strict {
  const scanner = createScanner(text, false);
  const blanks: [number, number][] = [];
  let comma: number | undefined;
  for (let kind: number = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    const offset = scanner.getTokenOffset();
    const length = scanner.getTokenLength();
    if (kind === SyntaxKind.BlockCommentTrivia || kind === SyntaxKind.LineCommentTrivia) {
      if (scanner.getTokenError() === UNEXPECTED_END_OF_COMMENT) {
        return { ok: false, offset, reason: "a /* comment is never closed; close it with */" };
      }
      blanks.push([offset, offset + length]);
      continue;
    }
    if (kind === SyntaxKind.Trivia || kind === SyntaxKind.LineBreakTrivia) continue;
    if (
      comma !== undefined &&
      (kind === SyntaxKind.CloseBraceToken || kind === SyntaxKind.CloseBracketToken)
    ) {
      blanks.push([comma, comma + 1]);
    }
    comma = kind === SyntaxKind.CommaToken ? offset : undefined;
  }
  if (blanks.length === 0) return { ok: true, text };
  let out = "";
  let from = 0;
  for (const [start, end] of blanks) {
    out += text.slice(from, start) + text.slice(start, end).replace(/[^\r\n]/g, " ");
    from = end;
  }
  return { ok: true, text: out + text.slice(from) };
}
