/**
 * The runner's type check: `deno check` over a build root, with the same
 * closed-world flags as the sandbox, and its text output parsed into
 * diagnostics with a file, a line and a column.
 *
 * Lifecycle: {@linkcode typeCheck} owns the one `deno check` process it
 * spawns; it kills it on its deadline or on abort, and always awaits its exit
 * before returning.
 *
 * @module
 */

/** One problem found before a program runs, at a 1-based line and column of `file`. */
export type Diagnostic = {
  /** The module it is in, relative to the build root: `program.ts`, `mcp/echo.ts`. */
  file: string;
  line: number;
  column: number;
  message: string;
};

/** How a type check ended. */
export type CheckOutcome =
  | { kind: "passed" }
  | { kind: "failed"; diagnostics: Diagnostic[] }
  | { kind: "timed_out" }
  | { kind: "aborted" };

/** The most text of each of the checker's streams kept. */
const CHECK_OUTPUT_BYTES = 1024 * 1024;
/** The most diagnostics reported. */
const MAX_DIAGNOSTICS = 50;

const HEADER = /^TS\d+ \[ERROR\]: (.*)$/;
const AT = /^ {4}at (file:\/\/\S+):(\d+):(\d+)$/;
const CARET = /^\s*[\^~]+\s*$/;

/** Reads a stream to its end, keeping its first `cap` bytes. */
export async function drainText(stream: ReadableStream<Uint8Array>, cap: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  for await (const chunk of stream) {
    if (kept >= cap) continue;
    const part = chunk.subarray(0, cap - kept);
    chunks.push(part);
    kept += part.length;
  }
  const all = new Uint8Array(kept);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(all);
}

function relative(url: string, rootUrl: string): string {
  return url.startsWith(rootUrl) ? decodeURIComponent(url.slice(rootUrl.length)) : url;
}

/**
 * Parses `deno check` output into diagnostics. A failure with no `TS` header
 * (a module that cannot be resolved, say) becomes one diagnostic holding the
 * checker's `error:` line.
 */
export function parseDiagnostics(text: string, rootUrl: string): Diagnostic[] {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  const diagnostics: Diagnostic[] = [];
  for (let index = 0; index < lines.length && diagnostics.length < MAX_DIAGNOSTICS; index++) {
    const header = HEADER.exec(lines[index] as string);
    if (header === null) continue;
    const body: string[] = [];
    let place: RegExpExecArray | null = null;
    let scan = index + 1;
    for (; scan < lines.length; scan++) {
      place = AT.exec(lines[scan] as string);
      if (place !== null || HEADER.test(lines[scan] as string)) break;
      body.push(lines[scan] as string);
    }
    // The two lines before `at` are the source line and its caret line.
    const caret = body.findIndex((line) => CARET.test(line));
    const more = (caret > 0 ? body.slice(0, caret - 1) : body).map((line) => line.trim())
      .filter((line) => line !== "");
    const message = [header[1] as string, ...more].join(" ");
    diagnostics.push({
      file: place === null ? "program.ts" : relative(place[1] as string, rootUrl),
      line: place === null ? 1 : Number(place[2]),
      column: place === null ? 1 : Number(place[3]),
      message,
    });
    index = scan - 1;
  }
  if (diagnostics.length > 0) return diagnostics;
  const error = lines.find((line) => line.startsWith("error: "));
  const place = /(file:\/\/\S+?):(\d+):(\d+)/.exec(text);
  const message = (error ?? lines.find((line) => line.trim() !== "") ?? "Type check failed")
    .replace(/^error: /, "").replaceAll(rootUrl, "./");
  return [{
    file: place === null ? "program.ts" : relative(place[1] as string, rootUrl),
    line: place === null ? 1 : Number(place[2]),
    column: place === null ? 1 : Number(place[3]),
    message,
  }];
}

/** What {@linkcode typeCheck} needs. */
export type CheckOptions = {
  deno: string;
  args: string[];
  env: Record<string, string>;
  rootUrl: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
};

/** Runs `deno check` with `args` and reports how it ended. */
export async function typeCheck(options: CheckOptions): Promise<CheckOutcome> {
  const child = new Deno.Command(options.deno, {
    args: options.args,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let ended: "timed_out" | "aborted" | undefined;
  const stop = (why: "timed_out" | "aborted"): void => {
    ended ??= why;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  };
  const timer = setTimeout(() => stop("timed_out"), options.timeoutMs);
  const onAbort = (): void => stop("aborted");
  options.signal?.addEventListener("abort", onAbort);
  if (options.signal?.aborted) onAbort();
  try {
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      drainText(child.stdout, CHECK_OUTPUT_BYTES),
      drainText(child.stderr, CHECK_OUTPUT_BYTES),
    ]);
    if (ended !== undefined) return { kind: ended };
    if (status.success) return { kind: "passed" };
    return {
      kind: "failed",
      diagnostics: parseDiagnostics(`${stderr}\n${stdout}`, options.rootUrl),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
