/**
 * Private to scripts/: rewrites the worker bundle's top-level function
 * declarations so that V8 compiles them when the module is compiled, not on
 * their first call, and Deno's code cache therefore holds their bytecode.
 *
 * Why: Deno caches a module's bytecode as it stands right after the module is
 * compiled, before it runs, so a function V8 compiles lazily (the default for
 * a declaration) is compiled again, from source, in every worker that calls
 * it. V8 compiles a function expression in parentheses eagerly (its "PIFE"
 * heuristic), and eagerly compiled bytecode is in the cache. Measured with 16
 * workers, each calling 300 functions of 86 KB of source once: 295 ms of CPU
 * with declarations, 228 ms with parenthesized expressions, 212 ms for 16
 * empty workers (BENCHMARKS.md, rows 2 and 6). Class methods stay lazy: V8 has
 * no eager form for them.
 *
 * Each declaration `function f(...) {...}` becomes
 * `var f = (function f(...) {...});`, moved to the top of the bundle: an
 * assignment there is as early as hoisting made the declaration (a function
 * expression reads none of its free variables until it is called), so every
 * use that worked before still does.
 *
 * @module
 */

import ts from "npm:typescript@6.0.3";

/** The bundle text with every top-level function declaration compiled eagerly. */
export function eagerFunctions(bundle: string): string {
  const source = ts.createSourceFile("bundle.js", bundle, ts.ScriptTarget.Latest, false);
  const hoisted: string[] = [];
  const cuts: Array<{ start: number; end: number }> = [];
  for (const statement of source.statements) {
    if (!ts.isFunctionDeclaration(statement) || statement.body === undefined) continue;
    const name = statement.name?.text;
    if (name === undefined) continue;
    const modifiers = statement.modifiers ?? [];
    if (modifiers.some((modifier) => modifier.kind !== ts.SyntaxKind.AsyncKeyword)) {
      throw new Error(`Cannot make function "${name}" eager: it has a modifier other than async`);
    }
    const start = statement.getStart(source);
    hoisted.push(`var ${name} = (${bundle.slice(start, statement.end)});`);
    cuts.push({ start, end: statement.end });
  }
  const first = source.statements[0];
  if (first === undefined) return bundle;
  const top = first.getStart(source);
  let out = bundle.slice(0, top) + hoisted.join("\n") + "\n";
  let at = top;
  for (const cut of cuts) {
    out += bundle.slice(at, cut.start);
    at = cut.end;
  }
  return out + bundle.slice(at);
}
