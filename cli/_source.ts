// Private to cli/: where a command's servers come from. Either the servers
// given on the command line (--stdio, each split into argv here, never by a
// shell; --http) or a catalog: the file named, the user's own (--user), or
// the first found in the project folder, which starts nothing before it is
// trusted (_trust.ts). The deadlines given override every server's. What the
// catalog left out, renamed or found suspicious comes back as notes, and
// every value it expanded from a variable is said as written wherever it is
// printed.

import { resolve } from "node:path";
import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { isRemote, type ServerSpec } from "../settings/mod.ts";
import { type Catalog, isServerName, openCatalog } from "../catalog/mod.ts";
import type { AdHoc, Common } from "./_args.ts";
import { httpName, stdioName } from "./_names.ts";
import type { Output } from "./_output.ts";
import { printable } from "./_render.ts";
import { trustFound, variablesOf } from "./_trust.ts";
import { applyToolFlags, type ToolFlags } from "./_governance.ts";
import { EXIT_UNTRUSTED, EXIT_USAGE } from "./exit_codes.ts";

/**
 * One deadline of a server in the words of where it was given: what set it
 * (the flag, the catalog entry's key, or `the default`) and what raises it.
 */
export type Knob = { setBy: string; raise: string };

/** How a server's deadlines were set and are raised. */
export type Knobs = { connect: Knob; call: Knob };

/** The servers of one invocation, where they came from, and what to tell about them. */
export type Source = {
  /** The catalog file read, or `the command line`. */
  origin: string;
  specs: ServerSpec[];
  /** The catalog's report, when there was a catalog. */
  catalog?: Catalog;
  /** Each name a server is written under in the file (`"GitHub"`) to its server name. */
  aliases: ReadonlyMap<string, string>;
  /** How each server's deadlines are raised. */
  knobs: ReadonlyMap<string, Knobs>;
  /** The tools --allow-tool and --deny-tool name, by server (already in the specs' lists). */
  toolFlags: ToolFlags;
  /** Each catalog server's table and file (`[mcp.memory] of loom.toml`), for messages. */
  where: ReadonlyMap<string, string>;
};

/** A refusal before anything started: the message and the exit status. */
export type Refusal = { message: string; status: number };

/** Reads the servers of an invocation; a refusal is one message for a person. */
export async function serversOf(
  common: Common,
  output: Output,
): Promise<Result<Source, Refusal>> {
  const read = common.servers.length > 0 ? adHocServers(common.servers) : await catalogServers(
    common,
    output,
  );
  if (!read.ok) return read;
  const source = read.value;
  const governed = applyToolFlags(source.specs, common, source);
  if (!governed.ok) return err({ message: governed.error, status: EXIT_USAGE });
  const specs = governed.value.specs.map((spec) => {
    const out: ServerSpec = { ...spec };
    if (common.connectTimeoutMs !== undefined) out.connectTimeoutMs = common.connectTimeoutMs;
    if (common.callTimeoutMs !== undefined) out.callTimeoutMs = common.callTimeoutMs;
    return out;
  });
  if (source.catalog !== undefined) hideExpanded(source.catalog, output);
  const knobs = new Map(
    source.specs.map((spec) => [spec.name, knobsOf(spec, common, source.where.get(spec.name))]),
  );
  return ok({ ...source, specs, knobs, toolFlags: governed.value.flags });
}

// A deadline is named by what set it: the flag when it was given, the
// entry's key when the entry wrote one, else the default, with both ways to
// raise it.
function knobsOf(spec: ServerSpec, common: Common, where: string | undefined): Knobs {
  const codex = where?.startsWith("[mcp_servers.") ?? false;
  const knob = (flag: string, key: string, fromFlag: boolean, fromEntry: boolean): Knob => {
    if (fromFlag) return { setBy: flag, raise: flag };
    const entryKey = where === undefined ? undefined : `${key} in ${where}`;
    if (fromEntry && entryKey !== undefined) {
      return { setBy: entryKey, raise: `${entryKey}, or pass ${flag}` };
    }
    return {
      setBy: "the default",
      raise: entryKey === undefined ? flag : `${flag}, or set ${entryKey}`,
    };
  };
  return {
    connect: knob(
      "--connect-timeout",
      codex ? "startup_timeout_sec" : "connect_timeout_ms",
      common.connectTimeoutMs !== undefined,
      spec.connectTimeoutMs !== undefined,
    ),
    call: knob(
      "--timeout",
      codex ? "tool_timeout_sec" : "call_timeout_ms",
      common.callTimeoutMs !== undefined,
      spec.callTimeoutMs !== undefined,
    ),
  };
}

/** A source as read, before the flags that apply to its servers. */
type Read = Omit<Source, "toolFlags" | "knobs">;

async function catalogServers(
  common: Common,
  output: Output,
): Promise<Result<Read, Refusal>> {
  const reading = {
    mode: common.strict ? "strict" as const : "lenient" as const,
    inputs: common.inputs,
  };
  const found = common.catalog === undefined && !common.user;
  const opened = await openCatalog(common.catalog, { ...reading, user: common.user });
  if (!opened.ok) return err({ message: opened.error.message, status: EXIT_USAGE });
  let catalog = opened.value;
  if (found) {
    const trust = await trustFound(catalog, { trust: common.trust, output });
    if (!trust.trusted) return err({ message: trust.message, status: EXIT_UNTRUSTED });
    const again = await openCatalog(catalog.file, {
      ...reading,
      expand: { allow: variablesOf(catalog) },
    });
    if (!again.ok) return err({ message: again.error.message, status: EXIT_USAGE });
    if (again.value.digest !== catalog.digest) {
      return err({
        message: `${
          printable(catalog.file)
        } changed while it was being read; run the command again`,
        status: EXIT_USAGE,
      });
    }
    catalog = again.value;
  }
  const tables = new Map(catalog.tables.map(({ server, table }) => [server, table]));
  const wheres = new Map<string, string>();
  for (const spec of catalog.servers) {
    wheres.set(spec.name, `${tables.get(spec.name) ?? spec.name} of ${printable(catalog.file)}`);
  }
  return ok({
    origin: catalog.file,
    specs: catalog.servers,
    catalog,
    aliases: new Map(catalog.renamed.map(({ key, name }) => [key, name])),
    where: wheres,
  });
}

// Every URL and header value expanded from a variable is said as written; so
// is a variable's value of some length, wherever a server or a message
// repeats it (a short one, such as "info", is too common to stand for it).
function hideExpanded(catalog: Catalog, output: Output): void {
  const specs = new Map(catalog.servers.map((spec) => [spec.name, spec]));
  for (const { server, key, written, variables } of catalog.substitutions) {
    const spec = specs.get(server);
    if (spec === undefined) continue;
    const [field, name = ""] = key.split(/\.(.*)/s);
    let value: string | undefined;
    if (isRemote(spec)) {
      value = field === "url" ? spec.url : field === "headers" ? spec.headers?.[name] : undefined;
      if (field === "url" && value !== undefined) {
        // Evidence says a URL's origin and path only.
        output.redact(value.split(/[?#]/)[0] ?? value, written.split(/[?#]/)[0] ?? written);
        try {
          output.redact(new URL(value).href, written);
        } catch {
          // Not a URL: the spec's check refused it already.
        }
      }
    }
    if (value !== undefined) output.redact(value, written);
    // A secret read into anything (an env value too) is said by its name.
    for (const variable of variables) {
      const secret = readEnv(variable);
      if (secret !== undefined && secret.length >= 8) output.redact(secret, `\${${variable}}`);
    }
  }
}

/** What a person should know about the catalog before anything boots, one line each. */
export function notes(source: Source): { label: string; text: string }[] {
  const catalog = source.catalog;
  if (catalog === undefined) return [];
  return [
    ...catalog.renamed.map(({ key, name }) => ({
      label: "note",
      text: `server ${quote(key)} is named ${name} here (its module is mcp/${name}.ts); ` +
        "either name works",
    })),
    ...catalog.disabled.map((disabled) => ({ label: "note", text: disabled.message })),
    ...catalog.skipped.map((skipped) => ({ label: "skipped", text: skipped.message })),
    ...catalog.warnings.map((warning) => ({ label: "warning", text: warning })),
  ];
}

function adHocServers(entries: readonly AdHoc[]): Result<Read, Refusal> {
  const specs: ServerSpec[] = [];
  const taken = new Set<string>();
  const refuse = (message: string) => err({ message, status: EXIT_USAGE });
  for (const [index, entry] of entries.entries()) {
    let spec: ServerSpec;
    let derived: string | undefined;
    if (entry.kind === "stdio") {
      const words = splitWords(entry.command);
      if (!words.ok) return refuse(words.error);
      const [command, ...args] = words.value;
      if (command === undefined) return refuse(`--stdio ${quote(entry.command)} names no command`);
      derived = stdioName(words.value);
      const env: Record<string, string> = Object.create(null);
      for (const [name, value] of entry.env) env[name] = value;
      spec = {
        name: "",
        command,
        args,
        env,
        inheritEnv: [],
        stderr: "tail",
        cwd: entry.cwd === undefined ? Deno.cwd() : resolve(entry.cwd),
      };
    } else {
      derived = httpName(entry.url);
      const headers: Record<string, string> = Object.create(null);
      for (const [name, value] of entry.headers) headers[name] = value;
      spec = { name: "", url: entry.url, headers };
    }
    let name = entry.name ?? derived ?? `server${index + 1}`;
    if (!isServerName(name)) {
      return refuse(
        `--name ${
          quote(name)
        } is not a server name: use lowercase letters, digits, _ and -, starting with a letter`,
      );
    }
    if (taken.has(name)) {
      if (entry.name !== undefined) return refuse(`--name ${quote(name)} is given twice; keep one`);
      let n = 2;
      while (taken.has(`${name}_${n}`)) n++;
      name = `${name}_${n}`;
    }
    taken.add(name);
    specs.push({ ...spec, name });
  }
  return ok({ origin: "the command line", specs, aliases: new Map(), where: new Map() });
}

/**
 * Splits a command into words the way a shell would for plain words, single
 * and double quotes, and backslash escapes; anything a shell would expand is
 * refused, since no shell runs it.
 */
export function splitWords(text: string): Result<string[], string> {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'" || char === '"') {
      const end = text.indexOf(char, i + 1);
      if (end === -1) return err(`--stdio ${quote(text)} has an unclosed ${char}; close it`);
      word = (word ?? "") +
        text.slice(i + 1, end).replace(char === '"' ? /\\(["\\])/g : /$^/, "$1");
      i = end;
    } else if (char === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else if ("$`|&;<>(){}*?".includes(char)) {
      return err(
        `--stdio ${quote(text)} holds ${quote(char)}, which only a shell understands; ` +
          `no shell runs it, so write the command and its arguments plainly`,
      );
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return ok(words);
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
