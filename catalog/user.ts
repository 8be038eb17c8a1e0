/**
 * Where the user's own MCP configuration files are: the files Claude Code,
 * Claude Desktop, Cursor, Codex and VS Code keep outside any project, in the
 * order `openCatalog(undefined, { user: true })` tries them.
 *
 * @module
 */

import { join } from "node:path";

/** Which variables and platform the places are computed from. */
export type UserPlaces = {
  /** Reads an environment variable (`HOME`, `APPDATA`, `XDG_CONFIG_HOME`, `CODEX_HOME`). */
  env: (name: string) => string | undefined;
  /** The platform, as `Deno.build.os` says it. */
  os: string;
};

/**
 * The user-level configuration files, in the order tried: Claude Code's
 * user scope (`~/.claude.json`), Claude Desktop's
 * `claude_desktop_config.json`, Cursor's `~/.cursor/mcp.json`, Codex's
 * `config.toml` (in `$CODEX_HOME`, by default `~/.codex`), VS Code's user
 * `mcp.json`, and Windsurf's `mcp_config.json`. A place whose folder is not
 * known (no `HOME`) is left out.
 *
 * @example Where the files would be on Linux
 * ```ts
 * import { userCatalogFiles } from "@loom/mcp";
 * const files = userCatalogFiles({ env: (name) => name === "HOME" ? "/home/me" : undefined, os: "linux" });
 * console.log(files[0]); // "/home/me/.claude.json"
 * ```
 */
export function userCatalogFiles(places: UserPlaces = systemPlaces()): string[] {
  const home = places.env("HOME") ?? places.env("USERPROFILE");
  if (home === undefined || home === "") return [];
  const appData = places.env("APPDATA") ?? join(home, "AppData", "Roaming");
  const config = places.os === "darwin"
    ? join(home, "Library", "Application Support")
    : places.os === "windows"
    ? appData
    : places.env("XDG_CONFIG_HOME") || join(home, ".config");
  const codex = places.env("CODEX_HOME") || join(home, ".codex");
  return [
    join(home, ".claude.json"),
    join(config, "Claude", "claude_desktop_config.json"),
    join(home, ".cursor", "mcp.json"),
    join(codex, "config.toml"),
    join(config, "Code", "User", "mcp.json"),
    join(home, ".codeium", "windsurf", "mcp_config.json"),
  ];
}

function systemPlaces(): UserPlaces {
  return {
    env: (name) => {
      try {
        return Deno.env.get(name);
      } catch {
        return undefined;
      }
    },
    os: Deno.build.os,
  };
}
