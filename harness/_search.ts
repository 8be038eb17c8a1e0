/**
 * Discovery's ranking: one document per callable tool of every ready server,
 * searched with MiniSearch over the tool's name, title, description and
 * parameter names, and its server's name and description. Private to
 * harness/.
 *
 * Text is split where a name's words meet (`getConsoleErrors`,
 * `create_issue`, `API-post-page` are three words each), lowercased, and
 * stripped of the words every request has ("a", "the", "with"); what is left
 * is matched whole, as a prefix (four letters or more) and loosely (a fifth
 * of its letters may differ, from six letters), each match kind weighed
 * below the one before by MiniSearch. Scores are MiniSearch's own; ties keep
 * the index's order (catalog order, then module order), so the same listings
 * and query always give the same answer.
 *
 * @module
 */

import { MiniSearch, type SearchOptions } from "./_minisearch.ts";

/** One tool as discovery knows it. */
export type SearchEntry = {
  server: string;
  /** The wire name. */
  tool: string;
  /** The function's name in the server's module. */
  name: string;
  /** The tool's line of the server's surface block. */
  line: string;
  title: string;
  description: string;
  /** The parameter names of its input schema's top level. */
  params: readonly string[];
  /** The server's name and its description. */
  about: string;
};

/** One match: the entry and its score. */
export type SearchHit = { entry: SearchEntry; score: number };

type Document = {
  id: number;
  name: string;
  title: string;
  description: string;
  params: string;
  about: string;
};

const FIELDS = ["name", "title", "description", "params", "about"] as const;

const BOOST: Record<(typeof FIELDS)[number], number> = {
  name: 2,
  title: 1.5,
  description: 1,
  params: 0.5,
  about: 0.75,
};

// Where words meet: a run of letters or digits, a capitalized word, an acronym.
const WORDS = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{Lu}|\p{N}+|\p{L}+/gu;

const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "any",
  "are",
  "as",
  "at",
  "be",
  "by",
  "can",
  "do",
  "does",
  "for",
  "from",
  "have",
  "how",
  "i",
  "in",
  "into",
  "is",
  "it",
  "its",
  "me",
  "my",
  "of",
  "on",
  "or",
  "our",
  "that",
  "the",
  "their",
  "this",
  "to",
  "use",
  "using",
  "want",
  "what",
  "which",
  "with",
  "you",
  "your",
]);

/** The words of a text, split where a name's words meet. */
export function words(text: string): string[] {
  return text.match(WORDS) ?? [];
}

function term(word: string): string | null {
  const lower = word.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}

const SEARCH: SearchOptions = {
  boost: BOOST,
  prefix: (word) => word.length >= 4,
  fuzzy: (word) => word.length >= 6 ? 0.2 : false,
  combineWith: "OR",
};

/** The tools of every ready server, searchable. */
export class ToolSearch {
  readonly #entries: readonly SearchEntry[];
  readonly #engine: MiniSearch<Document>;

  /** Indexes the entries, in the order given. */
  constructor(entries: readonly SearchEntry[]) {
    this.#entries = entries;
    this.#engine = new MiniSearch<Document>({
      fields: [...FIELDS],
      tokenize: words,
      processTerm: term,
      searchOptions: SEARCH,
    });
    this.#engine.addAll(entries.map((entry, id) => ({
      id,
      name: entry.tool === entry.name ? entry.tool : `${entry.tool} ${entry.name}`,
      title: entry.title,
      description: entry.description,
      params: entry.params.join(" "),
      about: entry.about,
    })));
  }

  /** The entries, in index order. */
  get entries(): readonly SearchEntry[] {
    return this.#entries;
  }

  /** The best `limit` matches of `query`, best first. */
  search(query: string, limit: number): SearchHit[] {
    const hits = this.#engine.search(query).map((result) => ({
      id: result.id as number,
      score: result.score,
    }));
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits.slice(0, limit).map(({ id, score }) => ({
      entry: this.#entries[id] as SearchEntry,
      score,
    }));
  }

  /** The size of the index as MiniSearch serializes it, in UTF-16 code units. */
  indexSize(): number {
    return JSON.stringify(this.#engine).length;
  }
}
