/**
 * Keeps the TypeScript compiler from building its Node system (`ts.sys`, the
 * file system, environment and process access `tsc` uses). The compiler only
 * builds it when the host looks like Node, which includes `!process.browser`;
 * this module marks the checker process's `process` as a browser's and must be
 * evaluated before `npm:typescript` (imported ahead of it).
 *
 * Without `ts.sys` no code path of the compiler can read a file or an
 * environment variable on its own: every file it sees comes through the
 * in-memory host, and loading it needs no permission at all (with `ts.sys`
 * it reads about twenty `TSC_*` and `NODE_*` environment variables at load).
 *
 * @module
 */

import process from "node:process";

Object.defineProperty(process, "browser", { value: true, configurable: true });
