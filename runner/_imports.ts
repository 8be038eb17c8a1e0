/**
 * Finds every module a code-mode program names, before anything runs: static
 * imports and re-exports, `import type`, dynamic `import()` with a literal
 * specifier, and the comment directives that make the type checker read a
 * file (`/// <reference ...>`, `@ts-types`, `@deno-types`, `@jsxImportSource`).
 *
 * A small lexer, not a parser: it skips comments, string and template
 * literals (with nested `${}`) and regular expression literals, and looks at
 * what follows the `import` and `export` keywords. It is a convenience that
 * gives early, precise messages; the sandbox's read permission is what
 * enforces the build root.
 *
 * @module
 */

/** One module specifier a program names, with where it is (1-based). */
export type NamedImport = { specifier: string; line: number; column: number };

/** A construct the runner refuses, with where it is (1-based). */
export type ImportProblem = { line: number; column: number; message: string };

/** What a program imports, and what it does that the runner refuses. */
export type ImportScan = { imports: NamedImport[]; problems: ImportProblem[] };

type Token =
  | { kind: "word"; text: string; offset: number }
  | { kind: "string"; text: string; offset: number }
  | { kind: "template"; text: string | undefined; offset: number }
  | { kind: "punct"; text: string; offset: number }
  | { kind: "other"; offset: number };

const WORD = /[A-Za-z0-9_$\u0080-\uffff]/;
const DIRECTIVE = /@(?:ts-types|deno-types|jsxImportSource(?:Types)?)\b/;
const TRIPLE_SLASH = /^\/\/\/\s*<(?:reference|amd-module|amd-dependency)\b/;
/** After these, a `/` starts a regular expression rather than a division. */
const REGEX_AFTER_WORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

class Lexer {
  readonly tokens: Token[] = [];
  readonly problems: ImportProblem[] = [];
  readonly #source: string;
  readonly #lines: number[] = [0];
  #at = 0;
  /** For each open template substitution, the brace depth at which it closes. */
  readonly #templates: number[] = [];
  #braces = 0;

  constructor(source: string) {
    this.#source = source;
    for (let index = 0; index < source.length; index++) {
      if (source[index] === "\n") this.#lines.push(index + 1);
    }
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.#lines.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#lines[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.#lines[low] ?? 0) + 1 };
  }

  run(): void {
    const source = this.#source;
    while (this.#at < source.length) {
      const char = source[this.#at] as string;
      const next = source[this.#at + 1];
      if (char === "/" && next === "/") this.#lineComment();
      else if (char === "/" && next === "*") this.#blockComment();
      else if (char === "'" || char === '"') this.#string(char);
      else if (char === "`") this.#template(this.#at);
      else if (char === "/" && this.#regexAllowed()) this.#regex();
      else if (WORD.test(char)) this.#word();
      else if (/\s/.test(char)) this.#at++;
      else this.#punct(char);
    }
  }

  #lineComment(): void {
    const end = this.#source.indexOf("\n", this.#at);
    const stop = end < 0 ? this.#source.length : end;
    this.#comment(this.#source.slice(this.#at, stop), this.#at);
    this.#at = stop;
  }

  #blockComment(): void {
    const end = this.#source.indexOf("*/", this.#at + 2);
    const stop = end < 0 ? this.#source.length : end + 2;
    this.#comment(this.#source.slice(this.#at, stop), this.#at);
    this.#at = stop;
  }

  #comment(text: string, offset: number): void {
    if (TRIPLE_SLASH.test(text) || DIRECTIVE.test(text)) {
      this.problems.push({
        ...this.position(offset),
        message: `Cannot run a program with the directive ${
          JSON.stringify(text.trim().slice(0, 80))
        }: remove it; a program may name modules only through imports`,
      });
    }
  }

  #string(quote: string): void {
    const start = this.#at;
    let text = "";
    let index = start + 1;
    const source = this.#source;
    while (index < source.length && source[index] !== quote && source[index] !== "\n") {
      if (source[index] === "\\") {
        text += source.slice(index, index + 2);
        index += 2;
      } else {
        text += source[index];
        index++;
      }
    }
    this.#at = index + 1;
    this.tokens.push({ kind: "string", text: unescape(text), offset: start });
  }

  /** Scans template text from `start` (a backtick or a `}` closing a substitution). */
  #template(start: number): void {
    const source = this.#source;
    let index = start + 1;
    let text = "";
    while (index < source.length) {
      const char = source[index];
      if (char === "\\") {
        text += source.slice(index, index + 2);
        index += 2;
      } else if (char === "`") {
        this.#at = index + 1;
        const whole = source[start] === "`";
        this.tokens.push({
          kind: "template",
          text: whole ? unescape(text) : undefined,
          offset: start,
        });
        return;
      } else if (char === "$" && source[index + 1] === "{") {
        this.#at = index + 2;
        this.#templates.push(this.#braces);
        this.#braces++;
        this.tokens.push({ kind: "template", text: undefined, offset: start });
        return;
      } else {
        text += char;
        index++;
      }
    }
    this.#at = source.length;
    this.tokens.push({ kind: "template", text: undefined, offset: start });
  }

  #regexAllowed(): boolean {
    const last = this.tokens.at(-1);
    if (last === undefined) return true;
    if (last.kind === "word") return REGEX_AFTER_WORDS.has(last.text);
    if (last.kind === "punct") return !/^[)\]}]$/.test(last.text);
    return last.kind === "other";
  }

  #regex(): void {
    const source = this.#source;
    let index = this.#at + 1;
    let inClass = false;
    while (index < source.length && source[index] !== "\n") {
      const char = source[index];
      if (char === "\\") index += 2;
      else {
        if (char === "[") inClass = true;
        else if (char === "]") inClass = false;
        else if (char === "/" && !inClass) break;
        index++;
      }
    }
    index++;
    while (index < source.length && WORD.test(source[index] as string)) index++;
    this.tokens.push({ kind: "other", offset: this.#at });
    this.#at = index;
  }

  #word(): void {
    const start = this.#at;
    let index = start;
    while (index < this.#source.length && WORD.test(this.#source[index] as string)) index++;
    this.#at = index;
    this.tokens.push({ kind: "word", text: this.#source.slice(start, index), offset: start });
  }

  #punct(char: string): void {
    if (char === "{") this.#braces++;
    if (char === "}") {
      this.#braces--;
      if (this.#templates.at(-1) === this.#braces) {
        this.#templates.pop();
        this.#template(this.#at);
        return;
      }
    }
    this.tokens.push({ kind: "punct", text: char, offset: this.#at });
    this.#at++;
  }
}

function unescape(text: string): string {
  return text.replace(
    /\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/g,
    (_, code: string) => {
      if (code.startsWith("u{")) return String.fromCodePoint(parseInt(code.slice(2, -1), 16));
      if (code.startsWith("u") || code.startsWith("x")) {
        return String.fromCharCode(parseInt(code.slice(1), 16));
      }
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        b: "\b",
        f: "\f",
        v: "\v",
        "0": "\0",
      };
      if (code === "\n" || code === "\r\n" || code === "\r") return "";
      return simple[code] ?? code;
    },
  );
}

function literal(token: Token | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.kind === "string") return token.text;
  if (token.kind === "template") return token.text;
  return undefined;
}

/**
 * Scans a program's source for the modules it names and the directives the
 * runner refuses. A dynamic `import()` whose specifier is not a string
 * literal is a problem: the runner must know every module before it runs.
 */
export function scanImports(source: string): ImportScan {
  const lexer = new Lexer(source);
  lexer.run();
  const { tokens, problems } = lexer;
  const imports: NamedImport[] = [];
  const name = (token: Token | undefined): void => {
    if (token === undefined) return;
    imports.push({ specifier: literal(token) ?? "", ...lexer.position(token.offset) });
  };
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (token.kind !== "word" || (token.text !== "import" && token.text !== "export")) continue;
    const before = tokens[index - 1];
    if (before?.kind === "punct" && before.text === ".") continue;
    const next = tokens[index + 1];
    if (token.text === "import" && next?.kind === "punct" && next.text === "(") {
      const argument = tokens[index + 2];
      const after = tokens[index + 3];
      const closes = after?.kind === "punct" && (after.text === ")" || after.text === ",");
      if (literal(argument) !== undefined && closes) name(argument);
      else {
        problems.push({
          ...lexer.position(token.offset),
          message: "Cannot run a program with a dynamic import() of a computed specifier: " +
            "import modules with a string literal so the runner can check them before running",
        });
      }
      continue;
    }
    if (token.text === "import" && next?.kind === "punct" && next.text === ".") continue;
    // A static import or a re-export: the specifier is the string right after
    // `import` or after `from`, before the statement ends.
    for (let scan = index + 1; scan < tokens.length; scan++) {
      const item = tokens[scan] as Token;
      if (item.kind === "punct" && item.text === ";") break;
      if (token.text === "export" && scan === index + 1 && !isReexportStart(item)) break;
      if (item.kind === "word" && item.text === "require" && token.text === "import") {
        problems.push({
          ...lexer.position(item.offset),
          message: "Cannot run a program with import = require(): use an import statement",
        });
        break;
      }
      const previous = tokens[scan - 1] as Token;
      const follows = scan === index + 1 ||
        (previous.kind === "word" && previous.text === "from");
      if (literal(item) !== undefined && follows) {
        name(item);
        break;
      }
      if (item.kind === "string" && !follows) break;
    }
  }
  return { imports, problems };
}

function isReexportStart(token: Token): boolean {
  if (token.kind === "punct") return token.text === "{" || token.text === "*";
  return token.kind === "word" && token.text === "type";
}
