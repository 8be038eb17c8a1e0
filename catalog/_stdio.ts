// Private to catalog/: a stdio entry's fields read onto its spec (command,
// args, env, inherit_env, cwd), each refused in the file's own syntax.

import { err, ok, type Result } from "../codec/result.ts";
import type { StdioServerSpec } from "../settings/mod.ts";
import { describe, type Syntax } from "./_text.ts";
import {
  type Problem,
  readArgs,
  readCommand,
  readEnv,
  readInheritEnv,
  readPath,
} from "./_fields.ts";

/** The spec of a stdio entry named `name`, or the problem of its first bad field. */
export function readStdio(
  name: string,
  entry: Record<string, unknown>,
  syntax: Syntax,
): Result<StdioServerSpec, Problem> {
  if (syntax === "json") {
    const sandboxed = sandboxProblem(entry);
    if (sandboxed !== undefined) return err(sandboxed);
  }
  const args = readArgs(entry["args"], syntax);
  if (!args.ok) return args;
  const command = readCommand(entry["command"], args.value ?? [], syntax);
  if (!command.ok) return command;
  const env = readEnv(entry["env"], syntax);
  if (!env.ok) return env;
  const inheritEnv = readInheritEnv(entry["inherit_env"], syntax);
  if (!inheritEnv.ok) return inheritEnv;
  const spec: StdioServerSpec = { name, command: command.value };
  if (args.value !== undefined) spec.args = args.value;
  if (env.value !== undefined) spec.env = env.value;
  if (inheritEnv.value !== undefined) spec.inheritEnv = inheritEnv.value;
  if (entry["cwd"] !== undefined) {
    const cwd = readPath("cwd", entry["cwd"], syntax);
    if (!cwd.ok) return cwd;
    spec.cwd = cwd.value;
  }
  return ok(spec);
}

// VS Code's `"sandboxEnabled": true` runs the server inside its own OS
// sandbox (`sandbox`: the files and hosts it may reach). Without that sandbox
// the server would run with every right the harness has, so it is not run.
function sandboxProblem(entry: Record<string, unknown>): Problem | undefined {
  const enabled = entry["sandboxEnabled"];
  if (enabled === undefined || enabled === false) return undefined;
  if (enabled !== true) {
    return {
      kind: "invalid_entry",
      key: "sandboxEnabled",
      what: `expected true or false, found ${describe(enabled, "json")}`,
    };
  }
  return {
    kind: "unsupported_entry",
    key: "sandboxEnabled",
    what: 'VS Code runs this server in its own sandbox (the files and hosts in "sandbox"), ' +
      "which is not done here, so it is not started; run the command inside a sandbox of your " +
      'own, or write "sandboxEnabled": false to run it without one',
  };
}
