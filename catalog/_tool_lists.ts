// Private to catalog/: which tools of a server the harness exposes, as an
// entry says it. TOML writes `enabled_tools` and `disabled_tools` (Codex's
// keys); a JSON entry may also write the names other tools' files hold:
// `enabledTools`/`disabledTools`, mcporter's `allowedTools`/`blockedTools`,
// and GitHub Copilot's `tools`.
// One entry says each list once, under one spelling. What the result of a
// tool whose structured content breaks its schema becomes is `result_check`.

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { ServerSpec } from "../settings/mod.ts";
import type { Problem } from "./_fields.ts";
import { assignment, describe, stringArray, type Syntax } from "./_text.ts";

/** The catalog's keys of the two lists and of the result check, in both syntaxes. */
export const TOOL_KEYS: readonly string[] = ["enabled_tools", "disabled_tools", "result_check"];

/**
 * Each list's spellings in a JSON entry, the catalog's own first; GitHub
 * Copilot's `tools` names the tools enabled, `"*"` among them meaning all.
 */
const JSON_SPELLINGS = {
  enabledTools: ["enabled_tools", "enabledTools", "allowedTools", "tools"],
  disabledTools: ["disabled_tools", "disabledTools", "blockedTools"],
} as const;

const COPILOT_TOOLS = "tools";

/** The further keys a JSON entry may hold for the lists. */
export const JSON_TOOL_KEYS: readonly string[] = [
  ...JSON_SPELLINGS.enabledTools.slice(1),
  ...JSON_SPELLINGS.disabledTools.slice(1),
];

/**
 * Reads the lists of an entry (and its result check) onto its spec; what a
 * name may be is the spec's rule, judged after.
 */
export function readToolKeys(
  spec: ServerSpec,
  entry: Record<string, unknown>,
  syntax: Syntax,
): Problem | undefined {
  for (const list of ["enabledTools", "disabledTools"] as const) {
    const spellings = syntax === "toml" ? JSON_SPELLINGS[list].slice(0, 1) : JSON_SPELLINGS[list];
    const written: string[] = spellings.filter((key) => entry[key] !== undefined);
    const [first, second] = written;
    if (first !== undefined && second !== undefined) {
      return {
        kind: "invalid_entry",
        key: second,
        what: `the same list as ${quote(first)}; keep one of ${
          written.map((key) => quote(key)).join(" and ")
        }`,
      };
    }
    if (first === undefined) continue;
    const names = readNames(first, entry[first], syntax);
    if (!names.ok) return names.error;
    if (first === COPILOT_TOOLS && names.value.includes("*")) continue;
    spec[list] = names.value;
  }
  const check = entry["result_check"];
  if (check !== undefined) {
    if (check !== "refuse" && check !== "warn") {
      return {
        kind: "invalid_entry",
        key: "result_check",
        what: `expected "refuse" or "warn", found ${describe(check, syntax)}`,
      };
    }
    spec.resultCheck = check;
  }
  return undefined;
}

function readNames(key: string, value: unknown, syntax: Syntax): Result<string[], Problem> {
  if (!Array.isArray(value)) {
    const fix = typeof value === "string" && value !== ""
      ? `; write ${assignment(key, stringArray(value.split(/[\s,]+/).filter(Boolean)), syntax)}`
      : "";
    return err({
      kind: "invalid_entry",
      key,
      what: `expected an array of tool names, found ${describe(value, syntax)}${fix}`,
    });
  }
  const names: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string" || item === "") {
      return err({
        kind: "invalid_entry",
        key,
        what: `expected an array of tool names, found ${describe(item, syntax)} at index ${index}`,
      });
    }
    names.push(item);
  }
  return ok(names);
}
