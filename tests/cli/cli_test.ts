import assert from "node:assert/strict";
import { isLive } from "../client/_fixtures.ts";

const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

type Run = { code: number; stdout: string; stderr: string };

async function cli(cwd: string, ...args: string[]): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--no-lock", "--config", CONFIG, CLI, "--trust", ...args],
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
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

/** Pids of every `exited` retirement line of a check's output, each asserted gone. */
function assertRetired(stdout: string, names: string[]): void {
  for (const name of names) {
    const line = new RegExp(
      `^  ${name} +exited +code \\d+ +group drained +after \\w+ +pid (\\d+)$`,
      "m",
    )
      .exec(stdout);
    assert.ok(line !== null, `no retirement line for ${name} in:\n${stdout}`);
    assert.equal(isLive(Number(line[1])), false, `${name} is still running`);
  }
}

Deno.test("the command line boots, reports, calls and retires", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "loom-cli-" });
  const mixed = `${dir}/mixed.toml`;
  try {
    await Deno.writeTextFile(`${dir}/loom.toml`, entry("echo", "echo_server.ts"));
    await Deno.writeTextFile(
      mixed,
      entry("first", "echo_server.ts") + entry("broken", "exit_at_start.ts") +
        entry("second", "echo_server.ts") + entry("hostile", "hostile_tools.ts"),
    );
    const json = `${dir}/json`;
    const empty = `${dir}/empty`;
    await Deno.mkdir(json);
    await Deno.mkdir(empty);
    await Deno.writeTextFile(
      `${json}/.mcp.json`,
      JSON.stringify({
        mcpServers: {
          echo: { command: Deno.execPath(), args: ["run", "--quiet", FIXTURES + "echo_server.ts"] },
        },
      }),
    );

    // Independent runs, started together to keep the suite fast.
    const [help, check, failing, surface, module, fallback, call, isError, noTool] = await Promise
      .all([
        cli(dir, "--help"),
        cli(dir, "check"),
        cli(dir, "--catalog", mixed, "check"),
        cli(dir, "surface"),
        cli(dir, mixed, "module", "second"),
        cli(json, "call", "echo", "echo", '{"text": "from .mcp.json"}'),
        cli(dir, "call", "echo", "add", '{"a": 2, "b": 40}'),
        cli(dir, "call", "echo", "fail"),
        cli(dir, "call", "echo", "nope", "{}"),
      ]);

    await t.step("--help prints the usage and exits 0", () => {
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /^Usage: loom-mcp \[options\] <command>/);
      for (
        const command of ["check", "tools", "surface", "module <server>", "call <server> <tool>"]
      ) {
        assert.match(help.stdout, new RegExp(`\\n  ${command.replace(/[<>]/g, ".")}`));
      }
    });

    await t.step("check reads loom.toml from the folder and reports each server", () => {
      assert.equal(check.code, 0, check.stderr);
      assert.equal(check.stderr, "");
      assert.match(check.stdout, /^Catalog loom\.toml: 1 server\n/);
      assert.match(check.stdout, /^ {2}server +state +tools +era +protocol +boot +server info$/m);
      assert.match(
        check.stdout,
        /^ {2}echo +ready +6 +modern +2026-07-28 +\d+\.\d\d s +echo 1\.0\.0$/m,
      );
      assertRetired(check.stdout, ["echo"]);
      assert.match(check.stdout, /1 of 1 server ready; every server retired with evidence/);
    });

    await t.step("check exits 1 for a server that failed, with its stderr, and retires all", () => {
      assert.equal(failing.code, 1, failing.stderr);
      assert.match(failing.stdout, /^ {2}first +ready +6 /m);
      assert.match(failing.stdout, /^ {2}broken +FAILED +- +- +- +\d+\.\d\d s$/m);
      assert.match(
        failing.stdout,
        // The exit is said once: the earlier attempt met the same exit.
        /^error: server "broken" failed to start: Server "broken" exited with code 2 before answering initialize; its stderr follows$/m,
      );
      assert.match(failing.stdout, /^ {2}stderr: fatal: GITHUB_TOKEN is not set$/m);
      assertRetired(failing.stdout, ["first", "broken", "second", "hostile"]);
      assert.match(failing.stdout, /^ {2}broken +exited +code 2 /m);
      assert.match(failing.stdout, /3 of 4 servers ready; every server retired with evidence/);
      // A server's own text cannot act on the terminal.
      assert.match(
        failing.stdout,
        /^ {2}hostile +ready +8 +.* hostile\\u\{1b\}\[2J\\u\{1b\}\]0;owned\\u\{7\} 1\.0\\u\{202e\}$/m,
      );
      // deno-lint-ignore no-control-regex
      assert.doesNotMatch(failing.stdout, /[\u0000-\u0009\u000b-\u001f\u202e]/);
    });

    await t.step("surface prints what the model reads", () => {
      assert.equal(surface.code, 0, surface.stderr);
      assert.match(surface.stdout, /^A program is one TypeScript module/);
      assert.match(surface.stdout, /^\/\/ mcp\/echo\.ts \(server "echo", 6 tools\)$/m);
      assert.match(
        surface.stdout,
        /^echo\(args: \{ text: string \}\): Promise<ToolResult<\{ text: string \}>> {2}\/\/ Returns its text\.$/m,
      );
    });

    await t.step("module prints one server's module, the catalog given first", () => {
      assert.equal(module.code, 0, module.stderr);
      assert.match(
        module.stdout,
        /^\/\/ Generated by @loom\/mcp from the tools\/list of server "second"/,
      );
      assert.match(module.stdout, /return invoke\("second", "echo_args", args\);/);
    });

    await t.step("call prints a tool's output; .mcp.json is the fallback catalog", () => {
      assert.equal(fallback.code, 0, fallback.stderr);
      assert.equal(fallback.stdout, "from .mcp.json\n");
      assert.equal(call.code, 0, call.stderr);
      assert.equal(call.stdout, "42\n");
    });

    await t.step("call exits 1 for an isError result, 2 for an unknown tool", () => {
      assert.equal(isError.code, 1);
      assert.equal(isError.stdout, "fail always fails\n");
      // The catalog read, each server's line as it settles, what the command does, the error.
      assert.match(isError.stderr, /^Catalog loom\.toml: 1 server\n/);
      assert.match(
        isError.stderr,
        /^ {2}echo +ready +6 +modern +2026-07-28 +\d+\.\d\d s +echo 1\.0\.0$/m,
      );
      assert.match(isError.stderr, /^calling fail of echo…$/m);
      assert.equal(
        isError.stderr.split("\n").at(-2),
        'error: tool "fail" of "echo" reported a failure (isError); its output is above',
      );
      assert.equal(noTool.code, 2);
      assert.equal(
        noTool.stderr.split("\n").at(-2),
        'error: server "echo" has no tool "nope"; its tools: add, big, echo, echo_args, fail, sleep' +
          " (a server may list some tools only to a client that declares sampling or roots," +
          " which the command line does not: it has no model to sample and lists no roots)",
      );
    });

    await t.step("usage mistakes exit 2 with one line saying what to do", async () => {
      const cases: [string[], string, RegExp][] = [
        [[], dir, /^error: no command given; run with --help to see the commands\n$/],
        [["frobnicate"], dir, /^error: unknown command "frobnicate"; run with --help/],
        [["check", "--verbose"], dir, /^error: unknown option "--verbose"; run with --help/],
        [["--catalog"], dir, /^error: --catalog needs a path, as in --catalog loom\.toml\n$/],
        [["module"], dir, /^error: module needs a server name, as in: module memory\n$/],
        [["call", "echo"], dir, /^error: call needs a server and a tool/],
        [["module", "nope"], dir, /^error: no server "nope" in loom\.toml; its servers: echo\n$/],
        [
          ["call", "echo", "echo", "[1]"],
          dir,
          /^error: the arguments "\[1\]" are not a JSON object; pass one quoted JSON object/,
        ],
        [["call", "echo", "echo", "{"], dir, /^error: the arguments "\{" are not JSON \(/],
        [
          ["check"],
          empty,
          /^error: no catalog given and none of loom\.toml, \.mcp\.json, \.vscode\/mcp\.json, \.cursor\/mcp\.json is in /,
        ],
        [
          ["--catalog", `${dir}/missing.toml`, "check"],
          dir,
          /^error: .*missing\.toml: cannot read the catalog/,
        ],
      ];
      const runs = await Promise.all(cases.map(([args, cwd]) => cli(cwd, ...args)));
      runs.forEach((run, index) => {
        const [args, , expected] = cases[index]!;
        assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
        assert.equal(run.stdout, "", args.join(" "));
        assert.match(run.stderr, expected, args.join(" "));
        assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
      });
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
