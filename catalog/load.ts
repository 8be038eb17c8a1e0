/**
 * The one file read of the catalog: a bounded read of a regular file, then
 * the front end its name asks for.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { err, ok, type Result } from "../codec/result.ts";
import type { ServerSpec } from "../client/spec.ts";
import { type CatalogError, MAX_CATALOG_BYTES } from "./types.ts";
import { parseCatalog } from "./toml.ts";
import { parseMcpServersJson } from "./mcp_json.ts";

/**
 * Reads a catalog file: `.json` files in the `mcpServers` form
 * ({@linkcode parseMcpServersJson}), any other file as TOML
 * ({@linkcode parseCatalog}). A file that cannot be read, is not a regular
 * file, is larger than {@linkcode MAX_CATALOG_BYTES} or is not UTF-8 is a
 * {@linkcode CatalogError}. A URL other than `file:` throws a `TypeError`.
 *
 * @example Load a catalog
 * ```ts ignore
 * import { loadCatalog } from "@loom/mcp";
 * const catalog = await loadCatalog("harness.toml");
 * if (!catalog.ok) console.error(catalog.error.message);
 * ```
 */
export async function loadCatalog(path: string | URL): Promise<Result<ServerSpec[], CatalogError>> {
  let file: string;
  if (typeof path === "string") {
    file = path;
  } else if (path instanceof URL && path.protocol === "file:") {
    file = fileURLToPath(path);
  } else {
    throw new TypeError(`loadCatalog() expects a file path or a file: URL, got ${String(path)}`);
  }
  const bytes = await readBounded(file);
  if (!bytes.ok) return bytes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.value);
  } catch {
    return err({
      kind: "invalid_catalog",
      file,
      message: `${file}: the catalog is not UTF-8 text; is this the right file?`,
    });
  }
  const parsed = /\.json$/i.test(file)
    ? parseMcpServersJson(text, { file })
    : parseCatalog(text, { file });
  if (!parsed.ok) return parsed;
  // A relative `cwd` means the catalog's own folder, wherever the harness runs.
  const folder = dirname(resolve(file));
  return ok(
    parsed.value.map((spec) =>
      spec.cwd === undefined || isAbsolute(spec.cwd)
        ? spec
        : { ...spec, cwd: join(folder, spec.cwd) }
    ),
  );
}

async function readBounded(file: string): Promise<Result<Uint8Array, CatalogError>> {
  const unreadable = (error: unknown): Result<Uint8Array, CatalogError> =>
    err({
      kind: "unreadable_file",
      file,
      message: `${file}: cannot read the catalog (${
        error instanceof Error ? error.message : String(error)
      }); check the path and its permissions`,
    });
  // Stat first: opening a FIFO would block, and a device could be endless.
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    return unreadable(error);
  }
  if (!info.isFile) {
    return err({
      kind: "unreadable_file",
      file,
      message: `${file}: cannot read the catalog: it is ${
        info.isDirectory ? "a directory" : "not a regular file"
      }; give the path of the catalog file`,
    });
  }
  const tooLarge = (size: number): Result<Uint8Array, CatalogError> =>
    err({
      kind: "invalid_catalog",
      file,
      message:
        `${file}: the catalog is ${size} bytes, more than the ${MAX_CATALOG_BYTES} allowed; is this the right file?`,
    });
  if (info.size > MAX_CATALOG_BYTES) return tooLarge(info.size);
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(file, { read: true });
  } catch (error) {
    return unreadable(error);
  }
  try {
    // The file may grow between stat and read: read at most one byte past the cap.
    const buffer = new Uint8Array(MAX_CATALOG_BYTES + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const count = await handle.read(buffer.subarray(filled));
      if (count === null) break;
      filled += count;
    }
    if (filled > MAX_CATALOG_BYTES) return tooLarge(filled);
    return ok(buffer.slice(0, filled));
  } catch (error) {
    return unreadable(error);
  } finally {
    handle.close();
  }
}
