/**
 * The messages between the resident checker (host side, `runner/host/checker.ts`)
 * and its process (`entry.ts`), one JSON object per line each way, and the
 * decoders each side runs on what it receives. Messages are plain data with a
 * `kind`; anything else decodes to a `bad_message` fault, which the receiver
 * reports rather than trusts.
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";

/** Where the build root lives in the compiler's virtual file system. */
export const VIRTUAL_ROOT = "/sandbox/";

/** One module specifier a program names, with where it is (1-based). */
export type NamedImport = { specifier: string; line: number; column: number };

/** A construct the runner refuses, with where it is (1-based). */
export type ImportProblem = { line: number; column: number; message: string };

/** What a program imports, and what it does that the runner refuses. */
export type ImportScan = { imports: NamedImport[]; problems: ImportProblem[] };

/** A place a diagnostic's message refers to (TypeScript's related information), 1-based. */
export type RelatedInformation = {
  /** The module it is in: `program.ts`, `mcp/echo.ts`, or a library file (`lib.es5.d.ts`). */
  file: string;
  line: number;
  column: number;
  /** What is there: `The expected type comes from property 'b' which is declared here ...`. */
  message: string;
  /** The line it is on, with a marker under it (see {@linkcode Diagnostic.excerpt}). */
  excerpt?: string;
};

/** One problem found before a program runs, at a 1-based line and column of `file`. */
export type Diagnostic = {
  /** The module it is in, relative to the build root: `program.ts`, `mcp/echo.ts`. */
  file: string;
  line: number;
  column: number;
  message: string;
  /** TypeScript's error code (`2322` for TS2322); absent for the runner's own diagnostics. */
  code?: number;
  /**
   * The source line the problem is on and, under it, a line marking its span
   * as `deno check` does (`^` under one character, `~~~` under more): two
   * lines joined by `\n`, the source line cut around the column when it is long.
   */
  excerpt?: string;
  /** The places the message refers to: where an expected type comes from, a declaration. */
  related?: RelatedInformation[];
};

/** Host to checker process. */
export type CheckerRequest =
  /** Find the modules a program names. */
  | { kind: "scan"; id: number; source: string }
  /**
   * Check these build-root files (relative path, text); `program.ts` is the
   * root. Each alias is a specifier the program imports that names no file,
   * and the build-root file to check it as (the module it surely meant), so
   * that one check finds the problems of its imports too. Each vouched path
   * is a file of `files` that has no diagnostics of its own (see
   * `ClosedWorldCompiler.check`).
   */
  | {
    kind: "check";
    id: number;
    files: [string, string][];
    aliases?: [string, string][];
    vouched?: string[];
  };

/** Checker process to host. */
export type CheckerReply =
  /** The compiler is loaded and its libraries parsed. */
  | { kind: "ready" }
  /** A scan finished. */
  | { kind: "scanned"; id: number; scan: ImportScan }
  /** A check finished; `heapBytes` is the process's heap after it. */
  | { kind: "checked"; id: number; diagnostics: Diagnostic[]; heapBytes: number }
  /** The compiler threw; the process is not trusted further. */
  | { kind: "fault"; id: number; message: string };

/** A message that is not one this protocol knows. */
export type ProtocolFault = { kind: "bad_message"; message: string };

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isPosition(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

function isPlace(value: unknown): value is RelatedInformation {
  return isFields(value) && typeof value.file === "string" && isPosition(value.line) &&
    isPosition(value.column) && typeof value.message === "string" &&
    (value.excerpt === undefined || typeof value.excerpt === "string");
}

function isDiagnostic(value: unknown): value is Diagnostic {
  if (!isPlace(value)) return false;
  const { code, related } = value as Fields;
  return (code === undefined || isPosition(code)) &&
    (related === undefined || (Array.isArray(related) && related.every(isPlace)));
}

/** A place with only its known fields, so that nothing else the process wrote travels on. */
function place(value: RelatedInformation): RelatedInformation {
  const out: RelatedInformation = {
    file: value.file,
    line: value.line,
    column: value.column,
    message: value.message,
  };
  if (value.excerpt !== undefined) out.excerpt = value.excerpt;
  return out;
}

/** A diagnostic with only its known fields. */
function diagnostic(value: Diagnostic): Diagnostic {
  const out: Diagnostic = place(value);
  if (value.code !== undefined) out.code = value.code;
  if (value.related !== undefined) out.related = value.related.map(place);
  return out;
}

function isProblem(value: unknown): value is ImportProblem {
  return isFields(value) && isPosition(value.line) && isPosition(value.column) &&
    typeof value.message === "string";
}

function isImport(value: unknown): value is NamedImport {
  return isFields(value) && isPosition(value.line) && isPosition(value.column) &&
    typeof value.specifier === "string";
}

function isFile(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === "string" &&
    typeof value[1] === "string";
}

function fault(what: string): { ok: false; error: ProtocolFault } {
  return err({ kind: "bad_message", message: `Cannot decode a checker message: ${what}` });
}

/** Decodes what the checker process wrote. */
export function decodeReply(data: unknown): Result<CheckerReply, ProtocolFault> {
  if (!isFields(data)) return fault("it is not an object");
  switch (data.kind) {
    case "ready":
      return ok({ kind: "ready" });
    case "scanned": {
      const scan = data.scan;
      if (!isId(data.id)) return fault('"scanned" has no id');
      if (
        !isFields(scan) || !Array.isArray(scan.imports) || !scan.imports.every(isImport) ||
        !Array.isArray(scan.problems) || !scan.problems.every(isProblem)
      ) {
        return fault('"scanned" has a malformed scan');
      }
      return ok({
        kind: "scanned",
        id: data.id,
        scan: { imports: scan.imports, problems: scan.problems },
      });
    }
    case "checked":
      if (!isId(data.id)) return fault('"checked" has no id');
      if (!Array.isArray(data.diagnostics) || !data.diagnostics.every(isDiagnostic)) {
        return fault('"checked" has malformed diagnostics');
      }
      if (typeof data.heapBytes !== "number") return fault('"checked" has no "heapBytes"');
      return ok({
        kind: "checked",
        id: data.id,
        diagnostics: data.diagnostics.map(diagnostic),
        heapBytes: data.heapBytes,
      });
    case "fault":
      if (!isId(data.id) || typeof data.message !== "string") return fault('"fault" is malformed');
      return ok({ kind: "fault", id: data.id, message: data.message });
    default:
      return fault(`unknown kind "${String(data.kind).slice(0, 40)}"`);
  }
}

/** Decodes what the host wrote. */
export function decodeRequest(data: unknown): Result<CheckerRequest, ProtocolFault> {
  if (!isFields(data)) return fault("it is not an object");
  if (!isId(data.id)) return fault("a request has no id");
  if (data.kind === "scan") {
    if (typeof data.source !== "string") return fault('"scan" has no source');
    return ok({ kind: "scan", id: data.id, source: data.source });
  }
  if (data.kind === "check") {
    if (!Array.isArray(data.files) || !data.files.every(isFile)) {
      return fault('"check" has malformed files');
    }
    const request: CheckerRequest = { kind: "check", id: data.id, files: data.files };
    if (data.aliases !== undefined) {
      if (!Array.isArray(data.aliases) || !data.aliases.every(isFile)) {
        return fault('"check" has malformed aliases');
      }
      request.aliases = data.aliases;
    }
    if (data.vouched !== undefined) {
      if (!Array.isArray(data.vouched) || !data.vouched.every((path) => typeof path === "string")) {
        return fault('"check" has malformed vouched paths');
      }
      request.vouched = data.vouched;
    }
    return ok(request);
  }
  return fault("it is neither a scan nor a check");
}
