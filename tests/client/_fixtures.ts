// Shared by the client tests: specs for fixture servers and process checks.

import assert from "node:assert/strict";
import type { ResolvedStdioSpec, ServerSpec, StdioServerSpec } from "../../settings/mod.ts";
import { Census, type CensusOptions } from "../../client/census.ts";
import type { Client } from "../../client/client.ts";
import { groupMembers } from "../../client/custody/process_group.ts";
import { isLive } from "../_proc.ts";
export { isLive };

/** A spec running `tests/fixtures/<file>` with this Deno. */
export function fixture(
  name: string,
  file: string,
  extra: Partial<StdioServerSpec> & { flags?: string[] } = {},
): ResolvedStdioSpec {
  const { flags = [], ...rest } = extra;
  return {
    name,
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-lock",
      ...flags,
      new URL(`../fixtures/${file}`, import.meta.url).pathname,
    ],
    env: {},
    inheritEnv: ["DENO_DIR"],
    stderr: "tail",
    connectTimeoutMs: 20_000,
    callTimeoutMs: 10_000,
    ...rest,
  };
}

/** Live members of the process group `pgid` (none is the expected answer). */
export function survivors(pgid: number): number[] {
  const members = groupMembers(pgid);
  if (members === "unknown") throw new Error("Cannot read /proc: these tests need Linux and -A");
  return members;
}

/** Waits until none of `pids` is live, for at most `ms`; returns those still live. */
export async function awaitGone(pids: number[], ms = 5_000): Promise<number[]> {
  const until = performance.now() + ms;
  for (;;) {
    const live = pids.filter(isLive);
    if (live.length === 0 || performance.now() > until) return live;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs `tests/fixtures/<file>` with this Deno to its end and returns its
 * stdout, asserting it exited with 0: a fixture that something keeps alive
 * is stopped by the signal after `limitMs`, and fails.
 */
export async function runToEnd(file: string, flags: string[], limitMs = 15_000): Promise<string> {
  const path = new URL(`../fixtures/${file}`, import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-lock", ...flags, path],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(limitMs),
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (output.code !== 0) throw new Error(`${file} exited with ${output.code}: ${stderr}`);
  return new TextDecoder().decode(output.stdout);
}

// The folder every server-everything of this test process runs in, made at
// its first use and removed when the process ends.
let everythingFolder: string | undefined;
function everythingCwd(): string {
  if (everythingFolder !== undefined) return everythingFolder;
  const folder = Deno.makeTempDirSync({ prefix: "loom_everything_" });
  globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));
  return everythingFolder = folder;
}

/**
 * A spec running the official server-everything over stdio (the version the
 * interop tests run), in a temporary folder so that `deno run` picks up no
 * project config.
 */
export function everything(
  name = "everything",
  extra: Partial<StdioServerSpec> = {},
): ResolvedStdioSpec {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "-A", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
    env: {},
    inheritEnv: ["DENO_DIR", "HOME"],
    stderr: "tail",
    cwd: everythingCwd(),
    connectTimeoutMs: 120_000,
    callTimeoutMs: 30_000,
    ...extra,
  };
}

/** Connects one client of `spec` in a census of its own, runs `body`, and retires it whatever happens. */
export async function withClient(
  spec: ServerSpec,
  options: CensusOptions,
  body: (client: Client) => Promise<void>,
): Promise<void> {
  const census = Census.prepare([spec], options);
  const client = census.clients.get(spec.name) as Client;
  try {
    const started = await client.connect();
    assert.ok(started.ok, JSON.stringify(started));
    await body(client);
  } finally {
    await census.retire();
  }
}
