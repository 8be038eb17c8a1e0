/**
 * The closed world the checker's compiler lives in: its options, its virtual
 * file system, and the compiler host that holds the only files it can ever
 * see.
 *
 * The files: the build root of one check (`/sandbox/program.ts`,
 * `/sandbox/cap.ts`, `/sandbox/mcp/<segment>.ts`) and the libraries under
 * `/lib/` (the closure of `_libs.ts`, carved to the sandbox's world by
 * `_world.ts`). Every other question the compiler asks is answered "does
 * not exist" from memory: a `/// <reference path>` or an import of
 * `/etc/passwd` or `../secret.ts`, a `/// <reference types>`, a
 * `node_modules/@types` lookup, a `package.json` scope. Nothing is looked up
 * on the disk, so no diagnostic can depend on what the host's disk holds.
 *
 * @module
 */

import "./_no_node_system.ts";
import ts from "npm:typescript@6.0.3";
import { LIB_FILES } from "./_libs.ts";
import { VIRTUAL_ROOT } from "./protocol.ts";
import { carve, WORLD_ROOTS } from "./_world.ts";
import { DEFAULT_CAP_SPECIFIER } from "../../codegen/generate.ts";

export { VIRTUAL_ROOT };
/** Where the libraries live in the compiler's virtual file system. */
export const VIRTUAL_LIB = "/lib/";
/** The program's virtual path. */
export const PROGRAM_PATH = `${VIRTUAL_ROOT}program.ts`;
/** The cap seam's virtual path. */
export const CAP_PATH = `${VIRTUAL_ROOT}cap.ts`;
/** The specifier generated modules and programs import the cap seam by. */
export const CAP_SPECIFIER: string = DEFAULT_CAP_SPECIFIER;

/**
 * The options `deno check --no-config` prints with `--log-level=debug`
 * (Deno 2.9.6), less those that only concern emit, JSX, JavaScript files or
 * build info, with `lib` replaced by the sandbox's world.
 */
export const COMPILER_OPTIONS: ts.CompilerOptions = {
  allowImportingTsExtensions: true,
  allowSyntheticDefaultImports: true,
  isolatedModules: true,
  lib: [...WORLD_ROOTS],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  noEmit: true,
  noImplicitOverride: true,
  strict: true,
  target: ts.ScriptTarget.ESNext,
  useDefineForClassFields: true,
  // Deno checks its libraries once and caches the verdict; here they are
  // trusted text, and checking them for every program would cost more than
  // the program.
  skipDefaultLibCheck: true,
  // No automatic `@types` inclusion: there is no `node_modules` to look in.
  types: [],
};

// Public at run time but not declared: the compiler's own way of applying
// `moduleDetection` to a file parsed outside a program.
const detection = ts as unknown as {
  getSetExternalModuleIndicator(options: ts.CompilerOptions): (file: ts.SourceFile) => void;
};

const PARSE_OPTIONS: ts.CreateSourceFileOptions = {
  languageVersion: ts.ScriptTarget.ESNext,
  // Every file is an ES module, as for Deno; no `package.json` decides it.
  impliedNodeFormat: ts.ModuleKind.ESNext,
  // `moduleDetection: force`: a program without imports is a module too, so
  // top-level await works in it, as under `deno check`.
  setExternalModuleIndicator: detection.getSetExternalModuleIndicator(COMPILER_OPTIONS),
  jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors,
};

/** Parses one virtual file as TypeScript. */
export function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, PARSE_OPTIONS, false, ts.ScriptKind.TS);
}

/** Every library file of the world by its virtual path, parsed once and carved (`_world.ts`). */
export function worldLibs(): Map<string, ts.SourceFile> {
  const libs = new Map<string, ts.SourceFile>();
  for (const [name, text] of LIB_FILES) {
    const path = `${VIRTUAL_LIB}${name}`;
    libs.set(path, carve(parse(path, text)).file);
  }
  return libs;
}

/**
 * Where `specifier`, imported from `from`, lands in the build root, if it
 * names one of its files: the cap seam by its specifier, or a relative path.
 * The path stays percent-encoded, so `%2e%2e/` never walks up, and a query
 * or a fragment never matches.
 */
export function resolveInRoot(
  specifier: string,
  from: string,
  root: ReadonlyMap<string, unknown>,
): string | undefined {
  if (specifier === CAP_SPECIFIER) return root.has(CAP_PATH) ? CAP_PATH : undefined;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  if (!from.startsWith(VIRTUAL_ROOT)) return undefined;
  const url = new URL(specifier, `file://${from}`);
  if (url.search !== "" || url.hash !== "") return undefined;
  return root.has(url.pathname) ? url.pathname : undefined;
}

function resolution(path: string | undefined): ts.ResolvedModuleWithFailedLookupLocations {
  if (path === undefined) return { resolvedModule: undefined };
  return { resolvedModule: { resolvedFileName: path, extension: ts.Extension.Ts } };
}

/** What a host saw while a program was built. */
export type HostTrace = {
  /** A file other than the program imports the program. */
  programImported: boolean;
};

/**
 * A compiler host over `libs` and one check's build root `root`, both keyed
 * by virtual path. Every answer comes from those two maps; `trace` records
 * what the verdict cache needs to know about imports. An alias (a specifier
 * the program imports, a build-root relative path) resolves that specifier,
 * from the program only, to that file of the root when it names none itself.
 */
export function createHost(
  libs: ReadonlyMap<string, ts.SourceFile>,
  root: ReadonlyMap<string, ts.SourceFile>,
  trace: HostTrace,
  aliases: readonly (readonly [string, string])[] = [],
): ts.CompilerHost {
  const known = (path: string) => libs.get(path) ?? root.get(path);
  const aliased = new Map<string, string>();
  for (const [specifier, relative] of aliases) {
    const path = `${VIRTUAL_ROOT}${relative}`;
    if (root.has(path) && path !== PROGRAM_PATH) aliased.set(specifier, path);
  }
  return {
    getSourceFile: known,
    getDefaultLibFileName: () => `${VIRTUAL_LIB}lib.esnext.d.ts`,
    getDefaultLibLocation: () => VIRTUAL_LIB,
    getCurrentDirectory: () => VIRTUAL_ROOT,
    getCanonicalFileName: (path) => path,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    writeFile: () => {},
    fileExists: (path) => known(path) !== undefined,
    readFile: (path) => known(path)?.text,
    directoryExists: () => false,
    getDirectories: () => [],
    realpath: (path) => path,
    getEnvironmentVariable: () => undefined,
    resolveModuleNameLiterals: (literals, containingFile) =>
      literals.map((literal) => {
        const path = resolveInRoot(literal.text, containingFile, root) ??
          (containingFile === PROGRAM_PATH ? aliased.get(literal.text) : undefined);
        if (path === PROGRAM_PATH && containingFile !== PROGRAM_PATH) trace.programImported = true;
        return resolution(path);
      }),
    resolveTypeReferenceDirectiveReferences: (references) =>
      references.map(() => ({ resolvedTypeReferenceDirective: undefined })),
  };
}

/** The name a diagnostic shows for a virtual file: relative to the root or the lib folder. */
export function displayName(path: string): string {
  if (path.startsWith(VIRTUAL_ROOT)) return path.slice(VIRTUAL_ROOT.length);
  if (path.startsWith(VIRTUAL_LIB)) return path.slice(VIRTUAL_LIB.length);
  return path;
}
