// What `deno check` says of a build root: the reference the resident
// checker's diagnostics are compared against. The parser is the one the
// runner used while it ran `deno check` itself.

import { CAP_SOURCE } from "../../../_generated/sandbox_sources.ts";
import type { Diagnostic } from "../../../runner/host/run.ts";

type RelatedInformation = NonNullable<Diagnostic["related"]>[number];

const HEADER = /^TS(\d+) \[ERROR\]: (.*)$/;
const AT = /^ {4}at (file:\/\/\S+):(\d+):(\d+)$/;
const RELATED_AT = /^ {8}at (\S+):(\d+):(\d+)$/;
const CARET = /^\s*[\^~]+\s*$/;

function relative(url: string, rootUrl: string): string {
  return url.startsWith(rootUrl) ? decodeURIComponent(url.slice(rootUrl.length)) : url;
}

/** A message (its lines trimmed, joined by spaces), and the source line and caret under it. */
function block(body: string[], indent: string): { message: string[]; excerpt?: string } {
  const caret = body.findLastIndex((line) => CARET.test(line));
  if (caret < 1) return { message: body.map((line) => line.trim()).filter((line) => line !== "") };
  const strip = (line: string) => line.startsWith(indent) ? line.slice(indent.length) : line;
  return {
    message: body.slice(0, caret - 1).map((line) => line.trim()).filter((line) => line !== ""),
    excerpt: `${strip(body[caret - 1] as string).trimEnd()}\n${strip(body[caret] as string)}`,
  };
}

/** Parses `deno check` output into diagnostics, with their codes, excerpts and related places. */
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
    const main = block(body, "");
    const diagnostic: Diagnostic = {
      file: place === null ? "program.ts" : relative(place[1] as string, rootUrl),
      line: place === null ? 1 : Number(place[2]),
      column: place === null ? 1 : Number(place[3]),
      message: [header[2] as string, ...main.message].join(" "),
      code: Number(header[1]),
    };
    if (main.excerpt !== undefined) diagnostic.excerpt = main.excerpt;
    // Related places: indented blocks, each ending in its own `at` line.
    const related: RelatedInformation[] = [];
    let pending: string[] = [];
    for (scan++; scan < lines.length; scan++) {
      const line = lines[scan] as string;
      if (HEADER.test(line) || /^Found \d+ errors?\.$/.test(line)) break;
      const at = RELATED_AT.exec(line);
      if (at === null) {
        if (line !== "" || pending.length > 0) pending.push(line);
        continue;
      }
      const each = block(pending, "    ");
      related.push({
        file: relative(at[1] as string, rootUrl),
        line: Number(at[2]),
        column: Number(at[3]),
        message: each.message.join(" "),
        ...(each.excerpt === undefined ? {} : { excerpt: each.excerpt }),
      });
      pending = [];
    }
    if (related.length > 0) diagnostic.related = related;
    diagnostics.push(diagnostic);
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
