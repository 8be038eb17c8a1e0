// deno-lint-ignore-file no-control-regex
import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { argv, cacheEnv, cli, DENO, FIXTURES, Terminal } from "./_cli.ts";

const ENV_SERVER = `${DENO} run --quiet --no-lock --allow-env ${FIXTURES}env_server.ts`;

Deno.test("--version, --help and each command's own --help", async () => {
  const [version, versionJson, help, call, helpRun] = await Promise.all([
    cli(Deno.cwd(), ["--version"]),
    cli(Deno.cwd(), ["--version", "--json"]),
    cli(Deno.cwd(), ["--help"]),
    cli(Deno.cwd(), ["call", "--help"]),
    cli(Deno.cwd(), ["help", "run"]),
  ]);
  assert.equal(version.stdout, `loom-mcp ${config.version}\n`);
  assert.deepEqual(JSON.parse(versionJson.stdout), { name: "loom-mcp", version: config.version });
  assert.match(help.stdout, /^Usage: loom-mcp \[options\] <command> \[arguments\]$/m);
  assert.match(
    call.stdout,
    /^Usage: loom-mcp \[options\] call <server> <tool> \[args\]\n\nCall one tool; /,
  );
  assert.match(call.stdout, /^ {2}loom-mcp call memory search_nodes query=readme$/m);
  assert.match(helpRun.stdout, /^Usage: loom-mcp \[options\] run <program\.ts \| ->$/m);
  assert.match(helpRun.stdout, /--deadline is its wall-clock deadline \(default 30 s\)/);
  for (const run of [version, versionJson, help, call, helpRun]) {
    assert.equal(run.code, 0, run.stderr);
  }
});

Deno.test("tools --json carries every field of the listing; --quiet prints results only", async () => {
  const [json, quiet] = await Promise.all([
    cli(Deno.cwd(), ["--stdio", ENV_SERVER, "tools", "--json"]),
    cli(Deno.cwd(), ["--stdio", ENV_SERVER, "tools", "-q"]),
  ]);
  assert.equal(json.code, 0, json.stderr);
  const [tool] = JSON.parse(json.stdout).servers[0].tools;
  assert.deepEqual(Object.keys(tool).sort(), [
    "annotations",
    "description",
    "function",
    "inputSchema",
    "name",
    "outputSchema",
    "title",
  ]);
  assert.equal(tool.title, "Where am I");
  assert.deepEqual(tool.annotations, { readOnlyHint: true, openWorldHint: false });
  assert.equal(tool.outputSchema.required[0], "cwd");
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, "");
  assert.match(quiet.stdout, /^env \(mcp\/env\.ts, 1 tool\)$/m);
});

Deno.test("colour on a terminal only: none with NO_COLOR, none when piped", async () => {
  const args = ["--stdio", ENV_SERVER, "check"];
  const coloured = Terminal.start(Deno.cwd(), args);
  assert.equal(await coloured.end(), 0, coloured.shown);
  assert.match(coloured.shown, /\u001b\[32mready\u001b\[39m/);
  assert.match(coloured.shown, /\u001b\[1mBoot\u001b\[22m/);
  const plain = Terminal.start(Deno.cwd(), args, { env: { NO_COLOR: "1" } });
  assert.equal(await plain.end(), 0, plain.shown);
  assert.match(plain.shown, / ready /);
  assert.doesNotMatch(plain.shown, /\u001b\[/);
  const [command, ...rest] = argv(args);
  const piped = await new Deno.Command(command as string, {
    args: rest,
    stdin: "null",
    clearEnv: true,
    env: { HOME: "/", ...cacheEnv(), TERM: "xterm" },
  }).output();
  const out = new TextDecoder().decode(piped.stdout) + new TextDecoder().decode(piped.stderr);
  assert.match(out, / ready /);
  assert.doesNotMatch(out, /\u001b\[/);
});

Deno.test("a long message is wrapped on a narrow terminal, never cut, and whole when piped", async () => {
  const args = ["--stdio", "sleep 300", "--name", "hang", "--connect-timeout", "1", "check"];
  const term = Terminal.start(Deno.cwd(), args, { columns: 60 });
  assert.equal(await term.end(), 1, term.shown);
  const piped = await cli(Deno.cwd(), args);
  const whole = /^error: server "hang" failed to start: .*$/m.exec(piped.stdout)?.[0] ?? "";
  assert.match(whole, /or raise the deadline with --connect-timeout \(its/);
  const lines = term.text().split("\n");
  const start = lines.findIndex((line) => line.startsWith('error: server "hang"'));
  assert.notEqual(start, -1, term.text());
  const wrapped: string[] = [lines[start] as string];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("  ")) break;
    wrapped.push(line.slice(2));
  }
  assert.ok(wrapped.length > 2, term.text());
  for (const line of wrapped) assert.ok(line.length <= 59, line);
  // The same words, whatever the timings.
  const words = (text: string) => text.replace(/\d+(?:\.\d+)?/g, "N");
  assert.equal(words(wrapped.join(" ")), words(whole));
  assert.doesNotMatch(term.text(), /…/);
});

Deno.test("a reader that goes away (| head) ends nothing but the output: the servers are still retired", async () => {
  const [command, ...rest] = argv(["--stdio", ENV_SERVER, "tools"]);
  const child = new Deno.Command(command as string, {
    args: rest,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read();
  await reader.cancel();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assert.equal(status.code, 0, stderr);
  assert.doesNotMatch(stderr, /BrokenPipe|Uncaught/);
});
