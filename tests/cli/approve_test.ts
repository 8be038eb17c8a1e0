import assert from "node:assert/strict";
import { catalogFolder, cli, GOVERNED_TOML, Terminal } from "./_cli.ts";

// The governed fixture: delete_all (destructiveHint), echo (no hints) and
// read-note (readOnlyHint). The program calls them in that order and returns
// what each call gave, or the McpCallError's code and reason.
const PROGRAM = `import { delete_all, echo, read_note } from "./mcp/gov.ts";
import { McpCallError } from "@loom/mcp/cap";
const seen: string[] = [];
for (const call of [() => delete_all({}), () => echo({ text: "hi" }), () => read_note({})]) {
  try {
    seen.push((await call()).text);
  } catch (error) {
    seen.push(error instanceof McpCallError ? \`\${error.code}: \${error.reason}\` : String(error));
  }
}
export default seen;
`;

async function project(): Promise<string> {
  const dir = await catalogFolder("loom-approve-", GOVERNED_TOML);
  await Deno.writeTextFile(`${dir}/p.ts`, PROGRAM);
  return dir;
}

// The terminal has shown `count` questions.
function asked(count: number): RegExp {
  return new RegExp(String.raw`(?:to answer\): [\s\S]*?){${count}}`);
}

Deno.test("run --approve on a terminal asks before each call not marked read-only: n denies, y allows", async () => {
  const dir = await project();
  try {
    const term = Terminal.start(dir, ["--catalog", "loom.toml", "run", "p.ts", "--approve"]);
    assert.ok(await term.waitFor(asked(1)), term.text());
    await term.type("n\n");
    assert.ok(await term.waitFor(asked(2)), term.text());
    await term.type("y\n");
    const code = await term.end();
    const shown = term.text();
    assert.equal(code, 0, shown);
    // The program saw the denial as an McpCallError of code "denied".
    assert.match(
      shown,
      /"denied: the user said no on the terminal",\n\s+"hi",\n\s+"called read-note"/,
    );
    // Two questions, each with the tool, its arguments and its hints as the server gave them.
    assert.equal(shown.match(/^Call gov\.\S+\?$/gm)?.length, 2, shown);
    assert.match(
      shown,
      /^Call gov\.delete_all\?\n {2}arguments: \{\}\n {2}hints, the server's claims: \{"destructiveHint":true,"readOnlyHint":false\}$/m,
    );
    assert.match(
      shown,
      /^Call gov\.echo\?\n {2}arguments: \{"text":"hi"\}\n {2}hints, the server's claims: none$/m,
    );
    // The read-only tool is not asked about, and that is said once.
    assert.doesNotMatch(shown, /^Call gov\.read-note\?$/m);
    assert.match(shown, /^gov\.read-note is not asked about: its server marks it read-only/m);
    // The questions had the raised deadline: a person needs longer than 60 s.
    assert.match(shown, /\(4 min 59 s to answer\)|\(\d+(?:\.\d)? s to answer\)/);
    assert.match(shown, /^ {2}gov\.delete_all +denied +/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run --approve without a terminal denies at once what it would ask about, and says why", async () => {
  const dir = await project();
  try {
    const run = await cli(dir, ["--catalog", "loom.toml", "run", "p.ts", "--approve", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^warning: --approve has no terminal to ask on \(standard input is not a terminal\): every call not marked read-only is denied$/m,
    );
    const { report } = JSON.parse(run.stdout);
    const why =
      "no terminal to ask on (standard input is not a terminal); run it on a terminal to be asked";
    assert.deepEqual(report.outcome.value, [
      `denied: ${why}`,
      `denied: ${why}`,
      "called read-note",
    ]);
    assert.deepEqual(
      report.calls.map((call: { outcome: { ok: boolean; error?: { kind: string } } }) =>
        call.outcome.ok ? "ok" : call.outcome.error?.kind
      ),
      ["denied", "denied", "ok"],
    );
    // Denied at once, not at a deadline: the run keeps its default deadline of 30 s.
    assert.equal(report.limits.timeoutMs, 30_000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run --approve with the program on standard input asks no one: stdin is the program", async () => {
  const dir = await project();
  try {
    const run = await cli(dir, ["--catalog", "loom.toml", "run", "-", "--approve"], {
      stdin: PROGRAM,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /no terminal to ask on \(standard input is the program\)/);
    assert.match(run.stdout, /"denied: no terminal to ask on \(standard input is the program\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
