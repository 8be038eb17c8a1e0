import assert from "node:assert/strict";

const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

type Run = { code: number; stdout: string; stderr: string };

async function cli(cwd: string, args: string[], stdin?: string): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", "--config", CONFIG, CLI, "--trust", ...args],
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function entry(name: string, file: string): string {
  return [
    `[mcp.${name}]`,
    `command = ${JSON.stringify(Deno.execPath())}`,
    `args = ["run", "--quiet", "--no-lock", ${JSON.stringify(FIXTURES + file)}]`,
    `inherit_env = ["DENO_DIR"]`,
    "",
  ].join("\n");
}

const PROGRAM = `import { add, echo } from "./mcp/echo.ts";
const [said, sum] = await Promise.all([echo({ text: "hi" }), add({ a: 20, b: 22 })]);
console.log("added", sum.structuredContent.sum);
export default { said: said.text, sum: sum.structuredContent.sum, big: 2n ** 64n, map: new Map() };
`;

Deno.test("run executes a program against the servers it imports, and only those", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "loom-cli-run-" });
  try {
    // "broken" exits at start: booting it would fail the run, so it must not be booted.
    await Deno.writeTextFile(
      `${dir}/loom.toml`,
      entry("echo", "echo_server.ts") + entry("broken", "exit_at_start.ts"),
    );
    await Deno.writeTextFile(`${dir}/program.ts`, PROGRAM);
    await Deno.writeTextFile(
      `${dir}/throws.ts`,
      'import "./mcp/echo.ts";\nthrow new Error("no");\n',
    );
    await Deno.writeTextFile(
      `${dir}/guess.ts`,
      'import { echoArgs } from "./mcp/echo.ts";\nexport default await echoArgs({ text: "x" });\n',
    );
    await Deno.writeTextFile(`${dir}/elsewhere.ts`, 'import { a } from "./mcp/nowhere.ts";\n');
    // Two deep types that differ at the leaf: a message of about a thousand characters.
    const nested = (leaf: string) => {
      let type = leaf;
      for (let level = 0; level < 6; level++) {
        type = `{ level_${level}_with_a_long_name: ${type}; sibling_${level}: string }`;
      }
      return type;
    };
    await Deno.writeTextFile(
      `${dir}/long.ts`,
      `import "./mcp/echo.ts";\ndeclare const v: ${nested("number")};\n` +
        `const o: ${nested("string")} = v;\nexport default o;\n`,
    );
    const [file, json, threw, guess, elsewhere, missing, long, longJson] = await Promise.all([
      cli(dir, ["run", "program.ts"]),
      cli(dir, ["run", "--json", "-"], PROGRAM),
      cli(dir, ["run", "throws.ts"]),
      cli(dir, ["run", "guess.ts"]),
      cli(dir, ["run", "elsewhere.ts"]),
      cli(dir, ["run", "absent.ts"]),
      cli(dir, ["run", "long.ts"]),
      cli(dir, ["run", "--json", "long.ts"]),
    ]);
    // A message wrapped over lines, read back as one line.
    const unwrap = (text: string) => text.replace(/\n {2}(?! )/g, " ");

    await t.step("prints the result, then its logs and calls, and exits 0", () => {
      assert.equal(file.code, 0, file.stderr);
      assert.deepEqual(JSON.parse(file.stdout.replace(/18446744073709551616/, '"big"')), {
        said: "hi",
        sum: 42,
        big: "big",
        map: { $unrepresentable: "instance of Map (0 entries)" },
      });
      assert.match(file.stdout, /"big": 18446744073709551616/);
      assert.match(file.stderr, /^Logs\n {2}added 42$/m);
      assert.match(file.stderr, /^ {2}echo\.echo +ok +[\d.]+ ms +\{"text":"hi"\}$/m);
      assert.match(file.stderr, /^ {2}echo\.add +ok +[\d.]+ ms +\{"a":20,"b":22\}$/m);
      assert.doesNotMatch(file.stderr, /broken/);
    });
    await t.step("reads standard input for -, and --json prints the whole report", () => {
      assert.equal(json.code, 0, json.stderr);
      const parsed = JSON.parse(json.stdout.replace(/18446744073709551616/, '"big"'));
      assert.deepEqual(Object.keys(parsed.servers), ["echo"]);
      assert.equal(parsed.report.outcome.kind, "returned");
      assert.equal(parsed.report.outcome.value.said, "hi");
      assert.deepEqual(parsed.report.logs, ["added 42"]);
      assert.deepEqual(
        parsed.report.calls.map((call: { tool: string }) => call.tool).sort(),
        ["add", "echo"],
      );
      assert.equal(typeof parsed.report.limits.timeoutMs, "number");
    });
    await t.step("exits 1 when the program throws, naming the error", () => {
      assert.equal(threw.code, 1);
      assert.match(threw.stderr, /^error: the program threw Error: no$/m);
      // The stack names the file the program came from.
      assert.match(threw.stderr, /throws\.ts:2/);
    });
    await t.step("exits 1 for a camelCased guess, with a did-you-mean, naming the file", () => {
      assert.equal(guess.code, 1);
      assert.match(
        unwrap(guess.stderr),
        /^error: guess\.ts:1:10 - TS2724: Module "\.\/mcp\/echo\.ts" has no export "echoArgs"; did you mean echo_args\?$/m,
      );
      assert.match(
        guess.stderr,
        /^ {4}import \{ echoArgs \} from "\.\/mcp\/echo\.ts";\n {13}~{8}$/m,
      );
      assert.doesNotMatch(guess.stderr, /loom-run-|file:\/\//);
    });
    await t.step("wraps a long message and never cuts it", () => {
      assert.equal(long.code, 1);
      const [diagnostic] = JSON.parse(longJson.stdout).report.outcome.diagnostics;
      assert.ok(diagnostic.message.length > 600, diagnostic.message);
      const [message] = long.stderr.split("\n    const o:");
      assert.ok(
        unwrap(message ?? "").endsWith(`error: long.ts:3:7 - TS2322: ${diagnostic.message}`),
      );
      // Past 100 columns only a word too long for any line, alone on its line.
      const lines = (message ?? "").slice((message ?? "").indexOf("error: long.ts")).split("\n");
      assert.ok(lines.every((line) => line.length <= 100 || !line.trim().includes(" ")), message);
    });
    await t.step("exits 2 for a server the catalog lacks, and for a missing program", () => {
      assert.equal(elsewhere.code, 2);
      assert.match(
        elsewhere.stderr,
        /imports \.\/mcp\/nowhere\.ts, but the catalog has no such server/,
      );
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^error: cannot read the program "absent\.ts"/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
