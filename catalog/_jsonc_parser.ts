// Private to catalog/: Microsoft's JSONC scanner (the one VS Code reads its
// own mcp.json with), pinned here rather than in an import map, so that the
// library loads from a checkout or a URL without the project's deno.json.
// Its kinds are const enums in its declarations but plain objects at run
// time; they are taken from the module so that no number is copied here.

import * as jsonc from "npm:jsonc-parser@3.3.1";

export const createScanner: typeof jsonc.createScanner = jsonc.createScanner;

type Kinds = Readonly<Record<string, number>>;
const runtime = jsonc as unknown as { SyntaxKind: Kinds; ScanError: Kinds };

/** The token kinds the catalog looks at, as the scanner numbers them. */
export const SyntaxKind = {
  EOF: runtime.SyntaxKind["EOF"],
  Trivia: runtime.SyntaxKind["Trivia"],
  LineBreakTrivia: runtime.SyntaxKind["LineBreakTrivia"],
  LineCommentTrivia: runtime.SyntaxKind["LineCommentTrivia"],
  BlockCommentTrivia: runtime.SyntaxKind["BlockCommentTrivia"],
  CommaToken: runtime.SyntaxKind["CommaToken"],
  CloseBraceToken: runtime.SyntaxKind["CloseBraceToken"],
  CloseBracketToken: runtime.SyntaxKind["CloseBracketToken"],
} as const;

/** The scan error of a block comment that never ends. */
export const UNEXPECTED_END_OF_COMMENT: number | undefined = runtime.ScanError[
  "UnexpectedEndOfComment"
];
