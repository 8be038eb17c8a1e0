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
import { isRemote, type ResolvedServerSpec } from "../spec/mod.ts";
import type { Catalog, CatalogError, OpenCatalogOptions } from "./types.ts";
import { readCatalog } from "./read.ts";
import { pathOf, readText } from "./_file.ts";

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
 * default), read as {@linkcode readCatalog} reads text, with its options
 * (`strict`, `literal`, `format`: by default from the file name). `${VAR}`
 * and `${env:VAR}` expand from the harness's environment unless
 * `options.env` says otherwise. The project folder (`workspaceFolder`, by
 * default the file's folder, or the parent of `.vscode/` or `.cursor/` for
 * the files kept there) is what `${workspaceFolder}` stands for and the
 * folder a relative `cwd`, or none, means. `Catalog.file` says which file was
 * read.
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
 * ```
 *
 * @example Open a loom catalog the strict way
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 * const catalog = await openCatalog("loom.toml", { strict: true, literal: true });
 * if (!catalog.ok) throw new Error(catalog.error.message); // names the file, table and key
 * const harness = await boot(catalog.value.servers);
 * ```
 */
export async function openCatalog(
  path?: string | URL,
  options: OpenCatalogOptions = {},
): Promise<Result<Catalog, CatalogError>> {
  const { folder, ...reading } = options;
  let file: string;
  if (path === undefined) {
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
    file = found;
  } else {
    file = pathOf(path, "openCatalog");
  }
  const text = await readText(file);
  if (!text.ok) return text;
  const project = resolve(reading.workspaceFolder ?? projectOf(dirname(resolve(file))));
  const read = readCatalog(text.value, {
    ...reading,
    file,
    env: reading.env ?? harnessEnv,
    workspaceFolder: project,
  });
  if (!read.ok) return read;
  return ok({ ...read.value, servers: inFolder(read.value.servers, project) });
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
function inFolder(specs: ResolvedServerSpec[], folder: string): ResolvedServerSpec[] {
  return specs.map((spec) =>
    isRemote(spec) || spec.cwd !== undefined && isAbsolute(spec.cwd)
      ? spec
      : { ...spec, cwd: spec.cwd === undefined ? folder : join(folder, spec.cwd) }
  );
}

function harnessEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // No --allow-env for it: the entry says the variable is not set.
  }
}
