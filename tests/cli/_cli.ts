// Shared by the command line's tests: the real command line as a
// subprocess, piped (`cli`) or on a pseudo-terminal made by util-linux's
// `script` (`Terminal`), where a typed Ctrl-C reaches the command as the
// terminal's SIGINT, and colour and questions are a terminal's.

export const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
export const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
export const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
export const DENO = Deno.execPath();

/** The argv of the command line, as the tests run it. */
export function argv(args: readonly string[]): string[] {
  return [DENO, "run", "-A", "--quiet", "--no-lock", "--config", CONFIG, CLI, ...args];
}

/** A fixture server's command, as one `--stdio` string. */
export function fixture(file: string): string {
  return `${DENO} run --quiet --no-lock ${FIXTURES}${file}`;
}

/** The `[mcp.<name>]` table of a fixture server, its Deno `flags` before the script. */
export function tomlEntry(
  name: string,
  file: string,
  extra = "",
  flags: readonly string[] = [],
): string {
  const args = ["run", "--quiet", "--no-lock", ...flags, FIXTURES + file];
  return [
    `[mcp.${name}]`,
    `command = ${JSON.stringify(DENO)}`,
    `args = [${args.map((arg) => JSON.stringify(arg)).join(", ")}]`,
    extra,
    "",
  ].join("\n");
}

/** The table of the governed fixture as `gov` (tools with hints, to allow, deny and ask about). */
export const GOVERNED_TOML = tomlEntry("gov", "governed_tools.ts", "", [
  "--allow-env=DESCRIPTION",
]);

/** A fresh temporary folder (its real path) holding `toml` as its `loom.toml`. */
export async function catalogFolder(prefix: string, toml: string): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  await Deno.writeTextFile(`${dir}/loom.toml`, toml);
  return dir;
}

/** The command line run in `dir` with its `loom.toml` named. */
export function inCatalog(dir: string, args: readonly string[]): Promise<Run> {
  return cli(dir, ["--catalog", "loom.toml", ...args]);
}

/** One run of the command line. */
export type Run = { code: number; stdout: string; stderr: string };

/** Runs the command line piped (no terminal), with `NO_COLOR` unless `env` says otherwise. */
export async function cli(
  cwd: string,
  args: readonly string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<Run> {
  const [command, ...rest] = argv(args);
  const child = new Deno.Command(command as string, {
    args: rest,
    cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The variables a clean environment keeps so that Deno finds its cache and
 * its certificates where this process does (`DENO_DIR` may point anywhere).
 */
export const CACHE_VARIABLES = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "TMPDIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
] as const;

/** Those of {@linkcode CACHE_VARIABLES} this process has, for a child's clean environment. */
export function cacheEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of CACHE_VARIABLES) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The command line on a pseudo-terminal: what it shows, and keys typed into it. */
export class Terminal {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<string>;
  /** Everything the terminal showed so far (stdout and stderr together, CR LF line ends). */
  shown = "";

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /**
   * Starts the command line on a terminal `columns` wide, with a clean
   * environment (no NO_COLOR) plus `env`.
   */
  static start(
    cwd: string,
    args: readonly string[],
    options: { env?: Record<string, string>; columns?: number } = {},
  ): Terminal {
    const line = `stty cols ${options.columns ?? 200} rows 50; exec ${
      argv(args).map(shellQuote).join(" ")
    }`;
    const env: Record<string, string> = { TERM: "xterm", ...cacheEnv() };
    const child = new Deno.Command("script", {
      args: ["-q", "-e", "-c", line, "/dev/null"],
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      clearEnv: true,
      env: { ...env, ...options.env },
    }).spawn();
    return new Terminal(child);
  }

  /** Waits until the terminal has shown something matching `pattern`; false at its end. */
  async waitFor(pattern: RegExp): Promise<boolean> {
    while (!pattern.test(this.shown)) {
      const { done, value } = await this.#reader.read();
      if (done) return pattern.test(this.shown);
      this.shown += value;
    }
    return true;
  }

  /** What was shown as plain lines: LF line ends, no colour codes, no echoed ^C. */
  text(): string {
    // deno-lint-ignore no-control-regex
    return this.shown.replaceAll("\r\n", "\n").replace(/\u001b\[[0-9;]*m/g, "").replaceAll(
      "^C",
      "",
    );
  }

  /** Types `text` (a Ctrl-C is "\x03"). */
  async type(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(text));
  }

  /** Reads to the end and returns the command's exit status. */
  async end(): Promise<number> {
    for (;;) {
      const { done, value } = await this.#reader.read();
      if (done) break;
      this.shown += value;
    }
    await this.#writer.close().catch(() => {});
    return (await this.#child.status).code;
  }
}
