// Private to cli/: the command line of cli/main.ts, parsed with node:util's
// parseArgs into a command or a usage error (one line, saying what to type
// instead). The commands are one table (_help.ts): a new command is one more
// row there and one handler in main.ts.

import { parseArgs as parseOptions } from "node:util";
import { quote } from "../codec/quote.ts";
import { closestNames } from "../codegen/names.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { type CommandName, COMMANDS, HELP_HINT } from "./_help.ts";
import type { CliCommand, Common } from "./_invocation.ts";
import {
  applyOption,
  durationError,
  isListenAddress,
  listenAddress,
  NEEDS,
  optionError,
  OPTIONS,
  parseDuration,
} from "./_options.ts";

export { type CommandName, COMMANDS, USAGE } from "./_help.ts";
export type { AdHoc, CliCommand, Common, ToolRef } from "./_invocation.ts";
export { listenAddress, parseDuration } from "./_options.ts";

// A path among the arguments is a catalog when it says so by its name.
const CATALOG_NAME = /\.(?:json|jsonc|toml)$/i;

/** Parses the arguments of the command line (a leading `--` is ignored). */
export function parseArgs(argv: readonly string[]): Result<CliCommand, string> {
  // `deno task cli -- <args>` passes the "--" on.
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];
  let tokens;
  try {
    tokens = parseOptions({
      args,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: OPTIONS,
    }).tokens;
  } catch (error) {
    return err(optionError(error));
  }
  const positional: string[] = [];
  const common: Common = {
    servers: [],
    user: false,
    trust: false,
    allowSkipped: false,
    inputs: Object.create(null),
    json: false,
    quiet: false,
    strict: false,
    allowTools: [],
    denyTools: [],
  };
  let help = false;
  let approve = false;
  let deadlineMs: number | undefined;
  let pins: string | undefined;
  let maxOutputBytes: number | undefined;
  let listen: string | undefined;
  for (const token of tokens) {
    if (token.kind === "positional") {
      positional.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const name = token.name;
    if (name === "help") help = true;
    else if (name === "version") {
      const json = tokens.some((given) => given.kind === "option" && given.name === "json");
      return ok({ command: "version", json });
    } else if (name === "approve") approve = true;
    else if (name === "pins") {
      if ((token.value ?? "") === "") return err(NEEDS["pins"] as string);
      if (pins !== undefined) return err("--pins is given twice; keep one");
      pins = token.value;
    } else if (name === "max-output") {
      const bytes = Number(token.value);
      if (!/^\d+$/.test(token.value ?? "") || !Number.isSafeInteger(bytes) || bytes < 1) {
        return err(`--max-output ${quote(token.value ?? "")} is not a positive number of bytes`);
      }
      maxOutputBytes = bytes;
    } else if (name === "http" && isListenAddress(token.value ?? "")) {
      // serve's own address: a value with no scheme; a URL is still a server to front.
      if (listen !== undefined) return err("--http <host:port> is given twice; serve listens once");
      listen = token.value;
    } else if (name === "deadline") {
      deadlineMs = parseDuration(token.value ?? "");
      if (deadlineMs === undefined) return err(durationError(name, token.value));
    } else {
      const problem = applyOption(common, name, token.value);
      if (problem !== undefined) return err(problem);
    }
  }
  if (common.catalog !== undefined && common.servers.length > 0) {
    return err("give either a catalog or --stdio/--http servers, not both");
  }
  if (common.user && (common.catalog !== undefined || common.servers.length > 0)) {
    return err("--user reads the user's own files; give it without a catalog or --stdio/--http");
  }
  const found = commandOf(positional, common);
  if (!found.ok) return found;
  const { command, operands } = found.value;
  if (help || found.value.help === true) {
    return ok(command === undefined ? { command: "help" } : { command: "help", topic: command });
  }
  if (command === undefined) {
    return err(positional.length === 0 ? `no command given; ${HELP_HINT}` : unknown(positional[0]));
  }
  const programs = command === "run" || command === "serve";
  if (deadlineMs !== undefined && !programs) {
    return err("--deadline is the deadline of a program; give it with run or serve");
  }
  if (approve && !programs) {
    return err(
      "--approve asks before each call of a program; give it with run or serve " +
        "(a call you type is already yours)",
    );
  }
  if (command === "serve" && common.json) {
    return err(
      "--json is not for serve: its stdout is the protocol's, and it prints nothing else there",
    );
  }
  if (listen !== undefined && command !== "serve") {
    // An address is serve's; elsewhere a value with no scheme is a URL written short.
    const hint = "error" in listenAddress(listen)
      ? ""
      : " (an address host:port is serve's, where it listens)";
    return err(
      `--http ${
        quote(listen)
      } is not an http or https URL; write it whole, as in --http https://mcp.example.com/mcp` +
        hint,
    );
  }
  if ((pins !== undefined || maxOutputBytes !== undefined) && command !== "serve") {
    return err(`${pins !== undefined ? "--pins" : "--max-output"} is serve's; give it with serve`);
  }
  const address = listen === undefined ? undefined : listenAddress(listen);
  if (address !== undefined && "error" in address) return err(address.error);
  return commandWith(command, operands, common, {
    deadlineMs,
    approve,
    pins,
    maxOutputBytes,
    ...(address === undefined ? {} : { listen: address }),
  });
}

// The command among the positionals, and a catalog named before or after it.
function commandOf(
  positional: readonly string[],
  common: Common,
): Result<{ command?: CommandName; operands: string[]; help?: true }, string> {
  const at = positional.findIndex((word) => Object.hasOwn(COMMANDS, word) || word === "help");
  if (at === -1) return ok({ operands: [] });
  const before = positional.slice(0, at);
  const word = positional[at] as string;
  let operands = positional.slice(at + 1);
  if (word === "help") {
    const topic = operands[0];
    if (topic !== undefined && !Object.hasOwn(COMMANDS, topic)) return err(unknown(topic));
    return ok(
      topic === undefined
        ? { operands: [], help: true }
        : { command: topic as CommandName, operands: [], help: true },
    );
  }
  const command = word as CommandName;
  if (before.length > 1) return err(unknown(before[0]));
  let named = before[0];
  // After the command: the file name of a catalog first or last (a call's
  // argument is key=value or JSON, never such a name), or an operand that a
  // command without operands has not.
  const first = operands[0];
  const last = operands[operands.length - 1];
  const isCatalog = (word: string) => CATALOG_NAME.test(word) && !/[={]/.test(word);
  if (named === undefined && first !== undefined) {
    if (isCatalog(first) || COMMANDS[command].max === 0) {
      named = first;
      operands = operands.slice(1);
    } else if (last !== undefined && operands.length > 1 && isCatalog(last)) {
      named = last;
      operands = operands.slice(0, -1);
    }
  }
  // A URL among the arguments is a remote server, as --http says it.
  if (named !== undefined && /^https?:\/\//i.test(named) && common.catalog === undefined) {
    common.servers.push({ kind: "http", url: named, headers: [] });
    named = undefined;
  }
  if (named !== undefined) {
    if (common.catalog !== undefined) return err("the catalog is given twice; keep one");
    if (common.servers.length > 0) {
      return err(
        before.length > 0
          ? unknown(named)
          : `give either a catalog or --stdio/--http servers, not both (got ${quote(named)})`,
      );
    }
    common.catalog = named;
  }
  return ok({ command, operands });
}

function commandWith(
  name: CommandName,
  operands: string[],
  common: Common,
  run: {
    deadlineMs: number | undefined;
    approve: boolean;
    pins: string | undefined;
    maxOutputBytes: number | undefined;
    listen?: { hostname: string; port: number };
  },
): Result<CliCommand, string> {
  const row = COMMANDS[name];
  if (operands.length < row.min) return err(`${name} needs ${row.needs}, as in: ${row.example}`);
  if (operands.length > row.max) {
    return err(
      row.max === 0
        ? `${name} takes no arguments, got ${quote(operands[0] ?? "")}`
        : `${name} takes ${row.usage.slice(name.length + 1)}, got ${
          quote(operands[row.max] ?? "")
        } too`,
    );
  }
  switch (name) {
    case "check":
      return ok({ command: name, ...common });
    case "surface":
    case "tools":
      return ok({ command: name, names: operands, ...common });
    case "prompts":
    case "resources":
      return ok(
        operands[0] === undefined
          ? { command: name, ...common }
          : { command: name, server: operands[0], ...common },
      );
    case "prompt": {
      const [server, prompt, ...args] = operands as [string, string, ...string[]];
      return ok({ command: name, server, name: prompt, args, ...common });
    }
    case "read": {
      const [server, uri] = operands as [string, string];
      return ok({ command: name, server, uri, ...common });
    }
    case "search":
      return ok({ command: name, query: operands.join(" "), ...common });
    case "describe": {
      const [server, tool] = operands as [string, string];
      return ok({ command: name, server, tool, ...common });
    }
    case "module":
      return ok({ command: name, server: operands[0] as string, ...common });
    case "call": {
      const [server, tool, ...args] = operands as [string, string, ...string[]];
      return ok({ command: name, server, tool, args, ...common });
    }
    case "run":
      return ok({
        command: name,
        program: operands[0] as string,
        ...common,
        ...(run.deadlineMs === undefined ? {} : { deadlineMs: run.deadlineMs }),
        approve: run.approve,
      });
    case "serve":
      return ok({
        command: name,
        ...common,
        ...(run.deadlineMs === undefined ? {} : { deadlineMs: run.deadlineMs }),
        approve: run.approve,
        ...(run.pins === undefined ? {} : { pins: run.pins }),
        ...(run.maxOutputBytes === undefined ? {} : { maxOutputBytes: run.maxOutputBytes }),
        ...(run.listen === undefined ? {} : { listen: run.listen }),
      });
    case "login":
    case "logout":
      return ok({ command: name, server: operands[0] as string, ...common });
  }
}

function unknown(word: string | undefined): string {
  const close = closestNames(word ?? "", [...Object.keys(COMMANDS), "help"]);
  return `unknown command ${quote(word ?? "")}; ${
    close.length === 0 ? HELP_HINT : `did you mean ${close.join(" or ")}? (${HELP_HINT})`
  }`;
}
