/**
 * Finds every module a code-mode program names, with TypeScript's own parser:
 * static imports and re-exports (`import type` included), dynamic `import()`
 * with a literal specifier, type-level `import("...")`, and the comment
 * directives that make a checker read a file (`/// <reference ...>`, and
 * `@ts-types`, `@deno-types`, `@jsxImportSource` where Deno honours them).
 *
 * The parser is the one the checker then runs, so what the scan sees is what
 * the compiler sees: a regular expression, a hashbang or a template cannot
 * hide an import from it. It gives early, precise messages; the checker's
 * virtual host and the sandbox's read permission are what enforce the build
 * root.
 *
 * @module
 */

import "./_no_node_system.ts";
import ts from "npm:typescript@6.0.3";
import { parse } from "./_host.ts";
import type { ImportProblem, ImportScan, NamedImport } from "./protocol.ts";

export type { ImportProblem, ImportScan, NamedImport };

const PRAGMA = /@(?:ts-types|deno-types|jsxImportSource(?:Types)?)\b/;
const TRIPLE_SLASH = /^\/\/\/\s*<(?:reference|amd-module|amd-dependency)\b/;

function literalText(node: ts.Node | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

/**
 * Scans a program's source for the modules it names and the directives the
 * runner refuses. A dynamic `import()` whose specifier is not a string
 * literal is a problem: the runner must know every module before it runs.
 */
export function scanImports(source: string): ImportScan {
  const file = parse("/sandbox/program.ts", source);
  const imports: NamedImport[] = [];
  const problems: ImportProblem[] = [];
  const at = (offset: number): { line: number; column: number } => {
    const place = file.getLineAndCharacterOfPosition(offset);
    return { line: place.line + 1, column: place.character + 1 };
  };
  const named = (node: ts.Node): void => {
    const specifier = literalText(node);
    if (specifier !== undefined) imports.push({ specifier, ...at(node.getStart(file)) });
  };
  const directive = (start: number, end: number): void => {
    const text = source.slice(start, end);
    if (!TRIPLE_SLASH.test(text) && !PRAGMA.test(text)) return;
    problems.push({
      ...at(start),
      message: `Cannot run a program with the directive ${
        JSON.stringify(text.trim().slice(0, 80))
      }: remove it; a program may name modules only through imports`,
    });
  };
  const comments = (offset: number): void => {
    for (const range of ts.getLeadingCommentRanges(source, offset) ?? []) {
      directive(range.pos, range.end);
    }
  };
  const seen = new Set<number>();
  const leading = (node: ts.Node): void => {
    if (seen.has(node.pos)) return;
    seen.add(node.pos);
    comments(node.pos);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      leading(node);
      if (node.moduleSpecifier !== undefined) named(node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) {
        problems.push({
          ...at(node.moduleReference.getStart(file)),
          message: "Cannot run a program with import = require(): use an import statement",
        });
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      leading(node);
      const argument = node.arguments[0];
      if (literalText(argument) !== undefined) named(argument as ts.Node);
      else {
        problems.push({
          ...at(node.getStart(file)),
          message: "Cannot run a program with a dynamic import() of a computed specifier: " +
            "import modules with a string literal so the runner can check them before running",
        });
      }
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) named(argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  // Comments before the first statement hold the file's directives; the end
  // of file token holds those of a file with no statement.
  comments(0);
  seen.add(0);
  for (const statement of file.statements) leading(statement);
  leading(file.endOfFileToken);
  ts.forEachChild(file, visit);
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { imports, problems };
}
