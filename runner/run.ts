/**
 * The code-mode runner: runs one model-written TypeScript program against the
 * generated `mcp/<segment>.ts` modules, in a separate Deno process with no
 * permission but reading its own build root, and reports what happened as a
 * value.
 *
 * How a run goes:
 *
 * 1. The program's imports are scanned. It may import `./mcp/<segment>.ts`
 *    for a server of the harness, and `@loom/mcp/cap`; anything else (another
 *    path, a remote URL, `npm:`, `node:`, a computed dynamic import, a comment
 *    directive that makes the checker read a file) is rejected before anything
 *    runs.
 * 2. A fresh temporary directory gets a build root holding the program, only
 *    the modules it imports, `cap.ts`, and the sandbox's bootstrap, worker
 *    prelude and tag vocabulary (`runner/sandbox/`), all written from source text this module carries (so it works
 *    when the library itself is loaded from a remote URL). Beside the root: the
 *    import map (`@loom/mcp/cap` to the root's `cap.ts`) and a private
 *    `DENO_DIR` for the type check, so nothing persists between runs. The
 *    sandbox's own `DENO_DIR` cannot be created (a run needs no cache, and
 *    the Cache API writes there without any permission), and the prelude
 *    removes `caches`. The directory is removed at the end. A source past
 *    `MAX_PROGRAM_BYTES` is refused before this, before any scan.
 * 3. Unless skipped, `deno check` type-checks the program with the modules;
 *    type errors come back as diagnostics and the program does not run.
 * 4. The sandbox process starts: `deno run --no-prompt --no-remote --no-npm
 *    --no-config --no-lock --allow-read=<root>` with
 *    `--disallow-code-generation-from-strings` and a V8 heap cap, and an
 *    empty environment. The string-eval ban is defence in depth only: code
 *    built from a string still runs through a `data:` worker or `import()`
 *    of a `data:` URL (the scan refuses both in the program's own text), and
 *    runs there with the same permissions, so the boundary is the read
 *    permission, not the ban. Its main module, the bootstrap, reads a per-execution
 *    nonce from stdin and starts the program in a Worker (a main module could
 *    import any local JSON file with no permission; a Worker's loads are
 *    checked against the read permission). Tool calls, console output and the
 *    end of the program travel to the host as nonce-authenticated lines on
 *    stdout; anything else the program prints is a log line, and nothing it
 *    prints can pose as a frame.
 * 5. Each call goes through the `call` of the options (the harness's), with
 *    the arguments rebuilt as the program passed them, so that the harness's
 *    interchange rules refuse what JSON cannot say, with its path. Calls run
 *    concurrently.
 *
 * Lifecycle: {@linkcode runProgram} owns everything it creates, the type
 * check's process, the sandbox process and the temporary directory; it
 * returns only after both processes have exited and every tool call it
 * started has settled (a call is bounded by the harness's own deadlines), and
 * it removes the directory on every path.
 *
 * @module
 */

import { MAX_LINE_BYTES } from "../codec/framing.ts";
import { NAMING_RULE } from "../codegen/names.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import type { Result } from "../codec/result.ts";
import { type Diagnostic, typeCheck } from "./_check.ts";
import { explainDiagnostics } from "./_explain.ts";
import { scanImports } from "./_imports.ts";
import { type CallFailure, type CallRecord, type KillReason, runSession } from "./_session.ts";
import {
  BOOTSTRAP_SOURCE,
  CAP_SOURCE,
  PRELUDE_SOURCE,
  TAGS_SOURCE,
} from "../_generated/sandbox_sources.ts";
import { MAX_PROGRAM_BYTES } from "./limits.ts";

export type { CallFailure, CallRecord, Diagnostic, KillReason };
export * from "./limits.ts";

/** Default wall-clock deadline of one program run, in milliseconds: 30 s. */
export const DEFAULT_RUN_TIMEOUT_MS = 30_000;
/** Default V8 heap cap of the sandbox, in MiB: 256. */
export const DEFAULT_RUN_MEMORY_MB = 256;
/** The least heap cap accepted, in MiB: 16. */
export const MIN_RUN_MEMORY_MB = 16;
/** Default cap on the tool calls of one run: 100. */
export const DEFAULT_MAX_CALLS = 100;
/** Default cap on what a program prints, in UTF-8 bytes: 256 KiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/** Default deadline of the type check, in milliseconds: 60 s. */
export const DEFAULT_CHECK_TIMEOUT_MS = 60_000;
/**
 * The largest message the sandbox may send the host (a call's arguments, a
 * result): the codec's line cap, which the decoder of the channel enforces.
 */
export const MAX_FRAME_BYTES: number = MAX_LINE_BYTES;
/** The specifier a program imports the errors (and `invoke`) from. */
export const CAP_SPECIFIER = "@loom/mcp/cap";

/**
 * What a program looks like, in words a model reads: a harness shows this
 * with the surface.
 *
 * @example Show the convention before the surface
 * ```ts
 * import { PROGRAM_CONVENTION } from "@loom/mcp";
 * const prompt = `${PROGRAM_CONVENTION}\n\n(surface here)`;
 * console.log(prompt.startsWith("A program is")); // true
 * ```
 */
export const PROGRAM_CONVENTION: string = [
  "A program is one TypeScript module, checked with strict types before it runs.",
  "Import the functions of a server from the module path the surface shows for it, relative:",
  'import { some_tool } from "./mcp/<segment>.ts";',
  'and, when you need them, the errors: import { McpToolError, McpCallError } from "@loom/mcp/cap";',
  NAMING_RULE,
  "Nothing else can be imported. Top-level await works; calls made together with",
  "Promise.all run concurrently. The program's result is the value of its",
  "`export default` (awaited when it is a promise); without one the result is undefined.",
  "Each function resolves to a ToolResult<T>: .text joins its text blocks, .structuredContent",
  "is T (typed when the surface shows ToolResult<{ ... }>), .content is ContentBlock[]:",
  '  { type: "text"; text } | { type: "image" | "audio"; data; mimeType }',
  '  | { type: "resource_link"; uri; name; title?; description?; mimeType?; size? }',
  '  | { type: "resource"; resource: { uri; mimeType?; text } | { uri; mimeType?; blob } }',
  '  | { type: "other"; originalType; raw }   (narrow on .type)',
  "A tool that reports failure throws McpToolError (.text, .content);",
  "a call that is denied or fails throws McpCallError (.code says why).",
  "console.log output is returned with the result. The program cannot read files,",
  "use the network, read the environment or run commands.",
].join("\n");

/**
 * One generated module the runner can place in a build root. The manifest
 * (each exported identifier to its tool's wire name, as `generate` makes it)
 * lets a diagnostic name the closest exports; without one they are read from
 * the source.
 */
export type RunModule = { segment: string; source: string; manifest?: ReadonlyMap<string, string> };

/** What {@linkcode runProgram} needs: the modules, the call, and the limits. */
export type RunOptions = {
  /** Server name to its generated module; a program imports `./mcp/<segment>.ts`. */
  modules: ReadonlyMap<string, RunModule>;
  /** Carries one tool call; a harness passes its own `call`. */
  call: (
    server: string,
    tool: string,
    args: unknown,
  ) => Promise<Result<CallToolResult, { kind: string; message: string }>>;
  /** Wall-clock deadline of the program, in milliseconds; {@linkcode DEFAULT_RUN_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** V8 heap cap in MiB; {@linkcode DEFAULT_RUN_MEMORY_MB}. */
  memoryMb?: number;
  /** Cap on tool calls; {@linkcode DEFAULT_MAX_CALLS}. */
  maxCalls?: number;
  /** Cap on printed bytes; {@linkcode DEFAULT_MAX_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
  /** Type-check before running (default `true`). */
  typeCheck?: boolean;
  /** Deadline of the type check, in milliseconds; {@linkcode DEFAULT_CHECK_TIMEOUT_MS}. */
  checkTimeoutMs?: number;
  /** Aborting kills the run (outcome `killed`, reason `aborted`). */
  signal?: AbortSignal;
  /** The Deno executable to run the sandbox with; `Deno.execPath()` by default. */
  denoExecutable?: string;
  /** The folder a run's build root is made in (and removed from); the system's by default. */
  tempDir?: string;
};

/** A limit of a run. */
export type RunLimit = "timeout" | "memory" | "output" | "calls";

/** How a program ended. */
export type RunOutcome =
  /**
   * It finished; `value` is its `export default`, awaited, as JSON sees it
   * (`toJSON` honoured, so a `ToolResult` is `{ content, structuredContent?,
   * text }` and a Date its ISO string; an `undefined` property absent) with
   * bigints exact, and whatever JSON cannot say as a marker naming it:
   * `{ "$unrepresentable": "instance of Map (2 entries)" }`, never `{}`.
   */
  | { kind: "returned"; value: unknown }
  /** It called `Deno.exit`; `code` is the status it asked for. */
  | { kind: "exited"; code: number }
  /** It threw; the stack names the program's own files and lines (`program.ts:3:9`). */
  | { kind: "threw"; name: string; message: string; stack: string }
  /** It was stopped: a limit, a broken channel, or an abort. */
  | { kind: "killed"; reason: KillReason; message: string }
  /** It never ran: bad imports or type errors. */
  | { kind: "rejected"; diagnostics: Diagnostic[] };

/** Everything one run produced. */
export type RunReport = {
  outcome: RunOutcome;
  /** What the program printed, one entry per console call or line, capped. */
  logs: string[];
  /** Every tool call, in the order the host received them. */
  calls: CallRecord[];
  /** The limits in force, and which of them the run hit. */
  limits: {
    timeoutMs: number;
    memoryMb: number;
    maxCalls: number;
    maxOutputBytes: number;
    hit: RunLimit[];
  };
};

const SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;
const MODULE_PATH = /^\.\/mcp\/([^/]+)\.ts$/;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`Cannot run the program: "${name}" is ${value}, not a positive integer`);
  }
  return value;
}

function exportsOf(module: RunModule): string[] {
  if (module.manifest !== undefined) return [...module.manifest.keys()];
  return [...module.source.matchAll(/^export function ([A-Za-z_][A-Za-z0-9_]*)\(/gm)].map((m) =>
    m[1] as string
  );
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function aborted(limits: RunReport["limits"]): RunReport {
  const message = "The run was aborted by its caller";
  return { outcome: { kind: "killed", reason: "aborted", message }, logs: [], calls: [], limits };
}

function rejected(diagnostics: Diagnostic[], limits: RunReport["limits"]): RunReport {
  return { outcome: { kind: "rejected", diagnostics }, logs: [], calls: [], limits };
}

/**
 * The module segments a program imports as `./mcp/<segment>.ts`, each once,
 * in the order first imported: the servers it needs, so that a caller can
 * boot only those. Anything else the program imports is left to
 * {@linkcode runProgram} to refuse.
 *
 * @example Boot only what a program uses
 * ```ts
 * import { importedSegments } from "@loom/mcp";
 * const source = 'import { read_graph } from "./mcp/memory.ts";\nexport default 1;';
 * console.log(importedSegments(source)); // ["memory"]
 * ```
 */
export function importedSegments(source: string): string[] {
  const segments = new Set<string>();
  for (const { specifier } of scanImports(String(source)).imports) {
    const segment = MODULE_PATH.exec(specifier)?.[1];
    if (segment !== undefined) segments.add(segment);
  }
  return [...segments];
}

/**
 * Runs one program in the sandbox and reports its outcome, its logs, its tool
 * calls and the limits it hit. Never throws for anything the program does;
 * throws `TypeError` or `RangeError` only for bad options.
 *
 * @example Run a program against one server
 * ```ts ignore
 * import { runProgram } from "@loom/mcp";
 * const report = await runProgram(
 *   'import { echo } from "./mcp/echo.ts";\nexport default (await echo({ text: "hi" })).text;',
 *   { modules: harness.modules, call: harness.call },
 * );
 * if (report.outcome.kind === "returned") console.log(report.outcome.value);
 * ```
 */
export async function runProgram(source: string, options: RunOptions): Promise<RunReport> {
  if (typeof source !== "string") {
    throw new TypeError(`Cannot run the program: it is ${typeof source}, not a string`);
  }
  if (typeof options?.call !== "function") {
    throw new TypeError("Cannot run the program: options.call is not a function");
  }
  const limits: RunReport["limits"] = {
    timeoutMs: positiveInteger("timeoutMs", options.timeoutMs, DEFAULT_RUN_TIMEOUT_MS),
    memoryMb: positiveInteger("memoryMb", options.memoryMb, DEFAULT_RUN_MEMORY_MB),
    maxCalls: positiveInteger("maxCalls", options.maxCalls, DEFAULT_MAX_CALLS),
    maxOutputBytes: positiveInteger(
      "maxOutputBytes",
      options.maxOutputBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
    ),
    hit: [],
  };
  if (limits.memoryMb < MIN_RUN_MEMORY_MB) {
    throw new RangeError(
      `Cannot run the program: "memoryMb" is ${limits.memoryMb}, less than ${MIN_RUN_MEMORY_MB}`,
    );
  }
  const checkTimeoutMs = positiveInteger(
    "checkTimeoutMs",
    options.checkTimeoutMs,
    DEFAULT_CHECK_TIMEOUT_MS,
  );
  const bySegment = new Map<string, RunModule>();
  for (const [server, module] of options.modules) {
    if (!SEGMENT.test(module.segment)) {
      throw new TypeError(
        `Cannot run the program: server "${server}" has the unusable segment "${module.segment}"`,
      );
    }
    if (bySegment.has(module.segment)) {
      throw new TypeError(
        `Cannot run the program: two servers share the segment "${module.segment}"`,
      );
    }
    bySegment.set(module.segment, module);
  }

  // A UTF-8 text holds at least as many bytes as UTF-16 code units.
  if (source.length > MAX_PROGRAM_BYTES || utf8Bytes(source) > MAX_PROGRAM_BYTES) {
    return rejected([{
      file: "program.ts",
      line: 1,
      column: 1,
      message: `Cannot run the program: its source is larger than ${MAX_PROGRAM_BYTES} bytes ` +
        `(at least ${source.length}); write a shorter program`,
    }], limits);
  }

  const scan = scanImports(source);
  const diagnostics: Diagnostic[] = scan.problems.map((problem) => ({
    file: "program.ts",
    ...problem,
  }));
  const used = new Map<string, RunModule>();
  for (const { specifier, line, column } of scan.imports) {
    if (specifier === CAP_SPECIFIER) continue;
    const segment = MODULE_PATH.exec(specifier)?.[1];
    const module = segment === undefined ? undefined : bySegment.get(segment);
    if (segment !== undefined && module !== undefined) {
      used.set(segment, module);
      continue;
    }
    const known = [...bySegment.keys()].map((name) => `"./mcp/${name}.ts"`).join(", ");
    diagnostics.push({
      file: "program.ts",
      line,
      column,
      message: segment !== undefined
        ? `Cannot import "${specifier}": no server of this harness has that module ` +
          `(available: ${known || "none"})`
        : `Cannot import "${specifier}": a program may import only its servers' modules ` +
          `(${known || "none"}) and "${CAP_SPECIFIER}"`,
    });
  }
  if (diagnostics.length > 0) return rejected(diagnostics, limits);

  if (options.signal?.aborted) return aborted(limits);
  const deno = options.denoExecutable ?? Deno.execPath();
  const base = await Deno.realPath(
    await Deno.makeTempDir({
      prefix: "loom-run-",
      ...(options.tempDir === undefined ? {} : { dir: options.tempDir }),
    }),
  );
  try {
    const rootPath = `${base}/root/`;
    const rootUrl = new URL(`file://${rootPath}`).href;
    const importMap = `${base}/import_map.json`;
    await Deno.mkdir(`${rootPath}mcp`, { recursive: true });
    await Deno.writeTextFile(`${rootPath}program.ts`, source);
    await Deno.writeTextFile(`${rootPath}cap.ts`, CAP_SOURCE);
    await Deno.writeTextFile(`${rootPath}bootstrap.ts`, BOOTSTRAP_SOURCE);
    await Deno.writeTextFile(`${rootPath}prelude.ts`, PRELUDE_SOURCE);
    await Deno.writeTextFile(`${rootPath}tags.ts`, TAGS_SOURCE);
    for (const [segment, module] of used) {
      await Deno.writeTextFile(`${rootPath}mcp/${segment}.ts`, module.source);
    }
    await Deno.writeTextFile(
      importMap,
      JSON.stringify({ imports: { [CAP_SPECIFIER]: `${rootUrl}cap.ts` } }),
    );
    const env = { DENO_DIR: `${base}/cache`, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
    // The sandbox needs no cache; its DENO_DIR lies below a regular file, so
    // nothing (the Cache API included) can create it.
    await Deno.writeTextFile(`${base}/sealed`, "");
    const sandboxEnv = { ...env, DENO_DIR: `${base}/sealed/deno_dir` };
    const closed = ["--no-remote", "--no-npm", "--no-config", "--no-lock", "--quiet"];

    if (options.typeCheck ?? true) {
      const checked = await typeCheck({
        deno,
        args: ["check", ...closed, `--import-map=${importMap}`, `${rootPath}program.ts`],
        env,
        rootUrl,
        timeoutMs: checkTimeoutMs,
        signal: options.signal,
      });
      if (checked.kind === "failed") {
        const exports = new Map([...used].map(([segment, module]) => [segment, exportsOf(module)]));
        const hostRoots = [rootUrl, rootPath, `file://${base}/`, `${base}/`];
        return rejected(explainDiagnostics(checked.diagnostics, { exports, hostRoots }), limits);
      }
      if (checked.kind === "timed_out") {
        return rejected([{
          file: "program.ts",
          line: 1,
          column: 1,
          message: `Cannot type-check the program: the check ran past ${checkTimeoutMs} ms`,
        }], limits);
      }
      if (checked.kind === "aborted") return aborted(limits);
    }

    const session = await runSession({
      deno,
      args: [
        "run",
        "--no-prompt",
        ...closed,
        "--no-code-cache",
        `--allow-read=${rootPath}`,
        `--import-map=${importMap}`,
        `--v8-flags=--disallow-code-generation-from-strings,--max-old-space-size=${limits.memoryMb}`,
        `${rootPath}bootstrap.ts`,
      ],
      env: sandboxEnv,
      nonce: nonce(),
      rootUrl,
      rootPath,
      call: options.call,
      timeoutMs: limits.timeoutMs,
      memoryMb: limits.memoryMb,
      maxCalls: limits.maxCalls,
      maxOutputBytes: limits.maxOutputBytes,
      signal: options.signal,
    });
    const { outcome } = session;
    if (outcome.kind === "killed" && outcome.reason !== "channel" && outcome.reason !== "aborted") {
      limits.hit.push(outcome.reason);
    }
    return { outcome, logs: session.logs, calls: session.calls, limits };
  } finally {
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
}
