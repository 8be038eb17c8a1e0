// Private to cli/: the terminal a person answers a server's question on,
// behind a seam small enough to fake in a test (`Keys`: one typed line, or
// Ctrl-C, or the end of input).
//
// Standard input is read by one pump per process, started at the first
// question: two readers of one stdin would each get half the keys. While a
// question reads a line (the foreground), every chunk is its own; otherwise a
// chunk goes to the background reader (`run --approve`'s lines) when one
// waits, else it is dropped, so that a key typed ahead never answers a later
// question.
//
// A line is read in raw mode, edited here (echo, Backspace, Ctrl-U), so that
// Ctrl-C is a key of the question, not SIGINT: it cancels the question alone,
// and neither the command nor a sandboxed program (in the terminal's process
// group) is interrupted. Raw mode is left at the end of each line, and on the
// way out of the process.

/**
 * What one read of the terminal gave: a line, Ctrl-C, the end of input
 * (Ctrl-D), or nothing because the question was withdrawn meanwhile.
 */
export type TypedLine =
  | { kind: "line"; text: string }
  | { kind: "interrupt" }
  | { kind: "end" }
  | { kind: "withdrawn" };

/** The keys of a terminal, one line at a time. */
export type Keys = {
  /**
   * The next line typed; Ctrl-C and the end of input are answers of their
   * own, and `signal` aborting ends the read as `withdrawn` (the keys typed
   * so far are dropped).
   */
  readLine(signal?: AbortSignal): Promise<TypedLine>;
};

/** The most characters one typed line keeps; keys past it are ignored. */
export const MAX_TYPED_CHARS = 4_096;

/** How many bytes one read of standard input takes at most. */
const CHUNK_BYTES = 1_024;

type Read = (buffer: Uint8Array) => Promise<number | null>;
type Taker = (chunk: Uint8Array | null) => void;

/** Standard input read once for the whole process, its chunks handed to one reader at a time. */
export class StdinPump {
  #read: Read;
  #started = false;
  #ended = false;
  #foreground: Taker | undefined;
  #background: Taker | undefined;
  #queued: Uint8Array | undefined;

  constructor(read: Read = (buffer) => Deno.stdin.read(buffer)) {
    this.#read = read;
  }

  /**
   * Reads like `Deno.stdin.read` for the background reader: the next chunk
   * no question takes. At most one background read waits at a time.
   */
  readonly read = (buffer: Uint8Array): Promise<number | null> => {
    this.#start();
    const give = (chunk: Uint8Array | null): number | null => {
      if (chunk === null) return null;
      const count = Math.min(chunk.length, buffer.length);
      buffer.set(chunk.subarray(0, count));
      if (count < chunk.length) this.#queued = chunk.subarray(count);
      return count;
    };
    const queued = this.#queued;
    if (queued !== undefined) {
      this.#queued = undefined;
      return Promise.resolve(give(queued));
    }
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => this.#background = (chunk) => resolve(give(chunk)));
  };

  /** Every chunk goes to `taker` until the returned function is called. */
  take(taker: Taker): () => void {
    this.#start();
    if (this.#ended) {
      taker(null);
      return () => {};
    }
    this.#foreground = taker;
    return () => {
      if (this.#foreground === taker) this.#foreground = undefined;
    };
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.#loop();
  }

  async #loop(): Promise<void> {
    for (;;) {
      const buffer = new Uint8Array(CHUNK_BYTES);
      let count: number | null;
      try {
        count = await this.#read(buffer);
      } catch {
        count = null;
      }
      const chunk = count === null ? null : buffer.subarray(0, count);
      if (chunk === null) this.#ended = true;
      const foreground = this.#foreground;
      const background = this.#background;
      if (foreground !== undefined) foreground(chunk);
      else if (background !== undefined) {
        this.#background = undefined;
        background(chunk);
      }
      if (chunk === null) {
        // The background reader hears the end too, whoever else did.
        const waiting = this.#background;
        this.#background = undefined;
        waiting?.(null);
        return;
      }
    }
  }
}

let shared: StdinPump | undefined;

/** The process's one pump of standard input. */
export function stdinPump(): StdinPump {
  shared ??= new StdinPump();
  return shared;
}

/** How a line is read in raw mode: the pump, raw mode itself, and where keys are echoed. */
export type RawLineOptions = {
  pump: StdinPump;
  setRaw: (raw: boolean) => void;
  echo: (text: string) => void;
};

const ERASE_ONE = "\b \b";

/**
 * Keys read in raw mode and edited here: printable keys echoed, Backspace
 * and Ctrl-U erase, Enter ends the line, Ctrl-C is `interrupt`, Ctrl-D on an
 * empty line is `end`; escape sequences (arrows) and other controls are
 * ignored. Keys typed after Enter in the same chunk (a paste of several
 * answers) are kept for the next line.
 */
export class RawKeys implements Keys {
  #options: RawLineOptions;
  #left = "";

  constructor(options: RawLineOptions) {
    this.#options = options;
  }

  readLine(signal?: AbortSignal): Promise<TypedLine> {
    const { pump, setRaw, echo } = this.#options;
    if (signal?.aborted) return Promise.resolve({ kind: "withdrawn" });
    const decoder = new TextDecoder();
    let line: string[] = [];
    let escape: "none" | "start" | "sequence" = "none";
    const done = Promise.withResolvers<TypedLine>();
    let finished = false;
    const finish = (typed: TypedLine, rest: string) => {
      finished = true;
      this.#left = rest;
      done.resolve(typed);
    };
    const feed = (text: string) => {
      const points = [...text];
      for (let index = 0; index < points.length && !finished; index++) {
        const point = points[index] as string;
        const rest = () => points.slice(index + 1).join("");
        if (escape === "start") {
          escape = point === "[" || point === "O" ? "sequence" : "none";
          continue;
        }
        if (escape === "sequence") {
          if (point >= "@" && point <= "~") escape = "none";
          continue;
        }
        switch (point) {
          case "\r":
          case "\n":
            echo("\r\n");
            // A CR LF pair is one Enter.
            finish(
              { kind: "line", text: line.join("") },
              point === "\r" && points[index + 1] === "\n"
                ? points.slice(index + 2).join("")
                : rest(),
            );
            break;
          case "\u0003":
            echo("^C\r\n");
            finish({ kind: "interrupt" }, "");
            break;
          case "\u0004":
            if (line.length === 0) {
              echo("\r\n");
              finish({ kind: "end" }, "");
            }
            break;
          case "\u007f":
          case "\b":
            if (line.length > 0) {
              line = line.slice(0, -1);
              echo(ERASE_ONE);
            }
            break;
          case "\u0015":
            echo(ERASE_ONE.repeat(line.length));
            line = [];
            break;
          case "\u001b":
            escape = "start";
            break;
          default:
            if (/\p{Cc}|\p{Cf}/u.test(point) || line.length >= MAX_TYPED_CHARS) break;
            line.push(point);
            echo(point);
        }
      }
    };
    const left = this.#left;
    this.#left = "";
    feed(left);
    if (finished) return done.promise;
    setRaw(true);
    const release = pump.take((chunk) => {
      if (finished) return;
      if (chunk === null) {
        echo("\r\n");
        finish({ kind: "end" }, "");
      } else feed(decoder.decode(chunk, { stream: true }));
    });
    const withdraw = () => {
      if (finished) return;
      echo("\r\n");
      finish({ kind: "withdrawn" }, "");
    };
    signal?.addEventListener("abort", withdraw, { once: true });
    return done.promise.finally(() => {
      signal?.removeEventListener("abort", withdraw);
      release();
      setRaw(false);
    });
  }
}

let restoring = false;

/** Sets raw mode of the process's terminal, and restores it on the way out of the process. */
export function setStdinRaw(raw: boolean): void {
  try {
    Deno.stdin.setRaw(raw);
  } catch {
    return;
  }
  if (raw && !restoring) {
    restoring = true;
    globalThis.addEventListener("unload", () => {
      try {
        Deno.stdin.setRaw(false);
      } catch {
        // Standard input is gone: there is no mode left to restore.
      }
    });
  }
}

const encoder = new TextEncoder();

/** The process's own terminal: standard input in raw mode for each line, echoed on stderr. */
export function terminalKeys(): Keys {
  return new RawKeys({
    pump: stdinPump(),
    setRaw: setStdinRaw,
    echo: (text) => {
      try {
        Deno.stderr.writeSync(encoder.encode(text));
      } catch {
        // Standard error is gone: the keys are still read.
      }
    },
  });
}
