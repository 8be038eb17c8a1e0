// Private to cli/: the name of a server given on the command line, when
// --name does not say it: its package (`npx -y @scope/server-x` is `x`), its
// script, its image or its executable; for a URL, its host (`mcp.linear.app`
// is `linear`). The words that mark any MCP server (`mcp`, `server`) are
// dropped, since they tell no two servers apart.

import { basename, dirname } from "node:path";
import { isServerName } from "../catalog/mod.ts";

// Runners whose first operand names the server: how many words they take.
const RUNNERS: readonly (readonly string[])[] = [
  ["npx"],
  ["bunx"],
  ["pnpx"],
  ["pnpm", "dlx"],
  ["pnpm", "exec"],
  ["yarn", "dlx"],
  ["uvx"],
  ["uv", "run"],
  ["uv", "tool", "run"],
  ["pipx", "run"],
  ["deno", "run"],
  ["deno"],
  ["bun", "run"],
  ["bun"],
  ["node"],
  ["tsx"],
  ["ts-node"],
  ["python", "-m"],
  ["python3", "-m"],
  ["python"],
  ["python3"],
  ["docker", "run"],
  ["podman", "run"],
];

// Options of the runners above that take the next word as their value.
const VALUED = new Set([
  "-e",
  "--env",
  "-v",
  "--volume",
  "-p",
  "--publish",
  "--name",
  "--network",
  "--mount",
  "-w",
  "--workdir",
  "-u",
  "--user",
  "--entrypoint",
  "--env-file",
  "-p",
  "--package",
  "--from",
  "--with",
  "-c",
  "--config",
  "--import-map",
  "-r",
  "--require",
  "--import",
  "--loader",
]);

const GENERIC = /^(?:index|main|server|cli|dist|build|src|bin|lib|start|run|mod)$/;

/** The name of a `--stdio` server from its words; `undefined` when nothing usable is left. */
export function stdioName(words: readonly string[]): string | undefined {
  const executable = basename(words[0] ?? "").replace(/\.exe$/i, "");
  const runner = RUNNERS.find((prefix) =>
    prefix.every((word, index) =>
      index === 0 ? basename(words[0] ?? "") === word : words[index] === word
    )
  );
  if (runner === undefined) return clean(executable);
  const rest = words.slice(runner.length);
  let subject: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string;
    if (word === "--") continue;
    if (word.startsWith("-")) {
      if (VALUED.has(word)) i++;
      continue;
    }
    subject = word;
    break;
  }
  return subject === undefined
    ? clean(executable)
    : clean(subjectName(subject)) ?? clean(executable);
}

// A package (`npm:@scope/name@1.2`), an image (`ghcr.io/org/name:tag`), a
// script (`./build/index.js`), a module (`pkg.server`), as one word.
function subjectName(subject: string): string {
  let word = subject.replace(/^(?:npm|jsr|pypi|git\+\S+?):/, "");
  if (/^https?:\/\//.test(word)) word = new URL(word).pathname;
  word = word.replace(/(.)@[^/@]*$/, "$1"); // a version
  word = word.replace(/:[^/:]*$/, ""); // an image's tag
  const file = basename(word).replace(/\.(?:[cm]?[jt]sx?|py)$/, "");
  if (GENERIC.test(file)) {
    const folder = basename(dirname(word));
    return GENERIC.test(folder) ? basename(dirname(dirname(word))) : folder;
  }
  return file.includes(".") && !word.includes("/") ? file.split(".")[0] ?? file : file;
}

/** The name of an `--http` server from its URL: its host's telling label. */
export function httpName(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (/^[\d.]+$|^\[/.test(host)) return "remote";
  const labels = host.split(".").filter((label) => !/^(?:mcp|www|api|server)$/.test(label));
  return clean(labels.length > 1 ? labels.slice(0, -1).join("-") : labels[0] ?? host);
}

// Lowercase, the MCP words dropped, what a server name cannot hold replaced.
function clean(word: string): string | undefined {
  const name = word.toLowerCase()
    .replace(/(?:^|[-_.])(?:mcp|server|modelcontextprotocol)(?=$|[-_.])/g, "-")
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^[^a-z]+|[_-]+$/g, "")
    .replace(/[-_]{2,}/g, "-")
    .slice(0, 64);
  return isServerName(name) ? name : undefined;
}
