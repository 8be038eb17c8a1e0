// Private to cli/: where everything the command line prints goes through.
// Results go to stdout, progress, warnings and errors to stderr. On the way:
// values the catalog expanded from variables are said as the file wrote them
// (a secret never reaches the terminal or a log), colour is added only on a
// terminal and never with NO_COLOR, long messages are wrapped on a terminal
// (never cut), and --quiet keeps only results, warnings and errors. One
// status line (a long call's progress) is redrawn in place on a terminal's
// stderr, and erased before anything else is written; off a terminal it is a
// plain line. A question asked on the terminal (`prompt`) holds the status
// line back until it is answered.

/** How a piece of text is coloured on a terminal. */
export type Style = "error" | "warn" | "ok" | "bad" | "head" | "dim";

const CODES: Readonly<Record<Style, [number, number]>> = {
  error: [31, 39],
  warn: [33, 39],
  ok: [32, 39],
  bad: [31, 39],
  head: [1, 22],
  dim: [2, 22],
};

type Stream = { writeSync(bytes: Uint8Array): number; isTerminal(): boolean };

/** Where an {@linkcode Output} writes; the process's own streams by default. */
export type Streams = { stdout: Stream; stderr: Stream; columns?: () => number | undefined };

const encoder = new TextEncoder();
/** Erases the terminal's current line (the cursor stays where it is). */
const ERASE_LINE = "\u001b[2K";

// A reader that went away (`| head`) gets nothing more; the command goes on
// to retire its servers.
function writeAll(stream: Stream, text: string): void {
  let bytes = encoder.encode(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
}

function terminalColumns(): number | undefined {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return undefined;
  }
}

/** What the command line prints, and how. */
export class Output {
  readonly quiet: boolean;
  #streams: Streams;
  #colour: { stdout: boolean; stderr: boolean };
  #redactions: [string, string][] = [];
  /** Whether a status line is drawn on stderr now. */
  #status = false;
  /** Whether a question waits for its answer on the terminal. */
  #asking = false;
  /** Whether the question's line is still open on stderr, the cursor after it. */
  #questionLine = false;

  constructor(options: { quiet?: boolean; streams?: Streams } = {}) {
    this.quiet = options.quiet ?? false;
    this.#streams = options.streams ?? { stdout: Deno.stdout, stderr: Deno.stderr };
    const noColor = Deno.noColor;
    this.#colour = {
      stdout: !noColor && this.#streams.stdout.isTerminal(),
      stderr: !noColor && this.#streams.stderr.isTerminal(),
    };
  }

  /**
   * Says `value` as `written` wherever it would be printed: an expanded
   * URL, header or variable is shown as the file wrote it.
   */
  redact(value: string, written: string): void {
    if (value === written || value.length < 4) return;
    this.#redactions.push([value, written]);
    // Longest first, so that a URL is replaced before the secret inside it.
    this.#redactions.sort((a, b) => b[0].length - a[0].length);
  }

  /** The text with every expanded value said as written. */
  hide(text: string): string {
    let out = text;
    for (const [value, written] of this.#redactions) out = out.split(value).join(written);
    return out;
  }

  /** Colours `text` for stdout (`"out"`) or stderr (`"err"`) when that stream is a terminal. */
  paint(text: string, style: Style, stream: "out" | "err"): string {
    if (!(stream === "out" ? this.#colour.stdout : this.#colour.stderr)) return text;
    const [on, off] = CODES[style];
    return `\u001b[${on}m${text}\u001b[${off}m`;
  }

  /** A result, on stdout: printed whatever --quiet says. */
  result(text: string): void {
    this.clearStatus();
    writeAll(this.#streams.stdout, `${this.hide(text)}\n`);
  }

  /** Messages that are a command's result (check's failures), on stdout, wrapped on a terminal. */
  resultMessage(text: string): void {
    this.clearStatus();
    writeAll(this.#streams.stdout, `${this.#wrap(this.hide(text), this.#streams.stdout)}\n`);
  }

  /** Whether stderr is a terminal, where a status line is redrawn in place. */
  get statusInPlace(): boolean {
    return this.#streams.stderr.isTerminal();
  }

  /**
   * The status line, on stderr unless --quiet: on a terminal it replaces the
   * one drawn before (cut to the terminal's width, so that it stays one
   * line; held back while a question waits), else it is a plain line.
   */
  status(text: string): void {
    if (this.quiet) return;
    const stderr = this.#streams.stderr;
    if (!stderr.isTerminal()) {
      writeAll(stderr, `${this.hide(text)}\n`);
      return;
    }
    if (this.#asking) return;
    // A terminal that does not say its width (or says 0 columns) is taken as 80 wide.
    const columns = (this.#streams.columns ?? terminalColumns)() || 80;
    const line = [...this.hide(text)];
    const fitted = line.length < columns
      ? line.join("")
      : `${line.slice(0, columns - 2).join("")}…`;
    writeAll(stderr, `\r${ERASE_LINE}${fitted}`);
    this.#status = true;
  }

  /** Erases the status line, when one is drawn. */
  clearStatus(): void {
    if (!this.#status) return;
    this.#status = false;
    writeAll(this.#streams.stderr, `\r${ERASE_LINE}`);
  }

  /**
   * A question on stderr, left open for the answer typed after it; the
   * status line is held back until {@linkcode Output.answered}.
   */
  prompt(text: string): void {
    this.clearStatus();
    this.#asking = true;
    this.#questionLine = true;
    writeAll(this.#streams.stderr, this.hide(text));
  }

  /** The question is answered (or given up): status lines are drawn again. */
  answered(): void {
    this.#asking = false;
    this.#questionLine = false;
  }

  /** Progress on stderr: the catalog read, each server's line, what the command is doing. */
  progress(text: string): void {
    if (!this.quiet) this.detail(text);
  }

  /** A line on stderr that --quiet keeps (a stderr line of a failed server, a table). */
  detail(text: string): void {
    this.clearStatus();
    // A line said while a question waits (a failure, a server's log) starts a line of its own.
    if (this.#questionLine) {
      this.#questionLine = false;
      writeAll(this.#streams.stderr, "\n");
    }
    writeAll(this.#streams.stderr, `${this.#wrap(this.hide(text), this.#streams.stderr)}\n`);
  }

  /** `warning: ...` on stderr; kept by --quiet. */
  warn(text: string, label = "warning"): void {
    this.detail(`${this.paint(`${label}:`, "warn", "err")} ${text}`);
  }

  /** `error: ...` on stderr; kept by --quiet. */
  error(text: string): void {
    this.detail(`${this.paint("error:", "error", "err")} ${text}`);
  }

  // A long line is wrapped at the terminal's width (continued two spaces in),
  // never cut; lines that are not on a terminal are left whole.
  #wrap(text: string, stream: Stream): string {
    if (!stream.isTerminal()) return text;
    const columns = (this.#streams.columns ?? terminalColumns)();
    if (columns === undefined || columns < 40) return text;
    return text.split("\n").map((line) => wrapLine(line, columns - 1)).join("\n");
  }
}

/** Wraps one line at `width` characters, between words, continuing two spaces in. */
export function wrapLine(line: string, width: number): string {
  if ([...line].length <= width) return line;
  const indent = /^\s*/.exec(line)?.[0] ?? "";
  const words = line.slice(indent.length).split(" ");
  const lines: string[] = [];
  let current = indent;
  for (const word of words) {
    // deno-lint-ignore no-control-regex
    const visible = (text: string) => [...text.replace(/\u001b\[[0-9;]*m/g, "")].length;
    const candidate = current.trim() === "" ? current + word : `${current} ${word}`;
    if (visible(candidate) > width && current.trim() !== "") {
      lines.push(current);
      current = `${indent}  ${word}`;
    } else {
      current = candidate;
    }
  }
  lines.push(current);
  return lines.join("\n");
}
