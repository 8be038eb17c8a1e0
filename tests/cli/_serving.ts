// Shared by the tests of `loom-mcp serve`: the real command line serving
// Streamable HTTP on a free loopback port, and what `/proc` says of the
// processes it started (downstream servers, the runner's checker and
// sandboxes), so a test can see each of them gone once the host leaves.

import assert from "node:assert/strict";
import { argv } from "./_cli.ts";
import { isLive } from "../_proc.ts";

/** A process below `loom-mcp serve`, as `/proc` showed it. */
export type Descendant = { pid: number; cmdline: string };

/** A running `loom-mcp serve --http 127.0.0.1:0`. */
export type Serving = {
  /** The URL it said it listens on. */
  url: string;
  /** The command line's own pid. */
  pid: number;
  /** Every live process below it now (any depth). */
  descendants(): Descendant[];
  /** Sends `signal`, waits for the exit; its code and the whole stderr. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stderr: string }>;
};

/** The live processes whose parent chain reaches `root`. */
export function below(root: number): Descendant[] {
  const parents = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry.name), ppid);
    } catch { /* gone meanwhile */ }
  }
  const found: Descendant[] = [];
  for (const [pid] of parents) {
    let at = parents.get(pid);
    for (let depth = 0; depth < 32 && at !== undefined && at !== root; depth++) {
      at = parents.get(at);
    }
    if (at !== root || !isLive(pid)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
      found.push({ pid, cmdline });
    } catch { /* gone meanwhile */ }
  }
  return found;
}

/** Starts `loom-mcp <args> serve --http 127.0.0.1:0` with `token`, once it says its URL. */
export async function serveHttp(args: readonly string[], token: string): Promise<Serving> {
  const [command, ...rest] = argv([...args, "serve", "--http", "127.0.0.1:0"]);
  const child = new Deno.Command(command as string, {
    args: rest,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", LOOM_MCP_TOKEN: token },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 200 && !/listening on \S+\n/.test(text); i++) {
    const read = await reader.read();
    if (read.done) break;
    text += read.value;
  }
  const url = /listening on (\S+)\n/.exec(text)?.[1] ?? "";
  if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url)) {
    child.kill("SIGKILL");
    await reader.cancel();
    await child.status;
    assert.fail(`serve --http said no URL: ${text}`);
  }
  return {
    url,
    pid: child.pid,
    descendants: () => below(child.pid),
    async stop(signal: Deno.Signal = "SIGTERM") {
      child.kill(signal);
      for (;;) {
        const read = await reader.read();
        if (read.done) break;
        text += read.value;
      }
      const status = await child.status;
      return { code: status.code, stderr: text };
    },
  };
}

/** `serveHttp`'s serving handed to `body`, stopped (SIGTERM) whatever happens. */
export async function withServing(
  args: readonly string[],
  token: string,
  body: (serving: Serving) => Promise<void>,
): Promise<string> {
  const serving = await serveHttp(args, token);
  let stopped: { code: number; stderr: string } | undefined;
  try {
    await body(serving);
  } finally {
    stopped = await serving.stop();
  }
  return stopped.stderr;
}

/** The processes of `loom-mcp serve` by kind, from their command lines. */
export function kinds(processes: readonly Descendant[]): {
  sandboxes: Descendant[];
  checkers: Descendant[];
  others: Descendant[];
} {
  const sandboxes = processes.filter((p) => /bootstrap\.js/.test(p.cmdline));
  const checkers = processes.filter((p) => /checker/.test(p.cmdline));
  const others = processes.filter((p) => !sandboxes.includes(p) && !checkers.includes(p));
  return { sandboxes, checkers, others };
}

/** Every process below `root` once a spare sandbox is among them (the pool refills after a run). */
export async function belowWithSandbox(root: number): Promise<Descendant[]> {
  let seen = below(root);
  for (let tries = 0; tries < 200 && kinds(seen).sandboxes.length === 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    seen = below(root);
  }
  return seen;
}

/** Fails unless `seen` holds a checker, a sandbox and a process whose command line matches `server`. */
export function assertEveryKind(seen: readonly Descendant[], server: RegExp): void {
  const { sandboxes, checkers, others } = kinds(seen);
  const listing = seen.map((p) => `${p.pid} ${p.cmdline}`).join("\n");
  assert.ok(checkers.length > 0, `no checker among:\n${listing}`);
  assert.ok(sandboxes.length > 0, `no sandbox among:\n${listing}`);
  assert.ok(others.some((p) => server.test(p.cmdline)), `no server among:\n${listing}`);
}

/** The pids of `processes` still live. */
export function stillLive(processes: readonly Descendant[]): Descendant[] {
  return processes.filter((p) => isLive(p.pid));
}

/**
 * Those of `processes` still live after up to 100 looks 50 ms apart: the
 * exit guard's custodian ends when it reads the end of its parent's pipe,
 * a moment after the parent.
 */
export async function liveAfterAWhile(processes: readonly Descendant[]): Promise<Descendant[]> {
  for (let look = 0; look < 100; look++) {
    const live = stillLive(processes);
    if (live.length === 0) return live;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return stillLive(processes);
}
