// Private to harness/: a tool's whole block, as describe() returns it: how to
// import it, then the type aliases its signature names (those they name in
// turn included), then its function as the module declares it: the full
// description and every parameter's notes in the doc comment, the signature
// with its types. Cut from the generated source itself, so it is what the
// type check will read, never a second rendering.
//
// The generator writes a module as a head and then one part per alias and
// per function, each part separated from the next by a blank line, which
// no part holds (its doc comments mark paragraphs with " *").

import type { Generated } from "../codegen/generate.ts";

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
const COMMENT_LINE = /^\s*(?:\/\*\*|\*)/;

/** Each part of the module after its head, by the name it exports. */
function partsOf(source: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of source.split("\n\n").slice(1)) {
    const code = part.split("\n").find((line) => !COMMENT_LINE.test(line)) ?? "";
    const name = /^export (?:function|type) ([A-Za-z_$][\w$]*)/.exec(code)?.[1];
    if (name !== undefined) parts.set(name, part.endsWith("\n") ? part : `${part}\n`);
  }
  return parts;
}

/** The names a part's code (not its comments) mentions. */
function mentions(part: string): Set<string> {
  const found = new Set<string>();
  for (const line of part.split("\n")) {
    if (COMMENT_LINE.test(line)) continue;
    // A line's trailing code after a member's `/** ... */` is still code.
    const code = line.replace(/\/\*\*.*?\*\//g, "");
    for (const match of code.matchAll(IDENTIFIER)) found.add(match[0]);
  }
  return found;
}

/** The block of the function `name` of `generated`, or undefined when it has none. */
export function toolBlock(generated: Generated, name: string): string | undefined {
  const parts = partsOf(generated.source);
  const own = parts.get(name);
  if (own === undefined || !generated.manifest.has(name)) return undefined;
  const needed = new Set<string>();
  const visit = (part: string): void => {
    for (const word of mentions(part)) {
      if (word === name || needed.has(word) || !generated.types.has(word)) continue;
      const alias = parts.get(word);
      if (alias === undefined) continue;
      needed.add(word);
      visit(alias);
    }
  };
  visit(own);
  const aliases = [...generated.types.keys()].filter((alias) => needed.has(alias))
    .map((alias) => parts.get(alias) as string);
  const using = `// import { ${name} } from "./${generated.moduleName}";\n`;
  return [using + (aliases[0] ?? own), ...aliases.slice(1), ...(aliases.length > 0 ? [own] : [])]
    .join("\n");
}
