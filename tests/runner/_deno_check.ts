// What `deno check` says of a build root: the reference the resident
// checker's diagnostics are compared against. The parser is the one the
// runner used while it ran `deno check` itself.

import { CAP_SOURCE } from "../../_generated/sandbox_sources.ts";
import type { Diagnostic } from "../../runner/run.ts";

const HEADER = /^TS\d+ \[ERROR\]: (.*)$/;
const AT = /^ {4}at (file:\/\/\S+):(\d+):(\d+)$/;
const CARET = /^\s*[\^~]+\s*$/;

function relative(url: string, rootUrl: string): string {
  return url.startsWith(rootUrl) ? decodeURIComponent(url.slice(rootUrl.length)) : url;
}

/** Parses `deno check` output into diagnostics. */
export function parseDiagnostics(text: string, rootUrl: string): Diagnostic[] {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  const diagnostics: Diagnostic[] = [];
  for (let index = 0; index < lines.length; index++) {
    const header = HEADER.exec(lines[index] as string);
    if (header === null) continue;
    const body: string[] = [];
    let place: RegExpExecArray | null = null;
    let scan = index + 1;
    for (; scan < lines.length; scan++) {
      place = AT.exec(lines[scan] as string);
      if (place !== null || HEADER.test(lines[scan] as string)) break;
      body.push(lines[scan] as string);
    }
    // The two lines before `at` are the source line and its caret line.
    const caret = body.findIndex((line) => CARET.test(line));
    const more = (caret > 0 ? body.slice(0, caret - 1) : body).map((line) => line.trim())
      .filter((line) => line !== "");
    diagnostics.push({
      file: place === null ? "program.ts" : relative(place[1] as string, rootUrl),
      line: place === null ? 1 : Number(place[2]),
      column: place === null ? 1 : Number(place[3]),
      message: [header[1] as string, ...more].join(" "),
    });
    index = scan - 1;
  }
  return diagnostics;
}

/** Runs `deno check` over a build root holding `program`, `cap.ts` and `modules`. */
export async function denoCheck(
  program: string,
  modules: ReadonlyMap<string, string>,
): Promise<Diagnostic[]> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "loom-deno-check-" }));
  try {
    const root = `${base}/root/`;
    await Deno.mkdir(`${root}mcp`, { recursive: true });
    await Deno.writeTextFile(`${root}program.ts`, program);
    await Deno.writeTextFile(`${root}cap.ts`, CAP_SOURCE);
    for (const [segment, source] of modules) {
      await Deno.writeTextFile(`${root}mcp/${segment}.ts`, source);
    }
    await Deno.writeTextFile(
      `${base}/import_map.json`,
      JSON.stringify({ imports: { "@loom/mcp/cap": `file://${root}cap.ts` } }),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "check",
        "--no-remote",
        "--no-npm",
        "--no-config",
        "--no-lock",
        "--quiet",
        `--import-map=${base}/import_map.json`,
        `${root}program.ts`,
      ],
      env: { DENO_DIR: `${base}/cache`, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      clearEnv: true,
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    return parseDiagnostics(text, `file://${root}`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}
