/**
 * What a code-mode `Runner` is built with and what it reports of
 * itself: its options and its stats.
 *
 * @module
 */

import type { CheckerStats, ResidentChecker } from "./checker.ts";
import type { Discovery } from "./discovery.ts";
import type { RunModule, RunOptions } from "./run.ts";

/** What a `Runner` is built with. */
export type RunnerOptions = {
  /** Server name to its generated module; a program imports `./mcp/<segment>.ts`. */
  modules: ReadonlyMap<string, RunModule>;
  /** Carries one tool call; a harness passes its own `call`. */
  call: RunOptions["call"];
  /**
   * The servers a program may name that have no module, by the segment
   * theirs would have, each with why (`server "x" failed at boot (...)`),
   * asked at each run: an import of one says so, where it would say that no
   * such module exists.
   */
  absent?: () => ReadonlyMap<string, string>;
  /** Carries one read of a resource; a harness passes its own (see `RunOptions.read`). */
  read?: RunOptions["read"];
  /** Answers a program's prompts and resource listings; a harness passes its own (see `RunOptions.features`). */
  features?: RunOptions["features"];
  /**
   * Answers a program's `search` and `describe` (of `./tools.ts`); a harness
   * passes its own. Without it, a program's requests are refused (code
   * `discovery_unavailable`).
   */
  discovery?: Discovery;
  /**
   * Keep sandboxes started ahead, waiting for programs (default `true`). A
   * runner that never runs a program starts none.
   */
  warm?: boolean;
  /**
   * The most sandboxes kept started ahead; `DEFAULT_WARM_SANDBOXES`
   * by default. One waits while runs come one at a time; programs back to
   * back or at once raise how many wait, up to this.
   */
  warmSandboxes?: number;
  /**
   * The heap cap of sandboxes started ahead, in MiB;
   * `DEFAULT_RUN_MEMORY_MB`. A run asking for another cap starts
   * its own sandbox.
   */
  memoryMb?: number;
  /** The Deno executable of the sandboxes; `Deno.execPath()` by default. */
  denoExecutable?: string;
  /**
   * The folder each sandbox's temporary directory is made in (a `loom-run-`
   * directory per sandbox, removed with it); the system's temporary folder
   * by default.
   */
  tempDir?: string;
  /**
   * A checker made (and perhaps started) earlier, for instance while the
   * servers started; the runner owns it from then on and retires it. A
   * runner makes its own by default.
   */
  checker?: ResidentChecker;
  /**
   * How many of this runner's runs hold a sandbox at once; more wait their
   * turn, the wait counted in their deadline. `DEFAULT_MAX_SANDBOXES`
   * by default (the sandbox started ahead is one more).
   */
  maxSandboxes?: number;
};

/** What a runner holds and has done, for reports and benchmarks. */
export type RunnerStats = {
  /** The resident checker. */
  checker: CheckerStats;
  /** Whether a sandbox is started ahead, waiting for a program. */
  warm: boolean;
  /** How many sandboxes are started ahead, and how many of those are ready. */
  waiting: number;
  ready: number;
  /** Runs started, and how many of them found a sandbox waiting. */
  runs: number;
  warmRuns: number;
};
