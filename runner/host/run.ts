/**
 * The code-mode runner's vocabulary: what a run is given (its options and
 * limits, with their defaults), what it reports, and what a model is told a
 * program looks like. The runner itself is `Runner` and the one-shot
 * `runProgram`, in `runner.ts`.
 *
 * @module
 */

import { MAX_LINE_BYTES } from "../../codec/framing.ts";
import { moduleSegment, NAMING_RULE } from "../../codegen/names.ts";
import { DEFAULT_CAP_SPECIFIER } from "../../codegen/generate.ts";
import type { CallToolResult, ResourceContents } from "../../codec/protocol.ts";
import type { CallProgress } from "../../codec/progress.ts";
import type { Result } from "../../codec/result.ts";
import type { JsonValue } from "../../codec/json.ts";
import type { Diagnostic, RelatedInformation } from "../checker/protocol.ts";
import type { Approve, RunInfo } from "./approval.ts";
export type { Diagnostic, RelatedInformation };
export type { Approval, ApprovalRequest, Approve, RunInfo } from "./approval.ts";
export * from "./limits.ts";

/**
 * The largest message the sandbox may send the host (a call's arguments, a
 * result): the codec's line cap, which the decoder of the channel enforces.
 */
export const MAX_FRAME_BYTES: number = MAX_LINE_BYTES;
/**
 * The specifier a program imports the errors (and `invoke`) from, which the
 * sandbox maps to its `cap.ts`: the one generated modules import by default.
 */
export const CAP_SPECIFIER: string = DEFAULT_CAP_SPECIFIER;

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
  "and, to find tools by what they do and read their signatures whole:",
  'import { search, describe } from "./tools.ts";',
  "and the servers' prompts and resources, from the same module: listPrompts(server?),",
  "getPrompt(server, name, args), listResources(server?), readResource(server, uri).",
  "A tool marked [may ask the user] asked a person (or a model) during a call: it may wait.",
  NAMING_RULE,
  "Nothing else can be imported. Top-level await works; calls made together with",
  "Promise.all run concurrently. The program's result is the value of its",
  "`export default` (awaited when it is a promise); without one the result is undefined.",
  "Each function resolves to a ToolResult<T>: .text joins its text blocks, .structuredContent",
  "is T (typed when the surface shows ToolResult<{ ... }>), .bytes is its size as JSON,",
  ".content is ContentBlock[]:",
  '  { type: "text"; text } | { type: "image" | "audio"; data; mimeType }',
  '  | { type: "resource_link"; uri; name; title?; description?; mimeType?; size? }',
  '  | { type: "resource"; resource: { uri; mimeType?; text } | { uri; mimeType?; blob } }',
  '  | { type: "other"; originalType; raw }   (narrow on .type)',
  "A tool that reports failure throws McpToolError (.text, .content);",
  "a call that is denied or fails throws McpCallError (.code says why).",
  "console.log output is returned with the result, both cut to a budget of bytes (a cut string",
  'ends "… [N more bytes]", a cut array with { "$cut": "N more items" }): check .bytes first.',
  "The program cannot read files, use the network, read the environment or run commands.",
  "Its globals are a Web Worker's",
  "but the network and storage: timers, AbortController, Blob, Request and Response, Headers,",
  "streams, TextEncoder, URL, crypto.subtle, Intl, Temporal, WebAssembly.",
].join("\n");

/**
 * One generated module the runner can place in a build root. The manifest
 * (each exported identifier to its tool's wire name, as `generate` makes it)
 * lets a diagnostic name the closest exports; without one they are read from
 * the source.
 */
export type RunModule = { segment: string; source: string; manifest?: ReadonlyMap<string, string> };

/** What `runProgram` needs: the modules, the call, and the limits. */
export type RunOptions = {
  /** Server name to its generated module; a program imports `./mcp/<segment>.ts`. */
  modules: ReadonlyMap<string, RunModule>;
  /** Carries one tool call; a harness passes its own `call`. */
  call: CallFunction;
  /**
   * Carries one read of a resource (a program's `read_resource(uri)`); a
   * harness passes its own. Without it, a read goes to `call`, marked
   * `resource` (see {@linkcode CallContext}).
   */
  read?: ReadFunction;
  /**
   * Answers a program's listings of prompts and resources and its gets of
   * prompts (`listPrompts`, `getPrompt`, `listResources` of `./tools.ts`),
   * as the host decoded them: a listing of one server's (or, with no
   * `server`, of every server's that offers them), or one prompt filled with
   * its arguments; the answer is the entries or the prompt, as JSON, or why
   * not. The run's report records each as a call of its method
   * (`prompts/list`, `prompts/get`, `resources/list`), of server `""` for a
   * listing of every server. A harness passes its own; without it, they are
   * refused (code `features_unavailable`).
   */
  features?: (
    request:
      | { op: "listPrompts"; server?: string }
      | { op: "getPrompt"; server: string; name: string; args: Record<string, string> }
      | { op: "listResources"; server?: string },
    options?: ReadContext,
  ) => Promise<Result<JsonValue, CallFailure>>;
  /**
   * Wall-clock deadline of the run, in milliseconds, counting the wait for a
   * sandbox slot and the program's own run (the type check has its own
   * deadline, `checkTimeoutMs`); {@linkcode DEFAULT_RUN_TIMEOUT_MS}. Past it
   * the calls still in flight are cancelled through the signal `call` was
   * given, and the run returns within `RUN_GRACE_MS`.
   */
  timeoutMs?: number;
  /** V8 heap cap in MiB; {@linkcode DEFAULT_RUN_MEMORY_MB}. */
  memoryMb?: number;
  /** Cap on tool calls; {@linkcode DEFAULT_MAX_CALLS}. */
  maxCalls?: number;
  /** Cap on printed bytes; {@linkcode DEFAULT_MAX_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
  /** Type-check before running (default `true`). */
  typeCheck?: boolean;
  /**
   * The program's file name as its author knows it (`reports/weekly.ts`):
   * its diagnostics name it so instead of `program.ts`, the default.
   */
  programName?: string;
  /** Deadline of the type check, in milliseconds; {@linkcode DEFAULT_CHECK_TIMEOUT_MS}. */
  checkTimeoutMs?: number;
  /** Aborting kills the run (outcome `killed`, reason `aborted`). */
  signal?: AbortSignal;
  /**
   * Hears each call's progress (its server's reports, its task's statuses),
   * with its call id: the index of its record in the report's `calls`. The
   * call's progress is asked for only when this is given.
   */
  onProgress?: (callId: number, progress: CallProgress) => void;
  /** The Deno executable to run the sandbox with; `Deno.execPath()` by default. */
  denoExecutable?: string;
  /** The folder a run's build root is made in (and removed from); the system's by default. */
  tempDir?: string;
  /**
   * The approval hook of this run's calls, handed to `call` with each of
   * them: a harness's call asks it instead of the harness's own.
   */
  approve?: Approve;
  /**
   * The run's own answer to an elicitation a server asks during one of its
   * calls, handed to `call` with each of them (a harness's `onElicit`,
   * typed there, `ServerRequestHandlers` of `@loom/mcp/client`); the runner
   * only carries it.
   */
  onElicit?: (request: never, context?: never) => Promise<unknown>;
  /** The run's own answer to a sampling request, carried as `onElicit` is. */
  onSample?: (request: never, context?: never) => Promise<unknown>;
};

/** A run's answer to what a server asks during its calls, as the runner carries it unread. */
export type ServerAskHandler = NonNullable<RunOptions["onElicit"]>;

/**
 * Options of one run on a resident runner (`Harness.run`, `Runner.run`):
 * those of `runProgram` but the modules and the call, which the runner holds.
 */
export type HarnessRunOptions = Omit<RunOptions, "modules" | "call" | "read" | "features">;

/** Why a run was stopped before the program finished. */
export type KillReason = "timeout" | "memory" | "output" | "calls" | "channel" | "aborted";

/** How one tool call failed, as the harness's `call` reports it. */
export type CallFailure = { kind: string; message: string };

/** What the runner tells the harness's call of each call it carries. */
export type CallContext = {
  /** Aborted when the run ends: a call still in flight is cancelled. */
  signal?: AbortSignal;
  /** The run the call comes from. */
  run?: RunInfo;
  /** The run's own approval hook, when it was given one. */
  approve?: Approve;
  /**
   * Marks the read of a resource, for a runner given no `read`: `tool` is
   * `resources/read`, `args` its `{ uri }`, the result's content its
   * contents as `resource` blocks. A runner given `read` never sets it.
   */
  resource?: boolean;
  /** Given when the run hears progress: what the call reports while it runs. */
  onProgress?: (progress: CallProgress) => void;
  /** The run's own `onElicit`, when it was given one. */
  onElicit?: (request: never, context?: never) => Promise<unknown>;
  /** The run's own `onSample`, when it was given one. */
  onSample?: (request: never, context?: never) => Promise<unknown>;
  /**
   * Tells the run's report that the server asked during this call: a
   * question for the user (`elicitation`) or a model's completion
   * (`sampling`); the harness calls it when it knows the request was this
   * call's.
   */
  asked?: (kind: "elicitation" | "sampling") => void;
};

/**
 * A tool result as a harness's call hands it on: the server's, and what the
 * harness noticed of it (such as structured content that breaks the tool's
 * output schema, when its server only warns of that).
 */
export type CallResult = CallToolResult & { warnings?: readonly string[] };

/** The harness's call, as the runner uses it. */
export type CallFunction = (
  server: string,
  tool: string,
  args: unknown,
  options?: CallContext,
) => Promise<Result<CallResult, CallFailure>>;

/**
 * What the runner tells the harness's read of each read it carries (and of
 * each get of a prompt): the run, its hook, and its own answers to what a
 * server asks meanwhile, counted in the read's record as a call's are.
 */
export type ReadContext = Pick<
  CallContext,
  "signal" | "run" | "approve" | "onElicit" | "onSample" | "asked"
>;

/**
 * The harness's read of a resource, as the runner uses it: the server and the
 * URI a program's `read_resource(uri)` named, and the contents read, or why
 * not. The run's report records it as a call of `resources/read` with its
 * `{ uri }`, each content a `resource` block.
 */
export type ReadFunction = (
  server: string,
  uri: string,
  options?: ReadContext,
) => Promise<Result<{ contents: ResourceContents[] }, CallFailure>>;

/**
 * What a program asks of a server's prompts and resources through
 * `./tools.ts`, as the host decoded it (`RunOptions.features`'s request).
 */
export type FeatureRequest = Parameters<FeatureFunction>[0];

/** The harness's answer to a {@linkcode FeatureRequest} (`RunOptions.features`). */
export type FeatureFunction = NonNullable<RunOptions["features"]>;

/** One tool call a program made, and how it went. */
export type CallRecord = {
  server: string;
  tool: string;
  /**
   * The arguments as the program passed them, as a report shows a value
   * (plain data, exact bigints, a `$unrepresentable` marker for what JSON
   * cannot say); when their JSON text is past `MAX_CALL_ARGS_BYTES`
   * or the report's room, a string: a prefix of that text ending in
   * `TRUNCATION_MARKER`.
   */
  args: unknown;
  /** The bytes of the arguments' JSON text, whether kept whole or not. */
  argsBytes: number;
  /** Whether `args` is a truncated prefix rather than the arguments. */
  argsTruncated: boolean;
  outcome: Result<CallToolResult, CallFailure>;
  /** What the harness noticed of the result, when anything (see {@linkcode CallResult}). */
  warnings?: readonly string[];
  /**
   * Present when the server asked during the call, as far as the harness
   * could tell the request was this call's: how many elicitations (questions
   * for the user) and sampling requests (completions of the harness's model).
   */
  asked?: { elicitations: number; samplings: number };
  /** From the host receiving the call to its settlement, in milliseconds. */
  durationMs: number;
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
  /** It was not run: the runner (its harness) was retired before it was handed the program. */
  | { kind: "refused"; reason: "retired"; message: string }
  /** It never ran: bad imports or type errors. */
  | { kind: "rejected"; diagnostics: Diagnostic[] };

/**
 * Everything one run produced, as a model is shown it: its returned value,
 * its logs and its calls' records together within `maxOutputBytes` of JSON.
 * What is past the budget is cut structurally, so that the JSON stays valid:
 * a long string ends with `CUT_STRING_MARKER`'s words saying how many bytes
 * were cut, a long array ends with a marker item `{ "$cut": "N more items" }`,
 * an object with too many keys with a `"$cut"` key, and a value nested too
 * deep is summarized as `{ "$cut": "an object of N keys" }`. The whole values
 * are kept in {@linkcode RunReport.full}.
 */
export type RunReport = {
  outcome: RunOutcome;
  /** What the program printed, one entry per console call or line, capped. */
  logs: string[];
  /** Every tool call, in the order the host received them. */
  calls: CallRecord[];
  /**
   * Present when the report was cut to its budget: the outcome, the logs and
   * the calls as they were, whole (within the run's memory bounds: logs as
   * `maxOutputBytes` keeps them while the program runs, a result as large
   * as the channel carries, arguments as `MAX_CALL_ARGS_BYTES` keeps).
   */
  full?: { outcome: RunOutcome; logs: string[]; calls: CallRecord[] };
  /** The limits in force, and which of them the run hit. */
  limits: {
    timeoutMs: number;
    memoryMb: number;
    maxCalls: number;
    maxOutputBytes: number;
    hit: RunLimit[];
  };
};

// Any specifier of the form; which of them name a module is the segment rule's to say.
const NAMED_MODULE = /["'`]\.\/mcp\/([^"'`/\\\s]+)\.ts["'`]/g;

/**
 * The module segments a program names as `"./mcp/<segment>.ts"`, each once,
 * in the order first named: the servers it may need, so that a caller can
 * boot only those. It reads the text, not the syntax, so it may name more
 * than the program imports (a specifier in a string or a comment), never
 * fewer; which imports a program may have is decided when it runs.
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
  for (const match of String(source).matchAll(NAMED_MODULE)) {
    const segment = match[1] as string;
    if (moduleSegment(segment).ok) segments.add(segment);
  }
  return [...segments];
}
