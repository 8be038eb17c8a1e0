/**
 * The checks of a server spec, each rule stated once: a name that is a
 * module segment, the command, args, env, inheritEnv, cwd and stderr of a
 * stdio server, the url and headers of a remote one, the era and the
 * versions offered, deadlines that a timer can keep, and a restart policy. A check returns the
 * problem, naming the spec's key; the census turns it into the `TypeError`
 * or `RangeError` it throws, the catalog into a `CatalogError` naming its
 * file, table and key.
 *
 * @module
 */

import { describeValue, quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import {
  isSupportedVersion,
  SUPPORTED_VERSIONS,
  type SupportedVersion,
} from "../codec/protocol.ts";
import { moduleSegment } from "../codegen/names.ts";
import { ERA_MODES, type EraMode, isEraMode, offerProblem } from "./era.ts";
import { MAX_TIMEOUT_MS } from "./limits.ts";
import { MAX_RESTART_ATTEMPTS } from "./restart.ts";
import {
  isStderrMode,
  type ResolvedServerSpec,
  type ServerSpec,
  STDERR_MODES,
  withDefaults,
} from "./server_spec.ts";

/** A key of a {@linkcode ServerSpec}: where a {@linkcode SpecProblem} is. */
export type SpecKey =
  | "name"
  | "command"
  | "args"
  | "env"
  | "inheritEnv"
  | "cwd"
  | "stderr"
  | "url"
  | "headers"
  | "connectTimeoutMs"
  | "callTimeoutMs"
  | "era"
  | "versions"
  | "restart";

/**
 * What is wrong with a spec, before anyone says where it came from.
 *
 * @example The problem of an unknown stderr mode
 * ```ts
 * import { checkSpec } from "@loom/mcp";
 * const checked = checkSpec({ name: "x", command: "x", stderr: "merge" });
 * if (!checked.ok) console.log(checked.error);
 * // { kind: "wrong_type", key: "stderr", message: 'expected "tail" or "forward", found "merge"' }
 * ```
 */
export type SpecProblem = {
  /**
   * `wrong_type`: a value of the wrong type or shape (the census throws
   * `TypeError`); `out_of_range`: a deadline or a version outside what is
   * supported (`RangeError`).
   */
  kind: "wrong_type" | "out_of_range";
  /** The key at fault; absent when the spec is not an object at all. */
  key?: SpecKey;
  /** What is wrong, said of that key: what was expected and what was found. */
  message: string;
};

/** Options of {@linkcode checkSpec}. */
export type CheckSpecOptions = {
  /**
   * How a message says what was found (the catalog says it in the words of
   * its file's syntax); `describeValue` of the codec by default.
   */
  describe?: (value: unknown) => string;
};

/** The timeout rule in words, for every message that refuses a deadline. */
export const TIMEOUT_RULE: string = `a positive number of milliseconds, at most ${MAX_TIMEOUT_MS}`;

/**
 * Whether a value is a deadline a timer can keep: a number of milliseconds
 * above zero and at most {@linkcode MAX_TIMEOUT_MS}. The one statement of
 * the rule, for every deadline of the library: a spec's, a call's, a
 * retirement's, a listing's and a run's.
 */
export function isTimeoutMs(value: unknown): value is number {
  return typeof value === "number" && value > 0 && value <= MAX_TIMEOUT_MS;
}

/**
 * Checks a spec as given by a caller (anything at all), and writes out its
 * defaults ({@linkcode withDefaults}); the first problem found otherwise.
 *
 * @example A minimal spec, and a broken one
 * ```ts
 * import { checkSpec } from "@loom/mcp";
 * const good = checkSpec({ name: "memory", command: "deno", args: ["run", "server.ts"] });
 * if (good.ok) console.log(good.value); // { ..., env: {}, inheritEnv: [], stderr: "tail" }
 * const bad = checkSpec({ name: "memory", command: "deno", callTimeoutMs: 0 });
 * console.log(!bad.ok && bad.error.key); // "callTimeoutMs"
 * ```
 */
export function checkSpec(
  value: unknown,
  options: CheckSpecOptions = {},
): Result<ResolvedServerSpec, SpecProblem> {
  const describe = options.describe ?? describeValue;
  if (!isRecord(value)) {
    return err(wrongType(undefined, `expected a server spec object, found ${describe(value)}`));
  }
  const problem = nameProblem(value["name"], describe) ??
    (value["url"] !== undefined ? remoteProblem(value, describe) : stdioProblem(value, describe)) ??
    eraProblem(value, describe) ??
    timeoutProblem(value, describe) ??
    restartProblem(value["restart"], describe);
  return problem === undefined ? ok(withDefaults(value as unknown as ServerSpec)) : err(problem);
}

type Describe = (value: unknown) => string;

function wrongType(key: SpecKey | undefined, message: string): SpecProblem {
  return key === undefined ? { kind: "wrong_type", message } : { kind: "wrong_type", key, message };
}

function outOfRange(key: SpecKey, message: string): SpecProblem {
  return { kind: "out_of_range", key, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// `"a", "b" or "c"`
function oneOf(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length < 2
    ? quoted.join("")
    : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

function nameProblem(name: unknown, describe: Describe): SpecProblem | undefined {
  if (typeof name !== "string" || name === "") {
    return wrongType("name", `expected a non-empty string, found ${describe(name)}`);
  }
  // The name is the generated module's segment: refused before anything spawns.
  const segment = moduleSegment(name);
  if (!segment.ok) {
    return wrongType("name", `${quote(name)} cannot be a server name: ${segment.error.reason}`);
  }
  return undefined;
}

// A key with "=" would be split by the child ("A=B" becomes "A" holding "B=..."),
// and one with NUL cut short: neither names the variable the caller meant.
function isEnvName(name: string): boolean {
  return name !== "" && !name.includes("=") && !name.includes("\0");
}

function envNameProblem(key: SpecKey, name: string): SpecProblem {
  return wrongType(
    key,
    `the variable name ${
      quote(name)
    } is empty or holds "=" or NUL, which no environment variable name can`,
  );
}

// What reaches a process (its command, an argument, a variable, a path) cannot hold NUL.
function nulProblem(key: SpecKey, text: string): SpecProblem | undefined {
  if (!text.includes("\0")) return undefined;
  return wrongType(
    key,
    `found a NUL character in ${quote(text)}, which no process argument or variable can hold`,
  );
}

function namesProblem(
  key: SpecKey,
  value: unknown,
  describe: Describe,
): SpecProblem | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    return wrongType(key, `expected an array of variable names, found ${describe(value)}`);
  }
  for (const [index, name] of value.entries()) {
    if (typeof name !== "string") {
      return wrongType(
        key,
        `expected an array of variable names, found ${describe(name)} at index ${index}`,
      );
    }
    if (!isEnvName(name)) return envNameProblem(key, name);
  }
  return undefined;
}

function stdioProblem(spec: Record<string, unknown>, describe: Describe): SpecProblem | undefined {
  const { command, args, env, cwd, stderr } = spec;
  if (typeof command !== "string" || command === "") {
    return wrongType(
      "command",
      `expected a non-empty string naming the executable, found ${describe(command)}`,
    );
  }
  const problem = nulProblem("command", command);
  if (problem !== undefined) return problem;
  if (args !== undefined) {
    if (!Array.isArray(args)) {
      return wrongType("args", `expected an array of strings, found ${describe(args)}`);
    }
    for (const [index, arg] of args.entries()) {
      if (typeof arg !== "string") {
        return wrongType(
          "args",
          `expected an array of strings, found ${describe(arg)} at index ${index}`,
        );
      }
      const nul = nulProblem("args", arg);
      if (nul !== undefined) return nul;
    }
  }
  if (env !== undefined) {
    if (!isRecord(env)) {
      return wrongType(
        "env",
        `expected a record of strings by variable name, found ${describe(env)}`,
      );
    }
    for (const [name, value] of Object.entries(env)) {
      if (!isEnvName(name)) return envNameProblem("env", name);
      if (typeof value !== "string") {
        return wrongType("env", `expected a string for ${quote(name)}, found ${describe(value)}`);
      }
      const nul = nulProblem("env", value);
      if (nul !== undefined) return nul;
    }
  }
  const inherited = namesProblem("inheritEnv", spec["inheritEnv"], describe);
  if (inherited !== undefined) return inherited;
  if (cwd !== undefined) {
    if (typeof cwd !== "string" || cwd === "") {
      return wrongType("cwd", `expected a directory path, found ${describe(cwd)}`);
    }
    const nul = nulProblem("cwd", cwd);
    if (nul !== undefined) return nul;
  }
  if (stderr !== undefined && !isStderrMode(stderr)) {
    return wrongType("stderr", `expected ${oneOf(STDERR_MODES)}, found ${describe(stderr)}`);
  }
  return undefined;
}

function remoteProblem(spec: Record<string, unknown>, describe: Describe): SpecProblem | undefined {
  const { url, headers } = spec;
  if (typeof url !== "string") {
    return wrongType("url", `expected the server's URL as a string, found ${describe(url)}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return wrongType("url", `${quote(url)} is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return wrongType("url", `${quote(url)} is not an http or https URL`);
  }
  if (headers === undefined) return undefined;
  if (!isRecord(headers)) {
    return wrongType(
      "headers",
      `expected a record of header names and values, found ${describe(headers)}`,
    );
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") {
      return wrongType(
        "headers",
        `the value of header ${quote(name)} is ${describe(value)}, not a string`,
      );
    }
    try {
      new Headers([[name, value]]);
    } catch {
      return wrongType(
        "headers",
        `the header ${quote(name)} is not one HTTP can carry (a name of letters, digits ` +
          `and -, a value on one line)`,
      );
    }
  }
  return undefined;
}

function eraProblem(spec: Record<string, unknown>, describe: Describe): SpecProblem | undefined {
  const { era, versions } = spec;
  if (era !== undefined && !isEraMode(era)) {
    return wrongType("era", `expected ${oneOf(ERA_MODES)}, found ${describe(era)}`);
  }
  if (versions === undefined) return undefined;
  const bad = Array.isArray(versions)
    ? versions.findIndex((v) => typeof v !== "string" || !isSupportedVersion(v))
    : -1;
  if (!Array.isArray(versions) || bad !== -1 || versions.length === 0) {
    const found = Array.isArray(versions) && bad !== -1 ? versions[bad] : versions;
    return outOfRange(
      "versions",
      `expected a non-empty list of protocol versions among ${SUPPORTED_VERSIONS.join(", ")}, ` +
        `found ${describe(found)}`,
    );
  }
  const left = offerProblem(era as EraMode | undefined, versions as SupportedVersion[]);
  return left === undefined ? undefined : outOfRange("versions", left);
}

function timeoutProblem(
  spec: Record<string, unknown>,
  describe: Describe,
): SpecProblem | undefined {
  for (const key of ["connectTimeoutMs", "callTimeoutMs"] as const) {
    const value = spec[key];
    if (value !== undefined && !isTimeoutMs(value)) {
      return outOfRange(key, `expected ${TIMEOUT_RULE}, found ${describe(value)}`);
    }
  }
  return undefined;
}

function restartProblem(value: unknown, describe: Describe): SpecProblem | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    return wrongType("restart", `expected { max, backoffMs }, found ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (key !== "max" && key !== "backoffMs") {
      return wrongType("restart", `unknown field ${quote(key)}; expected max and backoffMs`);
    }
  }
  const { max, backoffMs } = value;
  if (
    max !== undefined && (!Number.isSafeInteger(max) || (max as number) < 1 ||
      (max as number) > MAX_RESTART_ATTEMPTS)
  ) {
    return outOfRange(
      "restart",
      `expected max to be a whole number of attempts from 1 to ${MAX_RESTART_ATTEMPTS}, ` +
        `found ${describe(max)}`,
    );
  }
  if (backoffMs !== undefined && !isTimeoutMs(backoffMs)) {
    return outOfRange(
      "restart",
      `expected backoffMs to be ${TIMEOUT_RULE}, found ${describe(backoffMs)}`,
    );
  }
  return undefined;
}
