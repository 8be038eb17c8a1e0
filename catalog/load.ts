/**
 * The catalog from the disk: {@linkcode loadCatalog} reads one file the
 * strict way; {@linkcode openCatalog} reads the file given, or finds one in
 * the usual places, the way {@linkcode readCatalog} reads text. Both resolve
 * a relative `cwd` against the catalog's folder, which is also the working
 * folder of a server that names none.
 *
 * @module
 */

import { dirname, isAbsolute, join, resolve } from "node:path";
import { err, ok, type Result } from "../codec/result.ts";
import { isRemote, type ResolvedServerSpec } from "../spec/mod.ts";
import type { Catalog, CatalogError, ReadCatalogOptions } from "./types.ts";
import { parseCatalog } from "./toml.ts";
import { parseMcpServersJson } from "./mcp_json.ts";
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
 * Reads a catalog file: `.json` files in the `mcpServers` form
 * ({@linkcode parseMcpServersJson}), any other file as TOML
 * ({@linkcode parseCatalog}), refusing the whole file at the first mistake.
 * A file that cannot be read, is not a regular file, is larger than
 * `MAX_CATALOG_BYTES` or is not UTF-8 is a {@linkcode CatalogError}. A URL
 * other than `file:` throws a `TypeError`. The `url` and `headers` of a
 * remote server expand `${VAR}` from the harness's environment. For the
 * files other tools write (disabled entries, variables everywhere), use
 * {@linkcode openCatalog}.
 *
 * @example Load a catalog
 * ```ts ignore
 * import { loadCatalog } from "@loom/mcp";
 * const catalog = await loadCatalog("harness.toml");
 * if (!catalog.ok) console.error(catalog.error.message);
 * ```
 */
export async function loadCatalog(
  path: string | URL,
): Promise<Result<ResolvedServerSpec[], CatalogError>> {
  const file = pathOf(path, "loadCatalog");
  const text = await readText(file);
  if (!text.ok) return text;
  const parsed = /\.json$/i.test(file)
    ? parseMcpServersJson(text.value, { file, env: harnessEnv })
    : parseCatalog(text.value, { file, env: harnessEnv });
  if (!parsed.ok) return parsed;
  return ok(inFolder(parsed.value, dirname(resolve(file))));
}

/**
 * Opens a catalog the way a command line does: the file given, or else the
 * first of {@linkcode CATALOG_FILES} in `options.folder` (the current folder
 * by default), read as {@linkcode readCatalog} reads text. `${VAR}` and
 * `${env:VAR}` expand from the harness's environment unless `options.env`
 * says otherwise. The project folder is the catalog's folder, or the parent
 * of `.vscode/` or `.cursor/` for the files kept there: it is what
 * `${workspaceFolder}` stands for, and the folder a relative `cwd` (or none)
 * means. `Catalog.file` says
 * which file was read. No file given and none found is an `unreadable_file`
 * error naming the places looked at.
 *
 * @example Open the catalog of the current folder
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 * const catalog = await openCatalog();
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * for (const skipped of catalog.value.skipped) console.error(skipped.message);
 * const harness = await boot(catalog.value.servers);
 * ```
 */
export async function openCatalog(
  path?: string | URL,
  options: ReadCatalogOptions & { folder?: string } = {},
): Promise<Result<Catalog, CatalogError>> {
  const folder = options.folder ?? Deno.cwd();
  let file: string;
  if (path === undefined) {
    const found = await findCatalog(options.folder);
    if (found === undefined) {
      return err({
        kind: "unreadable_file",
        file: folder,
        message: `no catalog given and none of ${
          CATALOG_FILES.join(", ")
        } is in ${folder}; give the catalog's path`,
      });
    }
    file = found;
  } else {
    file = pathOf(path, "openCatalog");
  }
  const text = await readText(file);
  if (!text.ok) return text;
  const home = dirname(resolve(folder, file));
  const project = /^\.(?:vscode|cursor)$/.test(home.split("/").pop() ?? "") ? dirname(home) : home;
  const read = readCatalog(text.value, {
    ...options,
    file,
    env: options.env ?? harnessEnv,
    workspaceFolder: options.workspaceFolder ?? project,
  });
  if (!read.ok) return read;
  return ok({ ...read.value, servers: inFolder(read.value.servers, project) });
}

/**
 * The first of {@linkcode CATALOG_FILES} that exists in `folder` (the current
 * folder by default), as a path relative to it when `folder` is the current
 * one; `undefined` when there is none.
 */
export async function findCatalog(folder?: string): Promise<string | undefined> {
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

// A relative `cwd` means the catalog's own folder, wherever the harness runs,
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
