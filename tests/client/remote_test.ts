// Harnesses import this library from JSR, so its files are remote URLs: the
// client's worker module loads over the network, and the runner writes its
// sandbox files from source text it carries. This test serves the package
// folder over loopback HTTP and boots a server through that URL.

import assert from "node:assert/strict";
import { isLive } from "./_fixtures.ts";

const ROOT = new URL("../../", import.meta.url);
const FIXTURE = new URL("../fixtures/echo_server.ts", import.meta.url).pathname;

type Summary = {
  state: string;
  call: string;
  run: unknown;
  typeError: unknown;
  retired: {
    confirmed: boolean;
    clients: [string, { kind: string; pid: number; drained: boolean }][];
  };
};

/**
 * Serves the package folder read-only: `.ts` files as TypeScript, `.js` files
 * as JavaScript, nothing outside the folder.
 */
function servePackage(served: string[]): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    const file = new URL(`.${path}`, ROOT);
    const script = path.endsWith(".ts") || path.endsWith(".js");
    if (request.method !== "GET" || !script || !file.href.startsWith(ROOT.href)) {
      return new Response("not found", { status: 404 });
    }
    try {
      const body = await Deno.readFile(file);
      served.push(path);
      return new Response(body, {
        headers: {
          "content-type": path.endsWith(".ts")
            ? "application/typescript; charset=utf-8"
            : "text/javascript; charset=utf-8",
        },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}

/** The global npm cache, so a private DENO_DIR (for the remote modules) still finds npm packages. */
async function npmCache(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdin: "null",
    stderr: "null",
  }).output();
  return (JSON.parse(new TextDecoder().decode(output.stdout)) as { npmCache: string }).npmCache;
}

Deno.test("the library loaded from an HTTP URL boots a server, calls, runs a program and retires", async () => {
  const served: string[] = [];
  const server = servePackage(served);
  const dir = await Deno.makeTempDir({ prefix: "loom-remote-" });
  try {
    const origin = `127.0.0.1:${server.addr.port}`;
    // A remote module cannot use the package's import map, as it would not
    // on JSR either (where publishing rewrites bare names to npm: specifiers):
    // the harness's own import map names the same packages.
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
      imports: Record<string, string>;
    };
    await Deno.writeTextFile(`${dir}/import_map.json`, JSON.stringify({ imports: config.imports }));
    await Deno.mkdir(`${dir}/deno_dir`);
    await Deno.symlink(await npmCache(), `${dir}/deno_dir/npm`);
    await Deno.writeTextFile(
      `${dir}/harness.ts`,
      `import { boot } from "http://${origin}/mod.ts";

const harness = await boot([{
  name: "echo",
  command: Deno.execPath(),
  args: ["run", "--quiet", "--no-lock", ${JSON.stringify(FIXTURE)}],
  env: {},
  inheritEnv: [],
  stderr: "tail",
}]);
const call = await harness.call("echo", "echo", { text: "over http" });
const run = await harness.run(
  'import { add } from "./mcp/echo.ts";\\nexport default (await add({ a: 1, b: 2 })).text;',
  { timeoutMs: 30_000 },
);
// The checker's process, started from the same URL, finds a type error.
const typeError = await harness.run('const n: number = "x";\\nexport default n;\\n');
const retired = await harness.retire();
console.log(JSON.stringify({
  state: harness.reports.get("echo")?.state,
  call: call.ok ? call.value.content.map((block) => block.type === "text" ? block.text : "").join("") : call.error.message,
  run: run.outcome,
  typeError: typeError.outcome,
  retired: { confirmed: retired.confirmed, clients: [...retired.clients].map(([name, outcome]) => [name, outcome.ok ? outcome.value : outcome.error]) },
}));
`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        // All permissions, as a harness has (the drain check reads /proc,
        // which Deno grants only with all of them); the library itself comes
        // from the loopback origin only.
        "-A",
        "--no-lock",
        "--no-config",
        "--quiet",
        `--import-map=${dir}/import_map.json`,
        `${dir}/harness.ts`,
      ],
      cwd: dir,
      stdin: "null",
      env: { DENO_DIR: `${dir}/deno_dir`, NO_COLOR: "1" },
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, `${stdout}\n${stderr}`);
    const summary = JSON.parse(stdout) as Summary;
    assert.equal(summary.state, "ready", stdout);
    assert.equal(summary.call, "over http");
    assert.deepEqual(summary.run, { kind: "returned", value: "3" });
    assert.deepEqual(summary.typeError, {
      kind: "rejected",
      diagnostics: [{
        file: "program.ts",
        line: 1,
        column: 7,
        message: "Type 'string' is not assignable to type 'number'.",
        code: 2322,
        excerpt: 'const n: number = "x";\n      ^',
      }],
    });
    assert.equal(summary.retired.confirmed, true, stdout);
    const [[name, evidence]] = summary.retired.clients as [
      [string, Summary["retired"]["clients"][0][1]],
    ];
    assert.equal(name, "echo");
    assert.equal(evidence.kind, "exited");
    assert.equal(evidence.drained, true);
    assert.equal(isLive(evidence.pid), false);
    // The client's worker, the runner and the checker's process (which has no
    // read permission) were loaded over HTTP, not from disk.
    for (
      const path of [
        "/mod.ts",
        "/_generated/worker_bundle.js",
        "/runner/host/run.ts",
        "/runner/checker/entry.ts",
        "/client/_worker_launch.ts",
      ]
    ) {
      assert.ok(served.includes(path), `${path} was not served: ${served.join(", ")}`);
    }
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
