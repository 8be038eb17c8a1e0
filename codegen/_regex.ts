/**
 * How costly a schema's `pattern` can be for the backtracking engine that
 * runs it, read from the pattern alone: a pattern whose matching can take
 * exponential time (a quantified group whose body repeats or branches without
 * a delimiter, as in `(a+)+`, `(a|a)*`, or any backreference) is `unsafe` and
 * never run; any other is run with its cost bounded by `degree`: the time to
 * test a string of length n grows at most as n^degree.
 *
 * The reading is conservative: a safe pattern may be called unsafe (it is
 * then reported as not checked), never the reverse.
 *
 * @module
 */

/** The longest `pattern` that is read at all; a longer one is not run. */
export const MAX_PATTERN_CHARS = 1_000;

/** A bounded repetition past this many is counted as unbounded. */
const LARGE_REPEAT = 100;

/** The reading of one pattern. */
export type PatternCost =
  | { kind: "bounded"; degree: number }
  | { kind: "unsafe"; reason: string };

type Atom =
  | { kind: "char"; source: string }
  | { kind: "class"; source: string }
  | { kind: "assertion" }
  | { kind: "group"; body: Term[][]; lookaround: boolean };
type Term = { atom: Atom; min: number; max: number };

class Unsafe extends Error {}

function parse(pattern: string): { body: Term[][]; anchored: boolean } {
  let at = 0;
  let depth = 0;
  const alternatives = (): Term[][] => {
    if (++depth > 64) throw new Unsafe("it nests groups deeper than 64");
    const out: Term[][] = [[]];
    while (at < pattern.length && pattern[at] !== ")") {
      if (pattern[at] === "|") {
        at++;
        out.push([]);
        continue;
      }
      const atom = readAtom();
      const [min, max] = readQuantifier();
      (out[out.length - 1] as Term[]).push({ atom, min, max });
    }
    depth--;
    return out;
  };
  const readAtom = (): Atom => {
    const char = pattern[at] as string;
    if (char === "(") {
      at++;
      let lookaround = false;
      if (pattern.startsWith("?:", at)) at += 2;
      else if (/^\?<?[=!]/.test(pattern.slice(at, at + 3))) {
        lookaround = true;
        at += pattern[at + 1] === "<" ? 3 : 2;
      } else if (pattern.startsWith("?<", at)) at = pattern.indexOf(">", at) + 1;
      const body = alternatives();
      at++;
      return { kind: "group", body, lookaround };
    }
    if (char === "[") {
      const start = at++;
      if (pattern[at] === "^") at++;
      if (pattern[at] === "]") at++;
      while (at < pattern.length && pattern[at] !== "]") at += pattern[at] === "\\" ? 2 : 1;
      at++;
      return { kind: "class", source: pattern.slice(start, at) };
    }
    if (char === "^" || char === "$") {
      at++;
      return { kind: "assertion" };
    }
    if (char === ".") {
      at++;
      return { kind: "class", source: "." };
    }
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") throw new Unsafe("it has a backreference");
      if (next === "b" || next === "B") {
        at += 2;
        return { kind: "assertion" };
      }
      const start = at;
      if (/[pP]/.test(next) && pattern[at + 2] === "{") at = pattern.indexOf("}", at) + 1;
      else if (next === "u" && pattern[at + 2] === "{") at = pattern.indexOf("}", at) + 1;
      else if (next === "u") at += 6;
      else if (next === "x") at += 4;
      else if (next === "c") at += 3;
      else at += 2;
      const source = pattern.slice(start, at);
      return /^\\[dDwWsSpP]/.test(source) ? { kind: "class", source } : { kind: "char", source };
    }
    const source = String.fromCodePoint(pattern.codePointAt(at) ?? 0);
    at += source.length;
    return { kind: "char", source };
  };
  const readQuantifier = (): [number, number] => {
    const char = pattern[at];
    let bounds: [number, number] = [1, 1];
    if (char === "*") bounds = [0, Infinity];
    else if (char === "+") bounds = [1, Infinity];
    else if (char === "?") bounds = [0, 1];
    else if (char === "{") {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
      if (match === null) return bounds;
      const min = Number(match[1]);
      const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
      at += match[0].length - 1;
      bounds = [min, max];
    } else return bounds;
    at++;
    if (pattern[at] === "?") at++;
    return bounds;
  };
  const body = alternatives();
  const anchored = body.every((sequence) => sequence[0]?.atom.kind === "assertion") &&
    pattern.startsWith("^");
  return { body, anchored };
}

function matchesChar(atom: Atom, char: string): boolean {
  switch (atom.kind) {
    case "assertion":
      return false;
    case "char":
    case "class":
      return new RegExp(`^(?:${atom.source})$`, "u").test(char);
    case "group":
      return atom.body.some((sequence) => sequence.some((term) => matchesChar(term.atom, char)));
  }
}

function literalOf(term: Term | undefined): string | undefined {
  if (term === undefined || term.min !== 1 || term.max !== 1 || term.atom.kind !== "char") {
    return undefined;
  }
  const text = new RegExp(`^(?:${term.atom.source})$`, "u");
  const char = term.atom.source.startsWith("\\") ? term.atom.source.slice(1) : term.atom.source;
  return char.length > 0 && text.test(char) ? char : undefined;
}

// A loop body whose first or last term is a character no other part of the
// body matches: each repetition ends (or starts) at a place the text fixes.
function delimited(body: Term[][]): boolean {
  if (body.length !== 1) return false;
  const sequence = body[0] as Term[];
  for (const edge of [sequence[0], sequence[sequence.length - 1]]) {
    const char = literalOf(edge);
    if (char === undefined) continue;
    const others = sequence.filter((term) => term !== edge);
    if (!others.some((term) => matchesChar(term.atom, char))) return true;
  }
  return false;
}

function canBeEmpty(body: Term[][]): boolean {
  return body.some((sequence) =>
    sequence.every((term) =>
      term.min === 0 || term.atom.kind === "assertion" ||
      (term.atom.kind === "group" && canBeEmpty(term.atom.body))
    )
  );
}

function repeats(body: Term[][]): boolean {
  return body.some((sequence) =>
    sequence.some((term) => term.max > 1 || (term.atom.kind === "group" && repeats(term.atom.body)))
  );
}

function branches(body: Term[][]): boolean {
  if (body.length > 1) {
    const chars = body.map((sequence) =>
      sequence.length === 1 ? literalOf(sequence[0]) : undefined
    );
    const distinct = new Set(chars);
    if (chars.some((char) => char === undefined) || distinct.size !== chars.length) return true;
  }
  return body.some((sequence) =>
    sequence.some((term) => term.atom.kind === "group" && term.max <= 1 && branches(term.atom.body))
  );
}

// Refuses every loop that can take exponential time.
function checkLoops(body: Term[][]): void {
  for (const sequence of body) {
    for (const term of sequence) {
      if (term.atom.kind !== "group") continue;
      const inner = term.atom.body;
      if (term.max > 1) {
        if (canBeEmpty(inner)) throw new Unsafe("a repeated group can match nothing");
        if ((repeats(inner) || branches(inner)) && !delimited(inner)) {
          throw new Unsafe(
            "a repeated group repeats or branches inside with nothing to tell its repetitions apart",
          );
        }
      }
      checkLoops(inner);
    }
  }
}

const ASCII = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

// A character or class that matches ASCII only, so that probing the 128
// ASCII characters tells exactly what it matches.
function asciiOnly(atom: Atom): boolean {
  if (atom.kind === "char") return atom.source.length === 1 || /^\\[^uxcpP]/.test(atom.source);
  if (atom.kind !== "class") return false;
  if (/^\\[dw]$/.test(atom.source)) return true;
  return atom.source.startsWith("[") && !atom.source.startsWith("[^") &&
    /^[\x20-\x7e]*$/.test(atom.source) && !/\\[pPsSWD]|\\[ux]/.test(atom.source);
}

function atomsOf(term: Term): Atom[] {
  return term.atom.kind === "group"
    ? term.atom.body.flatMap((sequence) => sequence.flatMap(atomsOf))
    : [term.atom];
}

function overlaps(separator: Atom, others: readonly Atom[]): boolean {
  if (!asciiOnly(separator)) return true;
  const chars = ASCII.filter((char) => matchesChar(separator, char));
  return others.some((other) =>
    other.kind !== "assertion" &&
    (!(asciiOnly(other) || other.kind === "group") || chars.some((c) => matchesChar(other, c)))
  );
}

// The polynomial degree of matching: loops in a row multiply, unless a
// required character that the loops before it cannot match stands between.
function degreeOf(body: Term[][]): number {
  let best = 0;
  for (const sequence of body) {
    let run = 0;
    let atoms: Atom[] = [];
    for (const term of sequence) {
      const single = term.min >= 1 && term.max === 1 && term.atom.kind !== "group" &&
        term.atom.kind !== "assertion";
      if (single && !overlaps(term.atom, atoms)) {
        best = Math.max(best, run);
        run = 0;
        atoms = [];
        continue;
      }
      if (term.max > LARGE_REPEAT) run++;
      if (term.atom.kind === "group") run += degreeOf(term.atom.body);
      atoms.push(...atomsOf(term));
    }
    best = Math.max(best, run);
  }
  return best;
}

/**
 * Reads a pattern (ECMA-262 with the `u` flag, as JSON Schema's `pattern`).
 * A pattern that does not compile, is longer than {@linkcode MAX_PATTERN_CHARS}
 * or can take exponential time is `unsafe`.
 */
export function patternCost(pattern: string): PatternCost {
  if (pattern.length > MAX_PATTERN_CHARS) {
    return { kind: "unsafe", reason: `it is longer than ${MAX_PATTERN_CHARS} characters` };
  }
  try {
    new RegExp(pattern, "u");
  } catch {
    return { kind: "unsafe", reason: "it is not a valid regular expression" };
  }
  try {
    const { body, anchored } = parse(pattern);
    checkLoops(body);
    return { kind: "bounded", degree: Math.max(1, degreeOf(body) + (anchored ? 0 : 1)) };
  } catch (error) {
    if (error instanceof Unsafe) return { kind: "unsafe", reason: error.message };
    return { kind: "unsafe", reason: "it could not be read" };
  }
}
