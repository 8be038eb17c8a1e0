/**
 * The door for a catalog file: the file given, or the first found in the
 * usual places, read as {@linkcode readCatalog} reads text. A relative `cwd`
 * is resolved against the project folder, which is also the working folder
 * of a server that names none.
 *
 * @module
 */

import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { err, ok, type Result } from "../codec/result.ts";
import { isRemote, type ServerSpec, type StdioServerSpec } from "../settings/mod.ts";
import {
  type Catalog,
  type CatalogError,
  MAX_CATALOG_BYTES,
  type OpenCatalogOptions,
} from "./types.ts";
import { readCatalog } from "./read.ts";
import { pathOf, readSmallText, readText } from "./_file.ts";
import { userCatalogFiles } from "./user.ts";

/**
 * Where {@linkcode openCatalog} looks, in order, when no file is given: the
 * TOML catalog, then the files Claude Code, VS Code and Cursor keep in a
 * project folder.
 */
export const CATALOG_FILES: readonly string[] = [
  "loom.toml",
  ".mcp.json",
  ".vscode/mcp.json",
  ".cursor/mcp.json",
];

/**
 * Opens a catalog file: the one at `path`, or else the first of
 * {@linkcode CATALOG_FILES} in `options.folder` (the current folder by
 * default), or with `options.user` the first of the user's own files
 * (`userCatalogFiles()`) that lists servers, read as {@linkcode readCatalog}
 * reads text, with its options (`mode`, `format`: by default
 * from the file name). Variables (`${VAR}`, `${env:VAR}`, `${VAR:-default}`)
 * expand from the harness's environment unless `options.env` says
 * otherwise; but a file found in the project folder rather than named
 * belongs to whoever wrote the project, and expands none unless
 * `options.expand` (or `options.env`) allows them: an entry that reads one
 * is skipped as `unexpanded`, naming it. An entry's `envFile` is read from
 * disk. The project folder (`workspaceFolder`, by default the file's folder,
 * or the parent of `.vscode/` or `.cursor/` for the files kept there) is
 * what `${workspaceFolder}` stands for and the folder a relative `cwd`, or
 * none, means. `Catalog.file` says which file was read, `Catalog.digest` the
 * SHA-256 of its bytes.
 *
 * A file that cannot be read, is not a regular file, is larger than
 * `MAX_CATALOG_BYTES` or is not UTF-8 is a {@linkcode CatalogError}, and so
 * is no file given and none found (`unreadable_file`, naming the places
 * looked at). A URL other than `file:` throws a `TypeError`.
 *
 * @example Open the catalog of the current folder
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 * const catalog = await openCatalog();
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * for (const skipped of catalog.value.skipped) console.error(skipped.message);
 * const harness = await boot(catalog.value.servers);
 * await harness.retire();
 * ```
 *
 * @example Open a loom catalog the strict way
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 * const catalog = await openCatalog("loom.toml", { mode: "strict" });
 * if (!catalog.ok) throw new Error(catalog.error.message); // names the file, table and key
 * const harness = await boot(catalog.value.servers);
 * await harness.retire();
 * ```
 */
export async function openCatalog(
  path?: string | URL,
  options: OpenCatalogOptions = {},
): Promise<Result<Catalog, CatalogError>> {
  const { folder, user, ...reading } = options;
  if (path !== undefined) return await openFile(pathOf(path, "openCatalog"), reading, false);
  if (user === true) return await openUserFile(reading);
  const found = await findCatalog(folder);
  if (found === undefined) {
    const where = folder ?? Deno.cwd();
    return err({
      kind: "unreadable_file",
      file: where,
      message: `no catalog given and none of ${
        CATALOG_FILES.join(", ")
      } is in ${where}; give the catalog's path`,
    });
  }
  return await openFile(found, reading, true);
}

type Reading = Omit<OpenCatalogOptions, "folder" | "user">;

async function openFile(
  file: string,
  reading: Reading,
  found: boolean,
): Promise<Result<Catalog, CatalogError>> {
  const read = await readText(file);
  if (!read.ok) return read;
  const project = resolve(reading.workspaceFolder ?? projectOf(dirname(resolve(file))));
  // A file found rather than named expands nothing it was not allowed.
  const allow = found && reading.env === undefined && reading.expand === undefined
    ? { expand: { allow: [] } }
    : {};
  const catalog = readCatalog(read.value.text, {
    ...reading,
    ...allow,
    file,
    env: reading.env ?? harnessEnv,
    workspaceFolder: project,
    envFile: readSmallText,
  });
  if (!catalog.ok) return catalog;
  return ok({
    ...catalog.value,
    servers: inFolder(catalog.value.servers, project),
    // What an unexpanded entry would run, in the folder it would run in.
    skipped: catalog.value.skipped.map((entry) =>
      entry.written === undefined
        ? entry
        : { ...entry, written: inFolder([entry.written], project)[0] as ServerSpec }
    ),
    digest: read.value.digest,
  });
}

// The first of the user's own files that lists servers: a file of another
// shape (Claude Code's ~/.claude.json with no "mcpServers") is passed over.
async function openUserFile(reading: Reading): Promise<Result<Catalog, CatalogError>> {
  const places = userCatalogFiles();
  // Files passed over that may well list servers: said, so none is ignored unseen.
  const passed: string[] = [];
  for (const place of places) {
    const size = await sizeOf(place);
    if (size === undefined) continue;
    if (size > MAX_CATALOG_BYTES) {
      passed.push(`${place} (${size} bytes, more than the ${MAX_CATALOG_BYTES} a catalog may be)`);
      continue;
    }
    const opened = await openFile(place, reading, false);
    if (!opened.ok && opened.error.kind === "invalid_catalog" && opened.error.key === undefined) {
      continue;
    }
    if (opened.ok && listsNothing(opened.value)) continue;
    return opened;
  }
  return err({
    kind: "unreadable_file",
    file: places[0] ?? "~",
    message: `no user-level catalog lists servers; looked at ${
      places.length === 0 ? "nothing (HOME is not set)" : places.join(", ")
    }${passed.length === 0 ? "" : `; passed over ${passed.join(", ")}`}; give the catalog's path`,
  });
}

function listsNothing({ servers, skipped, disabled }: Catalog): boolean {
  return servers.length + skipped.length + disabled.length === 0;
}

// The size of what is at a path (0 for what is not a regular file, which
// reading then names), or undefined when nothing is there.
async function sizeOf(path: string): Promise<number | undefined> {
  try {
    await Deno.lstat(path);
  } catch {
    return undefined;
  }
  try {
    const info = await Deno.stat(path);
    return info.isFile ? info.size : 0;
  } catch {
    return 0; // A link to nothing: reading it says so.
  }
}

// The project a file belongs to: its folder, or the parent of the folders
// VS Code and Cursor keep their files in.
function projectOf(home: string): string {
  return /^\.(?:vscode|cursor)$/.test(basename(home)) ? dirname(home) : home;
}

// The first of CATALOG_FILES that exists in `folder` (the current folder by
// default), as a path relative to it when `folder` is the current one.
async function findCatalog(folder?: string): Promise<string | undefined> {
  for (const name of CATALOG_FILES) {
    const path = folder === undefined ? name : join(folder, name);
    try {
      await Deno.lstat(path);
      return path;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return path; // Reading it says why.
    }
  }
  return undefined;
}

// A relative `cwd` means the project's own folder, wherever the harness runs,
// and so does no `cwd` at all: relative paths in `args` mean what they say
// next to the file.
function inFolder<T extends ServerSpec>(specs: T[], folder: string): T[] {
  return specs.map((spec) => {
    if (isRemote(spec)) return spec;
    const cwd = (spec as StdioServerSpec).cwd;
    if (cwd !== undefined && isAbsolute(cwd)) return spec;
    return { ...spec, cwd: cwd === undefined ? folder : join(folder, cwd) };
  });
}

function harnessEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // No --allow-env for it: the entry says the variable is not set.
  }
}
