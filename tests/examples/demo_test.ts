import assert from "node:assert/strict";
import { isLive } from "../client/_fixtures.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("deno task demo boots both servers, calls, runs a program and retires them", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "demo"],
    cwd: ROOT,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `${stdout}\n${stderr}`);

  const sections = [...stdout.matchAll(/^── (.+?) ─+$/gm)].map((match) => match[1]);
  assert.deepEqual(sections, [
    "boot",
    "surface (what the model reads)",
    "generated module mcp/echo.ts",
    "routed calls",
    "code mode: the program",
    "code mode: its calls",
    "code mode: its result",
    "retirement",
  ]);
  // A ready line per server, in the order they became ready.
  assert.match(
    stdout,
    /^ {2}echo +ready +\d+\.\d\d s +echo-example 1\.0\.0, modern era, protocol 2026-07-28, 4 tools$/m,
  );
  assert.match(
    stdout,
    /^ {2}memory +ready +\d+\.\d\d s +memory-server .+, legacy era, protocol 2025-\d\d-\d\d, 9 tools$/m,
  );
  assert.doesNotMatch(stdout, /FAILED/);
  // The surface and the module.
  assert.match(stdout, /^ {2}A program is one TypeScript module/m);
  assert.match(stdout, /^ {2}\/\/ mcp\/echo\.ts \(server "echo", 4 tools\)$/m);
  assert.match(stdout, /^ {2}\/\/ mcp\/memory\.ts \(server "memory", 9 tools\)$/m);
  assert.match(stdout, /^ {2}import \{ invoke, type ToolResult \} from "@loom\/mcp\/cap";$/m);
  assert.match(stdout, /^ {4}return invoke\("echo", "add", args, \{ structured: true \}\);$/m);
  // The routed calls: results, an isError result, and two denials.
  assert.match(stdout, /^ {2}echo\.echo +ok +hello$/m);
  assert.match(stdout, /^ {2}echo\.add +ok +42$/m);
  assert.match(stdout, /^ {2}echo\.fail +isError +Tool "fail" failed/m);
  assert.match(stdout, /^ {2}memory\.read_graph +ok +\{ "entities": \[\], "relations": \[\] \}$/m);
  assert.match(stdout, /^ {2}echo\.add +invalid_arguments .* at \$\.a as JSON$/m);
  assert.match(stdout, /^ {2}nowhere\.echo +unknown_server +Cannot call "nowhere"/m);
  // The program's calls and result.
  for (const call of ["echo.echo", "echo.add", "memory.create_entities", "memory.read_graph"]) {
    assert.match(stdout, new RegExp(`^ {2}${call.replace(".", "\\.")} +ok +\\d+\\.\\d ms`, "m"));
  }
  assert.match(stdout, /^ {2}log: the graph holds \d+ characters of JSON$/m);
  const result = /── code mode: its result ─+\n {2}(.+)\n/.exec(stdout);
  assert.ok(result !== null, stdout);
  assert.deepEqual(JSON.parse(result[1] as string), {
    greeting: "hello from a program",
    sum: "42",
    graph: {
      entities: [{
        name: "demo",
        entityType: "run",
        observations: ["hello from a program", "42"],
      }],
      relations: [],
    },
  });
  // Every server retired with evidence, and nothing is left running.
  for (const name of ["echo", "memory"]) {
    const line = new RegExp(
      `^ {2}${name} +exited {2}pid (\\d+), code 0, signal none, process group drained: true, after \\w+$`,
      "m",
    ).exec(stdout);
    assert.ok(line !== null, `no retirement line for ${name}:\n${stdout}`);
    assert.equal(isLive(Number(line[1])), false, `${name} is still running`);
  }
});
