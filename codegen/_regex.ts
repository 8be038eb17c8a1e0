/**
 * How costly a schema's `pattern` can be for the backtracking engine that
 * runs it, read from the pattern alone: a pattern whose matching can take
 * exponential time is `unsafe` and never run; any other is run with its cost
 * bounded by `degree`: the time to test a string of length n grows at most as
 * n^degree.
 *
 * Backtracking is exponential when one text can be matched in many ways. So
 * the body of every repeated group must match each text in one way only
 * (`(a|a)*`, `(\w\d?)+` and `(a|ab)+` fail: two alternatives, or an optional
 * part and its neighbour, can take the same characters), must never match
 * nothing (`(a*)*`), and a run of its matches must split into repetitions in
 * one way only (`(a+)+` and `(x\w?)+` fail; `(x\d?)+`, `(\.\d+)+` and
 * `(ab|c)+` pass: each repetition starts where the text says). Outside
 * repetitions, the ways multiply (`(a|a)(a|a)…`, `a?a?…aa…`): past
 * {@linkcode MAX_PATTERN_WAYS} the pattern is unsafe. Backreferences are
 * always unsafe.
 *
 * The reading is conservative: a safe pattern may be called unsafe (it is
 * then reported as not checked), never the reverse.
 *
 * @module
 */

/** The longest `pattern` that is read at all; a longer one is not run. */
export const MAX_PATTERN_CHARS = 1_000;

/**
 * The most ways a pattern may match one text, outside its repeated groups
 * (`(a|a)(a|a)` has 4); past it the pattern is not run.
 */
export const MAX_PATTERN_WAYS = 16;

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

// A `\u` escape of a high surrogate then one of a low surrogate: one code point.
const SURROGATE_PAIR = /^\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/;

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
      else if (pattern[at] === "?") {
        throw new Unsafe("it has a kind of group this reader does not know");
      }
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
      else if (next === "u") at += SURROGATE_PAIR.test(pattern.slice(at, at + 12)) ? 12 : 6;
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

// ------------------------------------------------------------- characters

// What a part of a pattern can match, one character at a time: exactly which
// ASCII characters, and past ASCII nothing, a set of known code points, or
// anything (`\s`, `[^a]`, `\p{L}`: read conservatively).
type Chars = { ascii: bigint; wide: "any" | ReadonlySet<number> };

const NO_CHARS: Chars = { ascii: 0n, wide: new Set() };

const ASCII_TEXT = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join("");

// What one reading of a pattern has worked out so far.
type Context = { chars: Map<string, Chars>; parts: Map<Atom, Shape[][]> };

function union(a: Chars, b: Chars): Chars {
  let wide: Chars["wide"];
  if (a.wide === "any" || b.wide === "any") wide = "any";
  else if (b.wide.size === 0) wide = a.wide;
  else if (a.wide.size === 0) wide = b.wide;
  else wide = new Set([...a.wide, ...b.wide]);
  return { ascii: a.ascii | b.ascii, wide };
}

function asciiOnly(chars: Chars): boolean {
  return chars.wide !== "any" && chars.wide.size === 0;
}

function disjoint(a: Chars, b: Chars): boolean {
  if ((a.ascii & b.ascii) !== 0n) return false;
  if (asciiOnly(a) || asciiOnly(b)) return true;
  if (a.wide === "any" || b.wide === "any") return false;
  for (const point of a.wide) if (b.wide.has(point)) return false;
  return true;
}

// A class whose text admits nothing past ASCII.
function asciiClass(source: string): boolean {
  if (/^\\[dw]$/.test(source)) return true;
  return source.startsWith("[") && !source.startsWith("[^") &&
    /^[\x20-\x7e]*$/.test(source) && !/\\[pPsSWD]|\\[ux]/.test(source);
}

// The code point a character atom past ASCII stands for, when its text says.
function codePointOf(source: string): number | undefined {
  if (!source.startsWith("\\")) return source.codePointAt(0);
  const braced = /^\\u\{([0-9a-fA-F]+)\}$/.exec(source);
  if (braced !== null) return parseInt(braced[1] as string, 16);
  const units = /^\\u([0-9a-fA-F]{4})(?:\\u([0-9a-fA-F]{4}))?$/.exec(source);
  if (units === null) return undefined;
  const high = parseInt(units[1] as string, 16);
  if (units[2] === undefined) return high;
  return (high - 0xd800) * 0x400 + parseInt(units[2], 16) - 0xdc00 + 0x10000;
}

function charsOf(atom: Atom, context: Context): Chars {
  if (atom.kind === "assertion" || atom.kind === "group") return NO_CHARS;
  const known = context.chars.get(atom.source);
  if (known !== undefined) return known;
  let ascii = 0n;
  for (const match of ASCII_TEXT.matchAll(new RegExp(atom.source, "gu"))) {
    ascii |= 1n << BigInt(match.index);
  }
  let wide: Chars["wide"] = "any";
  if (atom.kind === "char") {
    // One character: if it is an ASCII one, it is nothing else.
    const point = ascii === 0n ? codePointOf(atom.source) : undefined;
    if (ascii !== 0n) wide = new Set();
    else if (point !== undefined) wide = new Set([point]);
  } else if (asciiClass(atom.source)) wide = new Set();
  const chars = { ascii, wide };
  context.chars.set(atom.source, chars);
  return chars;
}

// Every character an atom of the term can match, lookarounds included.
function allChars(term: Term, context: Context): Chars {
  if (term.atom.kind !== "group") return charsOf(term.atom, context);
  let chars = NO_CHARS;
  for (const sequence of term.atom.body) {
    for (const each of sequence) chars = union(chars, allChars(each, context));
  }
  return chars;
}

// -------------------------------------------------------------- ambiguity

// A character every match has at one fixed distance from its end (or start),
// with only characters of `beside` past it (or before it): `\.` in `\.[a-z]`.
type Mark = { mark: Chars; beside: Chars };

// How many marks a shape keeps at each end, the nearest first.
const MARKS = 4;

// What a part of a pattern matches, as far as backtracking cares: the lengths
// of its matches (`max` Infinity past LARGE_REPEAT), the characters that can
// start, end or be in one, its marks, whether any text matches it in two
// ways, and if so in how many (`ways`), beside the splits whose choices only
// the text's length bounds (`splits`, each one more degree).
type Shape = {
  min: number;
  max: number;
  first: Chars;
  last: Chars;
  chars: Chars;
  heads: readonly Mark[];
  tails: readonly Mark[];
  unique: boolean;
  ways: number;
  splits: number;
};

const ENDS = { first: NO_CHARS, last: NO_CHARS, chars: NO_CHARS, heads: [], tails: [] };
const EMPTY: Shape = { ...ENDS, min: 0, max: 0, unique: true, ways: 1, splits: 0 };

function counted(shape: Shape): Shape {
  if (shape.ways > MAX_PATTERN_WAYS) {
    throw new Unsafe(`it can match one text in more than ${MAX_PATTERN_WAYS} ways`);
  }
  return shape;
}

function fixed(shape: { min: number; max: number }): boolean {
  return shape.min > 0 && shape.min === shape.max;
}

// The marks at one end of two parts in a row: those of the `near` part, then,
// when it has one length, those of the `far` part, moved past it.
function marksOf(near: readonly Mark[], far: readonly Mark[], between: Shape): Mark[] {
  const moved = between.min !== between.max ? [] : far;
  const past = moved.map((each) => ({ ...each, beside: union(each.beside, between.chars) }));
  return [...near, ...past].slice(0, MARKS);
}

// Two parts in a row. Two ways to split a text between them differ by a
// nonempty piece that ends one match of `a` (after another match of `a`) and
// starts one of `b` (before another of `b`). None exists when either part has
// one length; or no character where they meet is in both (the piece starts
// with a first character of `b` that is in `a`, and ends with a last one of
// `a` that is in `b`); or `a` has a mark that is neither in `b` nor beside
// itself (the piece, all in `b`, cannot hold the mark, so it is shorter than
// the mark's distance, and then the shorter match of `a` has its mark where
// the longer has only characters beside its own); or `b` has such a mark.
function concat(a: Shape, b: Shape): Shape {
  const clear = (marks: readonly Mark[], other: Chars) =>
    marks.some((each) => disjoint(each.mark, other) && disjoint(each.mark, each.beside));
  const once = a.min === a.max || b.min === b.max || disjoint(a.chars, b.first) ||
    disjoint(a.last, b.chars) || clear(a.tails, b.chars) || clear(b.heads, a.chars);
  let ways = a.ways * b.ways;
  let splits = a.splits + b.splits;
  const choices = once ? 1 : Math.min(a.max - a.min + 1, b.max - b.min + 1);
  // Between two unbounded repeats the split is degreeOf's count. A bounded
  // choice multiplies the ways while they stay few, else it is one more
  // degree: there are at most n + 1 places to split.
  if (choices !== Infinity && ways * choices <= MAX_PATTERN_WAYS) ways *= choices;
  else if (choices !== Infinity) splits++;
  return counted({
    min: a.min + b.min,
    max: a.max + b.max,
    first: a.min === 0 ? union(a.first, b.first) : a.first,
    last: b.min === 0 ? union(a.last, b.last) : b.last,
    chars: union(a.chars, b.chars),
    heads: marksOf(a.heads, b.heads, a),
    tails: marksOf(b.tails, a.tails, b),
    unique: a.unique && b.unique && once,
    ways,
    splits,
  });
}

// Two alternatives no text matches both of.
function exclusive(a: Shape, b: Shape): boolean {
  if (a.min === a.max && b.min === b.max && a.min !== b.min) return true;
  return (a.min > 0 || b.min > 0) && disjoint(a.first, b.first);
}

function alternation(shapes: readonly Shape[]): Shape {
  let apart = true;
  for (let i = 0; i < shapes.length && apart; i++) {
    for (let j = i + 1; j < shapes.length && apart; j++) {
      apart = exclusive(shapes[i] as Shape, shapes[j] as Shape);
    }
  }
  let out = shapes[0] as Shape;
  for (const shape of shapes.slice(1)) {
    out = {
      min: Math.min(out.min, shape.min),
      max: Math.max(out.max, shape.max),
      first: union(out.first, shape.first),
      last: union(out.last, shape.last),
      chars: union(out.chars, shape.chars),
      heads: [],
      tails: [],
      unique: out.unique && shape.unique,
      ways: apart ? Math.max(out.ways, shape.ways) : out.ways + shape.ways,
      splits: Math.max(out.splits, shape.splits),
    };
  }
  return counted({ ...out, unique: out.unique && apart });
}

// The shapes of a group's alternatives, term by term, worked out once.
function partsOf(atom: Atom & { kind: "group" }, context: Context): Shape[][] {
  let parts = context.parts.get(atom);
  if (parts === undefined) {
    parts = atom.body.map((sequence) => sequence.map((term) => shapeOf(term, context)));
    context.parts.set(atom, parts);
  }
  return parts;
}

function bodyShape(atom: Atom & { kind: "group" }, context: Context): Shape {
  return alternation(partsOf(atom, context).map((sequence) => sequence.reduce(concat, EMPTY)));
}

// Whether a text made of matches of a loop's body splits into them in one
// way (the body already matches each text in one way, and never nothing):
// the body has one length; or it is a choice of words of fixed lengths no two
// of which start alike (a prefix code); or it is two parts in a row with no
// character in common, each never empty, or one never empty and of one length
// (then each repetition starts, or ends, where the text changes from one
// part's characters to the other's, or where the fixed part's length says).
function splitsOnce(atom: Atom & { kind: "group" }, whole: Shape, context: Context): boolean {
  if (whole.min === whole.max) return true;
  const parts = partsOf(atom, context);
  if (parts.length > 1) {
    const words = parts.map((sequence) => sequence.reduce(concat, EMPTY));
    return words.every(fixed) &&
      words.every((a, i) => words.every((b, j) => j <= i || disjoint(a.first, b.first)));
  }
  const terms = parts[0] as Shape[];
  const only = atom.body[0]?.[0];
  if (terms.length === 1 && only?.atom.kind === "group" && !only.atom.lookaround) {
    return only.min === 1 && only.max === 1 && splitsOnce(only.atom, whole, context);
  }
  type Span = { min: number; max: number; chars: Chars };
  const add = (a: Span, b: Span): Span => {
    return { min: a.min + b.min, max: a.max + b.max, chars: union(a.chars, b.chars) };
  };
  const heads: Span[] = [EMPTY];
  for (const term of terms) heads.push(add(heads[heads.length - 1] as Span, term));
  const tails: Span[] = [EMPTY];
  for (const term of [...terms].reverse()) tails.unshift(add(term, tails[0] as Span));
  for (let cut = 1; cut < terms.length; cut++) {
    const head = heads[cut] as Span;
    const tail = tails[cut] as Span;
    if (!disjoint(head.chars, tail.chars)) continue;
    if ((head.min > 0 && tail.min > 0) || fixed(head) || fixed(tail)) return true;
  }
  return false;
}

// The shape of one term; refuses every loop that can take exponential time.
function shapeOf(term: Term, context: Context): Shape {
  const { atom, min, max } = term;
  if (atom.kind === "assertion" || max === 0 && atom.kind !== "group") return EMPTY;
  if (atom.kind !== "group") {
    const chars = charsOf(atom, context);
    const marks = min === 1 && max === 1 ? [{ mark: chars, beside: NO_CHARS }] : [];
    const ends = { first: chars, last: chars, chars, heads: marks, tails: marks };
    return { ...EMPTY, ...ends, min, max: max > LARGE_REPEAT ? Infinity : max };
  }
  const inner = bodyShape(atom, context);
  if (atom.lookaround) {
    return { ...EMPTY, unique: inner.unique, ways: inner.ways, splits: inner.splits };
  }
  if (max === 0) return EMPTY;
  if (max === 1 && min === 1) return inner;
  if (max === 1) {
    const empty = inner.min === 0;
    return counted({
      ...inner,
      min: 0,
      heads: [],
      tails: [],
      unique: inner.unique && !empty,
      ways: inner.ways + (empty ? 1 : 0),
    });
  }
  if (inner.min === 0) throw new Unsafe("a repeated group can match nothing");
  if (!inner.unique || !splitsOnce(atom, inner, context)) {
    throw new Unsafe(
      "a repeated group repeats or branches inside with nothing to tell its repetitions apart",
    );
  }
  const longest = max > LARGE_REPEAT || inner.max === Infinity ? Infinity : max * inner.max;
  const marks = min === 0 ? { heads: [], tails: [] } : {};
  return { ...inner, ...marks, min: min * inner.min, max: longest };
}

// ----------------------------------------------------------------- degree

// The polynomial degree of matching: loops in a row multiply, unless a
// required ASCII character that the loops before it cannot match stands between.
function degreeOf(body: Term[][], context: Context): number {
  let best = 0;
  for (const sequence of body) {
    let run = 0;
    let seen = NO_CHARS;
    for (const term of sequence) {
      const single = term.min >= 1 && term.max === 1 && term.atom.kind !== "group" &&
        term.atom.kind !== "assertion";
      const chars = charsOf(term.atom, context);
      if (single && asciiOnly(chars) && disjoint(chars, seen)) {
        best = Math.max(best, run);
        run = 0;
        seen = NO_CHARS;
        continue;
      }
      if (term.max > LARGE_REPEAT) run++;
      if (term.atom.kind === "group") run += degreeOf(term.atom.body, context);
      seen = union(seen, allChars(term, context));
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
    const context: Context = { chars: new Map(), parts: new Map() };
    const root: Atom & { kind: "group" } = { kind: "group", body, lookaround: false };
    const { splits } = bodyShape(root, context);
    const degree = degreeOf(body, context) + splits + (anchored ? 0 : 1);
    return { kind: "bounded", degree: Math.max(1, degree) };
  } catch (error) {
    if (error instanceof Unsafe) return { kind: "unsafe", reason: error.message };
    return { kind: "unsafe", reason: "it could not be read" };
  }
}
