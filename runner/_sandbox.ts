/**
 * One sandbox process and its build root, from creation to removal: the
 * temporary directory (the build root with the sandbox room's files and every
 * generated module; beside it the import map, and a regular file below which
 * the sandbox's `DENO_DIR` points, so that no cache can be created), and the
 * `deno run` process
 * started on the bootstrap with no permission but reading that root.
 *
 * A sandbox can be started ahead of its program (warm): the process starts,
 * its bootstrap starts the program Worker, and both wait. {@linkcode
 * Sandbox.hand} writes the program into the root; the run then hands over
 * the nonce and the program runs. Each sandbox serves exactly one program.
 *
 * Lifecycle: {@linkcode startSandbox} owns the directory and the process it
 * creates until {@linkcode Sandbox.dispose}, which kills the process if it is
 * still running, waits for its exit, closes the pipes no run took, and
 * removes the directory. A run that took the pipes closes them itself.
 *
 * @module
 */

import {
  BOOTSTRAP_SOURCE,
  CAP_SOURCE,
  PRELUDE_SOURCE,
  TAGS_SOURCE,
} from "../_generated/sandbox_sources.ts";

/** What a sandbox is started with. */
export type SandboxSpec = {
  /** The Deno executable. */
  deno: string;
  /** The V8 heap cap of the process, in MiB. */
  memoryMb: number;
  /** Segment to generated module source; each is written as `mcp/<segment>.ts`. */
  modules: ReadonlyMap<string, string>;
  /** The specifier the import map points at the root's `cap.ts`. */
  capSpecifier: string;
  /** The folder the sandbox's temporary directory is made in; the system's by default. */
  tempDir: string | undefined;
};

/** Flags that close the sandbox's world: no config, lock, remote or npm modules. */
const CLOSED = ["--no-remote", "--no-npm", "--no-config", "--no-lock", "--quiet"];

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
  #disposed: Promise<void> | undefined;

  constructor(base: string, spec: SandboxSpec, child: Deno.ChildProcess) {
    this.#base = base;
    this.rootPath = `${base}/root/`;
    this.rootUrl = new URL(`file://${this.rootPath}`).href;
    this.memoryMb = spec.memoryMb;
    this.deno = spec.deno;
    this.child = child;
    child.status.then(() => this.#exited = true, () => this.#exited = true);
  }

  /** Whether the process can still take a program: running and never handed one. */
  get usable(): boolean {
    return !this.#exited && !this.#taken && this.#disposed === undefined;
  }

  /** Writes the program into the root; the sandbox is taken from then on. */
  async hand(source: string): Promise<void> {
    this.#taken = true;
    await Deno.writeTextFile(`${this.rootPath}program.ts`, source);
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
      // No run read these pipes: close them here.
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
      Deno.writeTextFile(`${rootPath}cap.ts`, CAP_SOURCE),
      Deno.writeTextFile(`${rootPath}bootstrap.ts`, BOOTSTRAP_SOURCE),
      Deno.writeTextFile(`${rootPath}prelude.ts`, PRELUDE_SOURCE),
      Deno.writeTextFile(`${rootPath}tags.ts`, TAGS_SOURCE),
      ...[...spec.modules].map(([segment, source]) =>
        Deno.writeTextFile(`${rootPath}mcp/${segment}.ts`, source)
      ),
      Deno.writeTextFile(`${base}/sealed`, ""),
      Deno.writeTextFile(
        importMap,
        JSON.stringify({ imports: { [spec.capSpecifier]: `${rootUrl}cap.ts` } }),
      ),
    ]);
    const child = new Deno.Command(spec.deno, {
      args: [
        "run",
        "--no-prompt",
        ...CLOSED,
        "--no-code-cache",
        `--allow-read=${rootPath}`,
        `--import-map=${importMap}`,
        `--v8-flags=--disallow-code-generation-from-strings,--max-old-space-size=${spec.memoryMb}`,
        `${rootPath}bootstrap.ts`,
      ],
      // The sandbox needs no cache; its DENO_DIR lies below a regular file, so
      // nothing (the Cache API included) can create it.
      env: { DENO_DIR: `${base}/sealed/deno_dir`, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      clearEnv: true,
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
