/**
 * The compiler inside the checker's process: TypeScript's own checker over a
 * build root held in memory (see `_host.ts` for the closed world, and
 * `_world.ts` for its globals), reporting diagnostics as `deno check` prints
 * them (file, line, column, message, source line, related places; see
 * `_diagnostic.ts`).
 *
 * Hot path (figures measured while it was built, on the shared 2-core
 * machine; `bench/runner_bench.ts` measures the whole check):
 * library files are parsed and carved once per process (about 120 ms for the
 * ES libraries; `lib.webworker.d.ts`, 770 KiB, is parsed once and carved
 * without a second parse, and the process is ready about 0.4 s later than
 * with the ES libraries alone, measured under load), and
 * build-root files are reused while their text is unchanged, whether or not
 * the checks between sent them, so a check parses only what changed, usually
 * the program alone. A new program and
 * type checker are still built for every check (about 3 ms with the
 * libraries' globals; the program is built on the last one's structure, which
 * takes a warm one-call check from 6.4 to 3.7 ms), and checking `cap.ts` and one generated module in
 * full cost about 6 ms more per check; their verdicts are therefore kept
 * while they and every other dependency are unchanged and the program
 * cannot reach into them (it augments no global or module, and nothing
 * imports it), which halves a warm check; they are kept for each of the last
 * few sets of dependencies, so programs importing different servers in turn
 * each find theirs. Files the sender vouches for (the runner's generated
 * modules, `cap.ts` and `tools.ts`) are not checked in full at all under that
 * same condition, only read for what the program takes from them: with the
 * twenty listing servers' modules, the check `Runner.prepare` sends took
 * 131 ms instead of 499, a program importing three modules not checked
 * together before 11 to 13 ms instead of 55 to 130, and the process held 145
 * MiB after them instead of 170 (`bench/checker_vouched.ts`).
 *
 * @module
 */

import "./_no_node_system.ts";
import ts from "npm:typescript@6.0.3";
import { toDiagnostic } from "./_diagnostic.ts";
import {
  COMPILER_OPTIONS,
  createHost,
  type HostTrace,
  parse,
  PROGRAM_PATH,
  VIRTUAL_ROOT,
  worldLibs,
} from "./_host.ts";
import type { Diagnostic } from "./protocol.ts";

/** The most diagnostics reported, as the runner's `deno check` parser keeps. */
export const MAX_DIAGNOSTICS = 50;

/** The most sets of dependencies whose verdicts are kept: 16, the least recent dropped. */
export const MAX_VERDICT_WORLDS = 16;

const NO_HINT = "Cannot find name '{0}'.";

// Hints that send a model to npm, a tsconfig or lib.dom, none of which a
// program can reach, say only what is missing (Deno does so for node's).
// `setLocalizedDiagnosticMessages` is public at run time but not declared.
const localized = ts as unknown as {
  setLocalizedDiagnosticMessages(messages: Record<string, string>): void;
};
localized.setLocalizedDiagnosticMessages({
  Cannot_find_name_0_Do_you_need_to_install_type_definitions_for_node_Try_npm_i_save_dev_types_Slashno_2580:
    NO_HINT,
  Cannot_find_name_0_Do_you_need_to_install_type_definitions_for_jQuery_Try_npm_i_save_dev_types_Slash_2581:
    NO_HINT,
  Cannot_find_name_0_Do_you_need_to_install_type_definitions_for_a_test_runner_Try_npm_i_save_dev_type_2582:
    NO_HINT,
  Cannot_find_name_0_Do_you_need_to_change_your_target_library_Try_changing_the_lib_compiler_option_to_2584:
    NO_HINT,
  Cannot_find_name_0_Do_you_need_to_install_type_definitions_for_node_Try_npm_i_save_dev_types_Slashno_2591:
    NO_HINT,
  Cannot_find_name_0_Do_you_need_to_install_type_definitions_for_jQuery_Try_npm_i_save_dev_types_Slash_2592:
    NO_HINT,
  Cannot_find_name_0_Do_you_need_to_install_type_definitions_for_a_test_runner_Try_npm_i_save_dev_type_2593:
    NO_HINT,
});

/** Whether a file pulls in nothing by a comment directive, which the host does not trace. */
function directiveFree(file: ts.SourceFile): boolean {
  return file.referencedFiles.length === 0 && file.typeReferenceDirectives.length === 0 &&
    file.libReferenceDirectives.length === 0;
}

/**
 * Whether the program may change how its dependencies check: `declare global`
 * and `declare module` (top-level by the grammar), or a namespace, which is
 * harmless but costs nothing to treat alike.
 */
function reachesOut(program: ts.SourceFile): boolean {
  return !directiveFree(program) || program.statements.some(ts.isModuleDeclaration);
}

/** Checks build roots held in memory; one instance lives as long as its process. */
export class ClosedWorldCompiler {
  readonly #libs: ReadonlyMap<string, ts.SourceFile>;
  readonly #ids = new WeakMap<ts.SourceFile, number>();
  #nextId = 0;
  /** Every build-root file parsed, by path, as last sent (the host sends a fixed set). */
  readonly #parsed = new Map<string, ts.SourceFile>();
  /** The last check's program, the aliases it was made with, and whether anything imported it. */
  #previous: { program: ts.Program; aliases: string; programImported: boolean } | undefined;
  /**
   * Verdicts of dependencies, by the set of dependencies (their ids) they
   * were reached with, the most recent last: programs importing different
   * modules in turn each find theirs.
   */
  readonly #worlds = new Map<string, Map<ts.SourceFile, readonly ts.Diagnostic[]>>();

  /** Parses and carves every library file once. */
  constructor() {
    this.#libs = worldLibs();
  }

  /**
   * Type-checks `program.ts` of `files` (build-root relative path to text)
   * and returns its diagnostics, at most {@linkcode MAX_DIAGNOSTICS}, in
   * `deno check`'s order: syntax, options, global, then semantic. Each of
   * `aliases` (a specifier the program imports, a build-root relative path)
   * resolves that specifier, from the program, to that file. Each of
   * `vouched` (a build-root relative path) is a file its sender vouches has
   * no diagnostics of its own, as the library's generated modules and
   * sandbox files, each of which `deno check` passes alone: while the
   * program cannot reach into its dependencies (see `reachesOut`), such a
   * file is only read for what the program takes from it, never checked in
   * full, which spares the checker every type its declarations would build.
   */
  check(
    files: readonly (readonly [string, string])[],
    aliases: readonly (readonly [string, string])[] = [],
    vouched: readonly string[] = [],
  ): Diagnostic[] {
    const root = new Map<string, ts.SourceFile>();
    for (const [relative, text] of files) {
      const path = `${VIRTUAL_ROOT}${relative}`;
      const previous = this.#parsed.get(path);
      const file = previous?.text === text ? previous : this.#parse(path, text);
      // Kept while absent from a check too: a program sends only the modules
      // it imports, and the next that imports one finds it parsed.
      this.#parsed.set(path, file);
      root.set(path, file);
    }
    const trace: HostTrace = { programImported: false };
    // The last program lends its structure: unchanged files keep their
    // place and their module resolutions, so only what changed is processed
    // again. Resolutions depend on the aliases too, so it lends only to a
    // check with the same ones; and should a file it lends, one that
    // imported the program, not be resolved again, its trace carries over.
    const lent = JSON.stringify(aliases);
    const previous = this.#previous?.aliases === lent ? this.#previous : undefined;
    const program = ts.createProgram({
      rootNames: [PROGRAM_PATH],
      options: COMPILER_OPTIONS,
      host: createHost(this.#libs, root, trace, aliases),
      ...(previous === undefined ? {} : { oldProgram: previous.program }),
    });
    if (previous?.programImported) trace.programImported = true;
    this.#previous = { program, aliases: lent, programImported: trace.programImported };
    const found = [
      ...program.getSyntacticDiagnostics(),
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...this.#semantic(program, trace, new Set(vouched.map((path) => VIRTUAL_ROOT + path))),
    ];
    return found.slice(0, MAX_DIAGNOSTICS).map(toDiagnostic);
  }

  #parse(path: string, text: string): ts.SourceFile {
    const file = parse(path, text);
    this.#ids.set(file, this.#nextId++);
    return file;
  }

  /** Semantic diagnostics of the build root's files, in program order, vouched ones aside. */
  #semantic(program: ts.Program, trace: HostTrace, vouched: Set<string>): ts.Diagnostic[] {
    const files = program.getSourceFiles().filter((file) => file.fileName.startsWith(VIRTUAL_ROOT));
    const entry = program.getSourceFile(PROGRAM_PATH);
    const world = files.filter((file) => file !== entry).map((file) => this.#ids.get(file))
      .join(",");
    const verdicts = this.#worlds.get(world) ?? new Map<ts.SourceFile, readonly ts.Diagnostic[]>();
    this.#worlds.delete(world);
    this.#worlds.set(world, verdicts);
    for (const [oldest] of this.#worlds) {
      if (this.#worlds.size <= MAX_VERDICT_WORLDS) break;
      this.#worlds.delete(oldest);
    }
    const shared = entry !== undefined && !trace.programImported && !reachesOut(entry);
    const found: ts.Diagnostic[] = [];
    for (const file of files) {
      const reusable = shared && file !== entry && directiveFree(file);
      if (reusable && vouched.has(file.fileName)) continue;
      let diagnostics = reusable ? verdicts.get(file) : undefined;
      if (diagnostics === undefined) {
        diagnostics = program.getSemanticDiagnostics(file);
        if (reusable) verdicts.set(file, diagnostics);
      }
      found.push(...diagnostics);
    }
    return found;
  }
}
