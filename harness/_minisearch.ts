/**
 * The full-text search library discovery ranks tools with, pinned:
 * MiniSearch (BM25+ over fields with boosts, prefix and fuzzy matching),
 * small, dependency-free and kept. `_search.ts` is its only user.
 *
 * @module
 */

export { default as MiniSearch } from "npm:minisearch@7.2.0";
export type { Options, SearchOptions, SearchResult } from "npm:minisearch@7.2.0";
