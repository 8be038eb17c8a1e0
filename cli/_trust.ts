// Private to cli/: the trust step of a catalog file found in the project
// folder rather than named. Such a file belongs to whoever wrote the project:
// before any of its servers starts, the command says which commands it
// would run and which of the user's variables it would expand into which
// values, and asks (on a terminal) or refuses (without one) unless --trust
// is given. "Always" is remembered per file path and digest, in the user's
// config folder ($XDG_CONFIG_HOME/loom-mcp/trusted.json, or
// ~/.config/loom-mcp/trusted.json).

import { dirname, join, resolve } from "node:path";
import { quote } from "../codec/quote.ts";
import { isRemote, type ServerSpec } from "../settings/mod.ts";
import type { Catalog } from "../catalog/mod.ts";
import type { Output } from "./_output.ts";
import { printable } from "./_render.ts";

/** How a found file came to be trusted, or why it was not. */
export type Trust =
  | { trusted: true; how: "nothing_to_run" | "flag" | "answered" | "remembered" }
  | { trusted: false; message: string };

/** The file where "always" answers are kept; `undefined` when no folder is known. */
export function trustStore(
  env: (name: string) => string | undefined = readEnv,
): string | undefined {
  const config = env("XDG_CONFIG_HOME") ||
    (env("HOME") ? join(env("HOME") as string, ".config") : "");
  return config === "" ? undefined : join(config, "loom-mcp", "trusted.json");
}

/** Every variable the file's servers would read or inherit, each once, in file order. */
export function variablesOf(catalog: Catalog): string[] {
  const inherited = planned(catalog).flatMap((spec) => isRemote(spec) ? [] : spec.inheritEnv ?? []);
  return [
    ...new Set([
      ...catalog.substitutions.flatMap((substitution) => substitution.variables),
      ...inherited,
    ]),
  ];
}

/** The servers the file would start, as it wrote them (variables unexpanded). */
function planned(catalog: Catalog): ServerSpec[] {
  const written = catalog.skipped.flatMap((entry) =>
    entry.written === undefined ? [] : [entry.written]
  );
  const order = new Map(catalog.tables.map((table, index) => [table.server, index]));
  return [...catalog.servers, ...written].sort((a, b) =>
    (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0)
  );
}

/** What the file would do, for a person deciding whether to let it. */
export function plan(catalog: Catalog): string[] {
  const lines: string[] = [];
  const servers = planned(catalog);
  const runs = servers.filter((spec) => !isRemote(spec));
  const remotes = servers.filter(isRemote);
  if (runs.length > 0) lines.push("It would run these commands:");
  for (const spec of runs) {
    const argv = [spec.command, ...(spec.args ?? [])].map(shellWord).join(" ");
    lines.push(
      `  ${spec.name}: ${printable(argv)}${
        spec.cwd === undefined ? "" : `  (in ${printable(spec.cwd)})`
      }`,
    );
  }
  for (const spec of runs) {
    // Every variable the server starts with, whoever set it: NODE_OPTIONS
    // runs code as surely as the command does.
    for (const [name, value] of Object.entries(spec.env ?? {})) {
      lines.push(`  ${spec.name} sets ${printable(name)}=${shownValue(name, value)}`);
    }
  }
  for (const spec of runs) {
    if ((spec.inheritEnv ?? []).length === 0) continue;
    lines.push(`  ${spec.name} also gets your ${(spec.inheritEnv ?? []).join(", ")} (inherit_env)`);
  }
  const project = realFolder(dirname(resolve(catalog.file)));
  for (const { server, path } of catalog.envFiles) {
    lines.push(
      `  ${server} also gets the variables of the env file ${envFileShown(path, project)}`,
    );
  }
  if (remotes.length > 0) lines.push("It would connect to:");
  for (const spec of remotes) {
    lines.push(`  ${spec.name}: ${printable(spec.url)}`);
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      lines.push(`    with header ${printable(name)}: ${printable(value)}`);
    }
  }
  const reads = catalog.substitutions.filter((substitution) => substitution.variables.length > 0);
  if (reads.length > 0) lines.push("It would put these variables of your environment into:");
  for (const { server, key, written, variables } of reads) {
    lines.push(`  ${variables.join(", ")}: ${server}'s ${key} (written ${quote(written)})`);
  }
  return lines;
}

/**
 * Decides whether the servers of a found file may start: nothing to run,
 * `--trust`, a remembered "always" for this file as it is, or the answer to
 * the question on a terminal. Without a terminal, the refusal says what to do.
 */
export async function trustFound(
  catalog: Catalog,
  options: { trust: boolean; output: Output; store?: string; terminal?: boolean },
): Promise<Trust> {
  if (planned(catalog).length === 0) return { trusted: true, how: "nothing_to_run" };
  if (options.trust) return { trusted: true, how: "flag" };
  const file = resolve(catalog.file);
  const store = options.store ?? trustStore();
  if (store !== undefined && (await remembered(store))[file] === catalog.digest) {
    return { trusted: true, how: "remembered" };
  }
  const { output } = options;
  const where = dirname(file);
  output.detail(
    `${output.paint(printable(catalog.file), "head", "err")} was found in ${printable(where)}, ` +
      "not named: it belongs to whoever wrote this folder, and nothing in it runs before you say so.",
  );
  for (const line of plan(catalog)) output.detail(line);
  const terminal = options.terminal ?? (Deno.stdin.isTerminal() && Deno.stderr.isTerminal());
  if (!terminal) {
    return {
      trusted: false,
      message:
        `${printable(catalog.file)} was found here, not named, and is not trusted: run the ` +
        "command on a terminal to be asked, pass --trust to start its servers this once, or " +
        `name the file (--catalog ${printable(catalog.file)}) if you wrote it`,
    };
  }
  const answer = await ask(
    output,
    `Start them? [y] yes, this once  [a] always, for this file as it is  [N] no: `,
  );
  if (answer === "a" || answer === "always") {
    if (store !== undefined) await remember(store, file, catalog.digest ?? "");
    if (store !== undefined) output.detail(`remembered in ${printable(store)}`);
    return { trusted: true, how: "answered" };
  }
  if (answer === "y" || answer === "yes") return { trusted: true, how: "answered" };
  return {
    trusted: false,
    message: `not starting the servers of ${printable(catalog.file)}; nothing was run`,
  };
}

async function ask(output: Output, question: string): Promise<string> {
  Deno.stderr.writeSync(new TextEncoder().encode(output.paint(question, "head", "err")));
  const buffer = new Uint8Array(256);
  let line = "";
  while (!line.includes("\n")) {
    const count = await Deno.stdin.read(buffer);
    if (count === null) break;
    line += new TextDecoder().decode(buffer.subarray(0, count));
  }
  return line.trim().toLowerCase();
}

async function remembered(store: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await Deno.readTextFile(store));
    const files = parsed?.files;
    return typeof files === "object" && files !== null ? files : {};
  } catch {
    return {};
  }
}

async function remember(store: string, file: string, digest: string): Promise<void> {
  const files = await remembered(store);
  files[file] = digest;
  await Deno.mkdir(dirname(store), { recursive: true });
  const text = JSON.stringify({ files }, null, 2) + "\n";
  const temporary = `${store}.${crypto.randomUUID()}`;
  await Deno.writeTextFile(temporary, text, { mode: 0o600 });
  await Deno.rename(temporary, store);
}

/** The most characters of a variable's value the trust question quotes: 1,000 (then its length). */
export const MAX_TRUST_VALUE_CHARS = 1000;

// Names of variables whose values are secrets: shown as set, never as written.
const SECRET_NAME =
  /secret|token|passw(?:or)?d|pwd|api_?key|private_?key|credential|auth|cookie|session|(?:^|_)key$/i;

function shownValue(name: string, value: string): string {
  if (SECRET_NAME.test(name)) return `(hidden: ${value.length} characters)`;
  const length = Array.from(value).length;
  return quote(value, MAX_TRUST_VALUE_CHARS) +
    (length > MAX_TRUST_VALUE_CHARS ? ` (${length} characters in all)` : "");
}

// The file an env file's path reads (a link followed), and whether it is outside the project.
function envFileShown(path: string, project: string): string {
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch {
    return printable(path);
  }
  if (real === path) return printable(path);
  const inside = real === project ||
    real.startsWith(project.endsWith("/") ? project : `${project}/`);
  return `${printable(real)} (${inside ? "a link" : "a link out of the project"}, at ${
    printable(path)
  })`;
}

function realFolder(folder: string): string {
  try {
    return Deno.realPathSync(folder);
  } catch {
    return folder;
  }
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
