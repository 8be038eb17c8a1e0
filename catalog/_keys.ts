// Private to catalog/: a spec's problem said of the entry's key, in the
// catalog's own spelling (inherit_env, connect_timeout_ms, oauth.client_id).

import type { SpecKey, SpecProblem } from "../settings/check.ts";
import { catalogOAuthKey } from "./_oauth.ts";
import type { Problem } from "./_fields.ts";

// The catalog's key for each key of a spec.
export const CATALOG_KEYS: Readonly<Record<SpecKey, string>> = {
  name: "name",
  command: "command",
  args: "args",
  env: "env",
  inheritEnv: "inherit_env",
  cwd: "cwd",
  stderr: "stderr",
  url: "url",
  headers: "headers",
  oauth: "oauth",
  connectTimeoutMs: "connect_timeout_ms",
  callTimeoutMs: "call_timeout_ms",
  era: "era",
  versions: "versions",
  enabledTools: "enabled_tools",
  disabledTools: "disabled_tools",
  resultCheck: "result_check",
  logLevel: "log_level",
  restart: "restart",
  roots: "roots",
};

// A spec's problem, said of the entry's key (a sign-in setting's, in the catalog's spelling).
export function entryProblem(problem: SpecProblem): Problem {
  const what = problem.message;
  if (problem.key === "oauth") {
    const setting = /^([A-Za-z]+): (.*)$/s.exec(what);
    if (setting !== null) {
      return {
        kind: "invalid_entry",
        key: `oauth.${catalogOAuthKey(setting[1]!)}`,
        what: setting[2]!,
      };
    }
  }
  return problem.key === undefined
    ? { kind: "invalid_entry", what }
    : { kind: "invalid_entry", key: CATALOG_KEYS[problem.key], what };
}
