// Shared by the catalog's tests: a strict reading's servers alone, or its
// refusal, at each door and in each syntax.

import { ok, type Result } from "../../codec/result.ts";
import {
  type Catalog,
  type CatalogError,
  type CatalogOptions,
  openCatalog,
  readCatalog,
  type ResolvedServerSpec,
} from "../../mod.ts";

type TextOptions = Pick<CatalogOptions, "file" | "env">;

function servers(
  read: Result<Catalog, CatalogError>,
): Result<ResolvedServerSpec[], CatalogError> {
  return read.ok ? ok(read.value.servers) : read;
}

/** The servers of a TOML text read strictly. */
export function readTomlStrict(
  text: string,
  options: TextOptions = {},
): Result<ResolvedServerSpec[], CatalogError> {
  return servers(readCatalog(text, { ...options, format: "toml", mode: "strict" }));
}

/** The servers of a JSON text read strictly. */
export function readJsonStrict(
  text: string,
  options: TextOptions = {},
): Result<ResolvedServerSpec[], CatalogError> {
  return servers(readCatalog(text, { ...options, format: "json", mode: "strict" }));
}

/** The servers of a catalog file read strictly. */
export async function openStrict(
  path: string | URL,
): Promise<Result<ResolvedServerSpec[], CatalogError>> {
  return servers(await openCatalog(path, { mode: "strict" }));
}
