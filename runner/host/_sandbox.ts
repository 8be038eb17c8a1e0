/**
 * One sandbox process and its build root, from creation to removal: the
 * temporary directory (the build root with the sandbox room's files and every
 * generated module; beside it the import map, and a regular file below which
 * the sandbox's `DENO_DIR` points, so that no cache can be created), and the
 * `deno run` process started in that directory on the bootstrap with no
 * permission but reading that root.
 *
 * The room's own files are written as the JavaScript `deno task generate`
 * made of them (`bootstrap.js`, `prelude.js`, `cap.js`, `tools.js`): the
 * emit cache is off, so TypeScript would be transpiled at every start
 * (BENCHMARKS.md, "A cold sandbox"). The import map sends `@loom/mcp/cap`
 * and `./tools.ts`, the names programs and generated modules import, to
 * them.
 *
 * A sandbox can be started ahead of its program (warm): the process starts,
 * its bootstrap starts the program Worker, says `ready` on stdout once the
 * Worker has loaded (before any program exists, so nothing but the trusted
 * bootstrap can say it), and both wait. {@linkcode Sandbox.hand} writes the
 * program and the modules it imports into the root (only those: a sandbox
 * holds no server module its program does not import); the run then hands
 * over the nonce and the program runs. Each sandbox serves exactly one
 * program.
 *
 * Lifecycle: {@linkcode startSandbox} owns the directory and the process it
 * creates until {@linkcode Sandbox.dispose}, which kills the process if it is
 * still running, waits for its exit, closes the pipes no run took, and
 * removes the directory. A run that took the pipes closes them itself.
 *
 * @module
 */

import {
  BOOTSTRAP_SCRIPT,
  CAP_SCRIPT,
  PRELUDE_SCRIPT,
  TOOLS_SCRIPT,
} from "../../_generated/sandbox_sources.ts";

/** What a sandbox is started with. */
export type SandboxSpec = {
  /** The Deno executable. */
  deno: string;
  /** The V8 heap cap of the process, in MiB. */
  memoryMb: number;
  /** The specifier the import map points at the root's `cap.js`. */
  capSpecifier: string;
  /** The folder the sandbox's temporary directory is made in; the system's by default. */
  tempDir: string | undefined;
};

/** Flags that close the sandbox's world: no config, lock, remote or npm modules. */
const CLOSED = ["--no-remote", "--no-npm", "--no-config", "--no-lock", "--quiet"];

/**
 * The `deno run` flags a sandbox starts with, its main module not included:
 * no prompt, a closed world, no code cache, reading `root` alone, the import
 * map when there is one, no code from strings, and the heap cap.
 */
export function sandboxFlags(
  root: string,
  options: { importMap?: string; memoryMb: number },
): string[] {
  return [
    "run",
    "--no-prompt",
    ...CLOSED,
    "--no-code-cache",
    `--allow-read=${root}`,
    ...(options.importMap === undefined ? [] : [`--import-map=${options.importMap}`]),
    `--v8-flags=--disallow-code-generation-from-strings,--max-old-space-size=${options.memoryMb}`,
  ];
}

/**
 * The whole environment of a sandbox. Its `denoDir` lies below a regular
 * file, so nothing (the Cache API included) can create it; with the emit
 * cache on, Deno would try to save each transpiled module there and retry
 * with backoff for 150 ms before giving up (measured: a sandbox started in
 * about 220 ms instead of 70; BENCHMARKS.md).
 */
export function sandboxEnv(denoDir: string): Record<string, string> {
  return {
    DENO_DIR: denoDir,
    DENO_EMIT_CACHE_MODE: "disable",
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
  };
}

/** The line the bootstrap writes once its program Worker has loaded. */
const READY = "ready";
/** More bytes than a ready line before a newline: not a ready line. */
const READY_SCAN_BYTES = 64;

/** A started sandbox: its root, its process, and whether it has been used. */
export class Sandbox {
  /** The build root, as a path and as a `file:` URL, each ending in `/`. */
  readonly rootPath: string;
  readonly rootUrl: string;
  readonly memoryMb: number;
  readonly deno: string;
  readonly child: Deno.ChildProcess;
  readonly #base: string;
  #exited = false;
  #taken = false;
  #isReady = false;
  #disposed: Promise<void> | undefined;
  /** What stdout said after the ready line (or instead of one), for the run to read first. */
  #head: Uint8Array = new Uint8Array(0);
  /** Resolves once stdout said `ready` (true) or anything else or ended (false); its lock released. */
  readonly ready: Promise<boolean>;

  constructor(base: string, spec: SandboxSpec, child: Deno.ChildProcess) {
    this.#base = base;
    this.rootPath = `${base}/root/`;
    this.rootUrl = new URL(`file://${this.rootPath}`).href;
    this.memoryMb = spec.memoryMb;
    this.deno = spec.deno;
    this.child = child;
    child.status.then(() => this.#exited = true, () => this.#exited = true);
    this.ready = this.#readReady();
  }

  /** Whether the process can still take a program: running and never handed one. */
  get usable(): boolean {
    return !this.#exited && !this.#taken && this.#disposed === undefined;
  }

  /** Whether the bootstrap has said its Worker is loaded, waiting for a program. */
  get isReady(): boolean {
    return this.#isReady && this.usable;
  }

  /**
   * Writes the program and the modules it imports (segment to source) into
   * the root; the sandbox is taken from then on.
   */
  async hand(source: string, modules: ReadonlyMap<string, string>): Promise<void> {
    this.#taken = true;
    await Promise.all([
      Deno.writeTextFile(`${this.rootPath}program.ts`, source),
      ...[...modules].map(([segment, text]) =>
        Deno.writeTextFile(`${this.rootPath}mcp/${segment}.ts`, text)
      ),
    ]);
  }

  /**
   * What stdout held past the ready line (or all it held when it said
   * something else first), once the ready reader let go of it: the run reads
   * it before the rest of the stream.
   */
  async stdoutHead(): Promise<Uint8Array> {
    await this.ready;
    return this.#head;
  }

  async #readReady(): Promise<boolean> {
    const reader = this.child.stdout.getReader();
    let held = new Uint8Array(0);
    try {
      while (true) {
        const chunk = await reader.read();
        if (chunk.done) break;
        const joined = new Uint8Array(held.length + chunk.value.length);
        joined.set(held);
        joined.set(chunk.value, held.length);
        held = joined;
        const newline = held.indexOf(0x0a);
        if (newline < 0 && held.length <= READY_SCAN_BYTES) continue;
        const line = new TextDecoder().decode(held.subarray(0, Math.max(0, newline)));
        if (newline >= 0 && line === READY) {
          this.#head = held.subarray(newline + 1);
          this.#isReady = true;
          return true;
        }
        break;
      }
    } catch {
      // The stream failed: the run that takes this sandbox reads its exit.
    } finally {
      reader.releaseLock();
    }
    this.#head = held;
    return false;
  }

  /** Kills the process if it still runs, waits for it, and removes the directory. */
  dispose(): Promise<void> {
    this.#disposed ??= this.#dispose();
    return this.#disposed;
  }

  async #dispose(): Promise<void> {
    if (!this.#exited) {
      try {
        this.child.kill("SIGKILL");
      } catch {
        // It exited meanwhile.
      }
    }
    if (!this.#taken) {
      // No run read these pipes: close them here, once the ready reader let go.
      await this.ready;
      await Promise.all([
        this.child.stdout.cancel().catch(() => {}),
        this.child.stderr.cancel().catch(() => {}),
        this.child.stdin.close().catch(() => {}),
      ]);
    }
    await this.child.status.catch(() => {});
    await Deno.remove(this.#base, { recursive: true }).catch(() => {});
  }
}

/**
 * Creates a build root and starts a sandbox process on it, waiting for its
 * program. Throws only if the temporary directory cannot be made or the
 * executable cannot be spawned; it removes what it made before it throws.
 */
export async function startSandbox(spec: SandboxSpec): Promise<Sandbox> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({
      prefix: "loom-run-",
      ...(spec.tempDir === undefined ? {} : { dir: spec.tempDir }),
    }),
  );
  try {
    const rootPath = `${base}/root/`;
    const rootUrl = new URL(`file://${rootPath}`).href;
    const importMap = `${base}/import_map.json`;
    await Deno.mkdir(`${rootPath}mcp`, { recursive: true });
    await Promise.all([
      Deno.writeTextFile(`${rootPath}cap.js`, CAP_SCRIPT),
      Deno.writeTextFile(`${rootPath}bootstrap.js`, BOOTSTRAP_SCRIPT),
      Deno.writeTextFile(`${rootPath}prelude.js`, PRELUDE_SCRIPT),
      Deno.writeTextFile(`${rootPath}tools.js`, TOOLS_SCRIPT),
      Deno.writeTextFile(`${base}/sealed`, ""),
      Deno.writeTextFile(
        importMap,
        JSON.stringify({
          imports: {
            [spec.capSpecifier]: `${rootUrl}cap.js`,
            [`${rootUrl}tools.ts`]: `${rootUrl}tools.js`,
          },
        }),
      ),
    ]);
    const child = new Deno.Command(spec.deno, {
      args: [
        ...sandboxFlags(rootPath, { importMap, memoryMb: spec.memoryMb }),
        `${rootPath}bootstrap.js`,
      ],
      env: sandboxEnv(`${base}/sealed/deno_dir`),
      clearEnv: true,
      // Deno.cwd() needs no permission: it shows the sandbox's own directory
      // (which the program's import.meta.url names already), not the harness's.
      cwd: base,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new Sandbox(base, spec, child);
  } catch (error) {
    await Deno.remove(base, { recursive: true }).catch(() => {});
    throw error;
  }
}
