/**
 * Shared by the interop tests and the measurement script: the catalogs of the
 * official MCP servers, how a catalog is localized for one run (this Deno,
 * temporary folders, a marker in each server's environment), the recorded
 * listings to compare with, and the `/proc` scans that prove no process of a
 * run remains.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readCatalog } from "../../catalog/mod.ts";
import { isRemote, type ResolvedStdioSpec } from "../../settings/mod.ts";
import type { Generated } from "../../codegen/generate.ts";
import { isLive } from "../_proc.ts";
export { isLive };

/** The version of every official server the tests run. */
export const SERVER_VERSION = "2026.8.31";

/** The servers of the catalogs, in catalog order. */
export const SERVERS = ["everything", "filesystem", "memory", "sequential-thinking"] as const;

/** One server name of {@linkcode SERVERS}. */
export type ServerName = typeof SERVERS[number];

/** The environment variable that marks every process of one run. */
export const MARKER_VARIABLE = "LOOM_INTEROP_RUN";

const DATA = new URL("./data/", import.meta.url);
const PACKAGE =
  /@modelcontextprotocol\/server-(?:everything|filesystem|memory|sequential-thinking)/;

/** The TOML catalog text of the four servers. */
export function tomlCatalog(): string {
  return Deno.readTextFileSync(new URL("official.toml", DATA));
}

/** The JSON `mcpServers` text of the four servers. */
export function jsonCatalog(): string {
  return Deno.readTextFileSync(new URL("official.json", DATA));
}

/** One run's temporary folders and marker. */
export type Scratch = {
  /** The run's temporary folder; every server's working directory. */
  root: string;
  /** The folder filesystem may use (a subfolder of `root`). */
  allowed: string;
  /** memory's knowledge-graph file. */
  memoryFile: string;
  /** The value of {@linkcode MARKER_VARIABLE} in every server's environment. */
  marker: string;
};

/** Makes a run's temporary folders and marker. */
export async function makeScratch(): Promise<Scratch> {
  // realPath: filesystem reports its allowed folder with symlinks resolved.
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom_interop_" }));
  const allowed = `${root}/allowed`;
  await Deno.mkdir(allowed);
  return {
    root,
    allowed,
    memoryFile: `${root}/memory.jsonl`,
    marker: crypto.randomUUID(),
  };
}

/**
 * The catalog's specs made runnable here: "deno" becomes the running Deno,
 * each server runs in the scratch folder (never in the project, whose config
 * and lockfile `deno run` would otherwise pick up), filesystem gets its
 * allowed folder, memory its file, and every server the run's marker.
 */
export function localize(
  specs: readonly ResolvedStdioSpec[],
  scratch: Scratch,
): ResolvedStdioSpec[] {
  return specs.map((spec) => {
    const args = spec.name === "filesystem" ? [...spec.args, scratch.allowed] : [...spec.args];
    const env: Record<string, string> = { ...spec.env, [MARKER_VARIABLE]: scratch.marker };
    if (spec.name === "memory") env.MEMORY_FILE_PATH = scratch.memoryFile;
    return {
      ...spec,
      command: spec.command === "deno" ? Deno.execPath() : spec.command,
      args,
      env,
      cwd: scratch.root,
    };
  });
}

/** The specs of the TOML catalog, as parsed. */
export function tomlCatalogSpecs(): ResolvedStdioSpec[] {
  const parsed = readCatalog(tomlCatalog(), { file: "official.toml", mode: "strict" });
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error.message);
  assert.deepEqual(parsed.value.servers.map((spec) => spec.name), [...SERVERS]);
  return parsed.value.servers.filter((spec) => !isRemote(spec));
}

/** The specs of the JSON `mcpServers` catalog, as parsed. */
export function jsonCatalogSpecs(): ResolvedStdioSpec[] {
  const parsed = readCatalog(jsonCatalog(), { file: "official.json", mode: "strict" });
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error.message);
  assert.deepEqual(parsed.value.servers.map((spec) => spec.name), [...SERVERS]);
  return parsed.value.servers.filter((spec) => !isRemote(spec));
}

/** The tool names of a server's listing recorded at {@linkcode SERVER_VERSION}. */
export function recordedToolNames(server: ServerName): string[] {
  const text = Deno.readTextFileSync(new URL(`../codegen/data/${server}.json`, import.meta.url));
  const listing = JSON.parse(text) as { tools: { name: string }[] };
  return listing.tools.map((tool) => tool.name);
}

/** The exported identifier of a wire tool name in a generated module. */
export function identifier(generated: Generated, tool: string): string {
  for (const [name, wire] of generated.manifest) if (wire === tool) return name;
  throw new Error(`Cannot find tool "${tool}" in the manifest of "${generated.moduleName}"`);
}

type ProcessEntry = { pid: number; ppid: number; state: string };

function readProcesses(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      entries.push({ pid, ppid: Number(fields[1]), state: fields[0] ?? "" });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return entries;
}

/** Every live descendant of the given pids (children, grandchildren, ...). */
export function descendants(roots: readonly number[]): number[] {
  const processes = readProcesses().filter((entry) => entry.state !== "Z");
  const found = new Set<number>();
  let frontier = new Set(roots);
  while (frontier.size > 0) {
    const next = new Set<number>();
    for (const entry of processes) {
      if (frontier.has(entry.ppid) && !found.has(entry.pid)) {
        found.add(entry.pid);
        next.add(entry.pid);
      }
    }
    frontier = next;
  }
  return [...found];
}

function readNulSeparated(path: string): string[] | undefined {
  try {
    return Deno.readTextFileSync(path).split("\0");
  } catch {
    return undefined;
  }
}

/**
 * Live processes that belong to the run with this marker: every process whose
 * environment holds the marker (a server or anything it started, wherever it
 * moved), and every process whose command line names one of the server
 * packages while its environment cannot be read (it cannot be told apart,
 * so it counts against the run).
 */
export function leftovers(marker: string): { pid: number; cmdline: string }[] {
  const needle = `${MARKER_VARIABLE}=${marker}`;
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readProcesses()) {
    if (entry.state === "Z" || entry.pid === Deno.pid) continue;
    const cmdline = readNulSeparated(`/proc/${entry.pid}/cmdline`)?.join(" ") ?? "";
    const environ = readNulSeparated(`/proc/${entry.pid}/environ`);
    const marked = environ?.includes(needle) ?? false;
    const unknown = environ === undefined && PACKAGE.test(cmdline);
    if ((marked || unknown) && isLive(entry.pid)) found.push({ pid: entry.pid, cmdline });
  }
  return found;
}
