/**
 * Helpers for tests that compile or run generated modules: write them into a
 * temporary build root beside a copy of `cap.ts`, type-check them all in one
 * `deno check`, and tell code from comments and string literals.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { Generated } from "../../codegen/mod.ts";

/** The URL of the real cap seam. */
export const CAP_URL: URL = new URL("../../runner/sandbox/cap.ts", import.meta.url);

/** Compiler settings of the build roots: the project's own, and Deno's defaults. */
export const CONFIGS = {
  project: {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitReturns: true,
  },
  defaults: {},
} as const;

/**
 * Writes each module at `<root>/<group>/mcp/<segment>.ts`, with `cap.ts` and
 * an import map for `@loom/mcp/cap`, and type-checks them all in one
 * invocation per configuration. Returns the output of a failed check, or "".
 */
export async function checkModules(
  modules: readonly { group: string; generated: Generated }[],
): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "codegen_check_" });
  try {
    await Deno.copyFile(fileURLToPath(CAP_URL), `${root}/cap.ts`);
    const files: string[] = [];
    for (const { group, generated } of modules) {
      const path = `${root}/${group}/${generated.moduleName}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, generated.source);
      files.push(path);
    }
    let failures = "";
    for (const [name, compilerOptions] of Object.entries(CONFIGS)) {
      const config = `${root}/${name}.json`;
      await Deno.writeTextFile(
        config,
        JSON.stringify({ imports: { "@loom/mcp/cap": "./cap.ts" }, compilerOptions }),
      );
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["check", "--quiet", "--no-lock", "--config", config, ...files],
        cwd: root,
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!output.success) {
        failures += `[${name}] ` + new TextDecoder().decode(output.stderr) +
          new TextDecoder().decode(output.stdout);
      }
    }
    return failures;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

// Written independently of the backstop: one left-to-right pass that blanks
// comments and double-quoted literals, keeping everything else.
const COMMENT_OR_STRING = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"/g;

/** The source with every comment and string literal removed. */
export function codeOnly(source: string): string {
  return source.replace(COMMENT_OR_STRING, " ");
}

/** The words (identifier-like tokens) of code, in order. */
export function words(code: string): string[] {
  const noNumbers = code.replace(/(?<![A-Za-z0-9_$])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?n?/g, " ");
  return noNumbers.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? [];
}
