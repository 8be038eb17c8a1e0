/**
 * Where signed-in state is kept between runs: per authorization server
 * (issuer) and client, the client's dynamic registration and, per protected
 * resource, its tokens. The store is pluggable ({@linkcode TokenStore});
 * {@linkcode FileTokenStore} keeps one file per issuer and client under
 * `$XDG_CONFIG_HOME/loom-mcp/oauth/` (or `~/.config/loom-mcp/oauth/`),
 * created with mode 0600 in a folder of mode 0700, each write a whole new file
 * (a temporary file renamed over the old one), so that a crash or a reader in
 * another process never sees half a file. The folder must be the user's own
 * and open to no one else: in a folder others can write, another user could
 * swap the files for tokens of their choosing or read the next ones, so the
 * store refuses it (saying what to run) rather than use it.
 * {@linkcode MemoryTokenStore} keeps nothing past the process.
 *
 * Tokens bound to a DPoP key are never stored: the key cannot leave the
 * process (it is not extractable), so they would be useless to the next one.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import type { TokenEndpointAuthMethod } from "../settings/oauth.ts";
import { TOKEN_ENDPOINT_AUTH_METHODS } from "../settings/oauth.ts";

/** What a stored entry is kept under: the authorization server and the client. */
export type StoreKey = {
  /** The issuer identifier of the authorization server. */
  issuer: string;
  /** The client: its id, its metadata document, or a dynamic registration for one redirect URI. */
  client: string;
};

/** A client's dynamic registration with one authorization server. */
export type StoredRegistration = {
  clientId: string;
  clientSecret?: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
};

/** The tokens of one protected resource. */
export type StoredGrant = {
  accessToken: string;
  /** When the access token expires, in ms since the epoch; unknown when absent. */
  expiresAt?: number;
  refreshToken?: string;
  /** The scopes granted (or asked for, when the server did not say). */
  scopes: string[];
};

/** Everything kept for one issuer and client. */
export type StoredEntry = {
  registration?: StoredRegistration;
  /** Tokens by protected resource (the resource indicator they were issued for). */
  grants: Record<string, StoredGrant>;
};

/** A store that could not be read or written. */
export type StoreFailure = { kind: "store_failed"; message: string; path?: string };

/**
 * A place for signed-in state. `update` is a read-modify-write the store
 * makes atomic among its own callers: `change` gets what is kept (undefined
 * when nothing is) and returns what to keep (undefined to keep nothing).
 */
export interface TokenStore {
  /** What is kept for `key`, if anything. */
  read(key: StoreKey): Promise<Result<StoredEntry | undefined, StoreFailure>>;
  /** Replaces what is kept for `key` by what `change` makes of it. */
  update(
    key: StoreKey,
    change: (entry: StoredEntry | undefined) => StoredEntry | undefined,
  ): Promise<Result<void, StoreFailure>>;
}

/**
 * A store in memory, for a harness that keeps nothing between runs.
 *
 * @example Keep nothing on disk
 * ```ts
 * import { MemoryTokenStore } from "./store.ts";
 * const store = new MemoryTokenStore();
 * await store.update({ issuer: "https://as.example", client: "id c" }, () => ({ grants: {} }));
 * console.log((await store.read({ issuer: "https://as.example", client: "id c" })).ok); // true
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  #entries = new Map<string, StoredEntry>();

  /** What is kept for `key`, as a copy. */
  read(key: StoreKey): Promise<Result<StoredEntry | undefined, StoreFailure>> {
    const entry = this.#entries.get(keyText(key));
    return Promise.resolve(ok(entry === undefined ? undefined : structuredClone(entry)));
  }

  /** Replaces what is kept for `key`. */
  update(
    key: StoreKey,
    change: (entry: StoredEntry | undefined) => StoredEntry | undefined,
  ): Promise<Result<void, StoreFailure>> {
    const text = keyText(key);
    const current = this.#entries.get(text);
    const next = change(current === undefined ? undefined : structuredClone(current));
    if (next === undefined) this.#entries.delete(text);
    else this.#entries.set(text, structuredClone(next));
    return Promise.resolve(ok(undefined));
  }
}

function keyText(key: StoreKey): string {
  return `${key.issuer}\n${key.client}`;
}

/**
 * The folder {@linkcode FileTokenStore} keeps its files in by default:
 * `$XDG_CONFIG_HOME/loom-mcp/oauth`, else `$HOME/.config/loom-mcp/oauth`;
 * undefined when neither variable is set or readable.
 */
export function defaultTokenDir(): string | undefined {
  try {
    const xdg = Deno.env.get("XDG_CONFIG_HOME");
    if (xdg !== undefined && xdg !== "") return `${xdg}/loom-mcp/oauth`;
    const home = Deno.env.get("HOME");
    if (home !== undefined && home !== "") return `${home}/.config/loom-mcp/oauth`;
  } catch {
    // No permission to read the environment: the caller names a folder.
  }
  return undefined;
}

/** The last task on each file, so that stores of one folder in this process take turns. */
const TURNS = new Map<string, Promise<unknown>>();

/** Options of a {@linkcode FileTokenStore}. */
export type FileTokenStoreOptions = {
  /** The folder of the files; {@linkcode defaultTokenDir} when absent. */
  dir?: string;
};

/**
 * A store of one JSON file per issuer and client, mode 0600, written
 * atomically. Writers in this process take turns per file; writers in other
 * processes replace whole files, the last one winning.
 *
 * @example Keep tokens in a folder of one's own
 * ```ts
 * import { FileTokenStore } from "./store.ts";
 * const store = new FileTokenStore({ dir: await Deno.makeTempDir() });
 * console.log(store.dir !== undefined); // true
 * ```
 */
export class FileTokenStore implements TokenStore {
  /** The folder of the files, when one is known. */
  readonly dir: string | undefined;

  /** A store in `options.dir`, or in {@linkcode defaultTokenDir}. */
  constructor(options: FileTokenStoreOptions = {}) {
    this.dir = options.dir ?? defaultTokenDir();
  }

  /** The path of the file kept for `key`. */
  async pathOf(key: StoreKey): Promise<Result<string, StoreFailure>> {
    if (this.dir === undefined) {
      return err({
        kind: "store_failed",
        message: "Cannot keep tokens on disk: neither XDG_CONFIG_HOME nor HOME is set (or " +
          "readable); give the token store a folder, or use a MemoryTokenStore",
      });
    }
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(keyText(key)));
    const hex = Array.from(
      new Uint8Array(digest).subarray(0, 12),
      (b) => b.toString(16).padStart(2, "0"),
    )
      .join("");
    let host = "issuer";
    try {
      host = new URL(key.issuer).host.replace(/[^A-Za-z0-9.-]/g, "_");
    } catch {
      // Not a URL: the digest alone names the file.
    }
    return ok(`${this.dir}/${host}-${hex}.json`);
  }

  /** What the file of `key` holds, if it exists. */
  async read(key: StoreKey): Promise<Result<StoredEntry | undefined, StoreFailure>> {
    const path = await this.pathOf(key);
    if (!path.ok) return path;
    return await this.#turn(path.value, async () => {
      const folder = await checkFolder(this.dir!);
      if (!folder.ok) return folder;
      // No folder yet: nothing was ever kept.
      return folder.value ? await readFile(path.value) : ok(undefined);
    });
  }

  /** Rewrites the file of `key` with what `change` makes of it, or removes it. */
  async update(
    key: StoreKey,
    change: (entry: StoredEntry | undefined) => StoredEntry | undefined,
  ): Promise<Result<void, StoreFailure>> {
    const path = await this.pathOf(key);
    if (!path.ok) return path;
    const file = path.value;
    return await this.#turn(file, async () => {
      const made = await makeFolder(this.dir!);
      if (!made.ok) return made;
      const current = await readFile(file);
      if (!current.ok) return current;
      const next = change(current.value);
      if (next === undefined) return await removeFile(file);
      return await writeFile(file, { version: 1, ...key, ...next });
    });
  }

  /** Runs `task` after every earlier task of this process on the same file, whichever store. */
  #turn<T>(file: string, task: () => Promise<T>): Promise<T> {
    const before = TURNS.get(file) ?? Promise.resolve();
    const run = before.then(task, task);
    const settled = run.then(() => {}, () => {});
    TURNS.set(file, settled);
    settled.then(() => {
      if (TURNS.get(file) === settled) TURNS.delete(file);
    });
    return run;
  }
}

async function readFile(path: string): Promise<Result<StoredEntry | undefined, StoreFailure>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return ok(undefined);
    return err({
      kind: "store_failed",
      message: `Cannot read the token file ${quote(path, 200)}: ${reason(error)}`,
      path,
    });
  }
  const entry = decodeEntry(text);
  if (entry === undefined) {
    return err({
      kind: "store_failed",
      message: `Cannot read the token file ${quote(path, 200)}: it is not one loom-mcp wrote; ` +
        `delete it to sign in again`,
      path,
    });
  }
  return ok(entry);
}

/** Makes the store's folder, mode 0700, unless it exists; then checks it as {@linkcode checkFolder}. */
async function makeFolder(dir: string): Promise<Result<void, StoreFailure>> {
  try {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    return err({
      kind: "store_failed",
      message: `Cannot make the token folder ${quote(dir, 200)}: ${reason(error)}`,
      path: dir,
    });
  }
  const folder = await checkFolder(dir);
  return folder.ok ? ok(undefined) : folder;
}

/**
 * Whether the store's folder exists (false when it does not), refusing one
 * that is not a folder, not the user's own, or open to its group or others.
 */
async function checkFolder(dir: string): Promise<Result<boolean, StoreFailure>> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return ok(false);
    return err({
      kind: "store_failed",
      message: `Cannot read the token folder ${quote(dir, 200)}: ${reason(error)}`,
      path: dir,
    });
  }
  const shown = quote(dir, 200);
  if (!info.isDirectory) {
    return err({
      kind: "store_failed",
      message: `Cannot keep tokens in ${shown}: it is not a folder; remove it, or give the ` +
        `token store another folder`,
      path: dir,
    });
  }
  // Windows has no mode bits and no uid here: its folders are guarded by ACLs instead.
  if (info.mode === null || info.uid === null) return ok(true);
  const user = ownUid();
  if (user !== undefined && info.uid !== user) {
    return err({
      kind: "store_failed",
      message: `Cannot keep tokens in ${shown}: it belongs to user ${info.uid}, not to this ` +
        `user (${user}); give the token store a folder of your own, or run ` +
        `chown ${user} ${shellWord(dir)} && chmod 700 ${shellWord(dir)}`,
      path: dir,
    });
  }
  const mode = info.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return err({
      kind: "store_failed",
      message:
        `Cannot keep tokens in ${shown}: its mode is ${
          mode.toString(8).padStart(4, "0")
        }, open to ${(mode & 0o007) !== 0 ? "every user" : "its group"}; ` +
        `run chmod 700 ${shellWord(dir)}`,
      path: dir,
    });
  }
  return ok(true);
}

/**
 * This process's user, when it may be asked (`--allow-sys=uid`). Without it
 * only the mode is checked: a folder of another user's that no one else may
 * enter cannot be read or written by this one anyway.
 */
function ownUid(): number | undefined {
  try {
    return Deno.uid() ?? undefined;
  } catch {
    return undefined;
  }
}

/** `text` as one word of a POSIX shell, for a command a person copies. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`;
}

async function writeFile(
  path: string,
  value: Record<string, unknown>,
): Promise<Result<void, StoreFailure>> {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temp, `${JSON.stringify(value, null, 2)}\n`, {
      mode: 0o600,
      createNew: true,
    });
    // The mode above is filtered by the umask; this one is not.
    if (Deno.build.os !== "windows") await Deno.chmod(temp, 0o600);
    await Deno.rename(temp, path);
    return ok(undefined);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    return err({
      kind: "store_failed",
      message: `Cannot write the token file ${quote(path, 200)}: ${reason(error)}`,
      path,
    });
  }
}

async function removeFile(path: string): Promise<Result<void, StoreFailure>> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      return err({
        kind: "store_failed",
        message: `Cannot remove the token file ${quote(path, 200)}: ${reason(error)}`,
        path,
      });
    }
  }
  return ok(undefined);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A stored entry from a file's text; undefined when it is not one. */
function decodeEntry(text: string): StoredEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !isRecord(value.grants)) return undefined;
  const grants: Record<string, StoredGrant> = {};
  for (const [resource, grant] of Object.entries(value.grants)) {
    if (!isRecord(grant) || typeof grant.accessToken !== "string") return undefined;
    const scopes = Array.isArray(grant.scopes)
      ? grant.scopes.filter((s): s is string => typeof s === "string")
      : [];
    const out: StoredGrant = { accessToken: grant.accessToken, scopes };
    if (typeof grant.expiresAt === "number") out.expiresAt = grant.expiresAt;
    if (typeof grant.refreshToken === "string") out.refreshToken = grant.refreshToken;
    grants[resource] = out;
  }
  const entry: StoredEntry = { grants };
  const registration = value.registration;
  if (isRecord(registration)) {
    const method = registration.tokenEndpointAuthMethod;
    if (
      typeof registration.clientId !== "string" ||
      !(TOKEN_ENDPOINT_AUTH_METHODS as readonly unknown[]).includes(method)
    ) {
      return undefined;
    }
    entry.registration = {
      clientId: registration.clientId,
      tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
    };
    if (typeof registration.clientSecret === "string") {
      entry.registration.clientSecret = registration.clientSecret;
    }
  }
  return entry;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
