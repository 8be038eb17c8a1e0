// Private to catalog/: an entry's `restart` table (`restart = { max = 3,
// backoff_ms = 500 }` in TOML, `"restart": { "max": 3, "backoff_ms": 500 }`
// in JSON), read onto its spec's `restart`. Either field may be left out
// (`restart = {}` restarts with the defaults); what the numbers may be is the
// spec's own rule (`checkSpec`).

import { quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { RestartPolicy } from "../settings/mod.ts";
import { isTable, type Problem, readTimeout } from "./_fields.ts";
import { describe, type Syntax } from "./_text.ts";

const FIELDS = ["max", "backoff_ms"];

/** Reads an entry's `restart`, or says what is wrong with it. */
export function readRestart(value: unknown, syntax: Syntax): Result<RestartPolicy, Problem> {
  const key = "restart";
  const example = syntax === "toml"
    ? "restart = { max = 3, backoff_ms = 500 }"
    : '"restart": { "max": 3, "backoff_ms": 500 }';
  if (!isTable(value)) {
    return err({
      kind: "invalid_entry",
      key,
      what: `expected ${syntax === "toml" ? "a table" : "an object"} such as ${example}, found ${
        describe(value, syntax)
      }`,
    });
  }
  for (const field of Object.keys(value)) {
    if (!FIELDS.includes(field)) {
      return err({
        kind: "invalid_entry",
        key,
        what: `unknown field ${quote(field)}; the fields are max and backoff_ms, as in ${example}`,
      });
    }
  }
  const policy: RestartPolicy = {};
  if (value["max"] !== undefined) policy.max = value["max"] as number;
  if (value["backoff_ms"] !== undefined) {
    const backoff = readTimeout(key, value["backoff_ms"], syntax);
    if (!backoff.ok) return err({ ...backoff.error, what: `backoff_ms: ${backoff.error.what}` });
    policy.backoffMs = backoff.value;
  }
  return ok(policy);
}
