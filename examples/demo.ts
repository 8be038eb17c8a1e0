/**
 * The demo: boots the example catalog (an example server written with
 * `@loom/mcp/server` and the official memory server from npm), prints what a
 * model would read, one generated module, a few routed calls, a code-mode
 * program and its calls, and the retirement evidence of every server.
 *
 * Run it with `deno task demo`. It exits 0 when everything went as expected,
 * 1 otherwise, and leaves no process behind either way.
 *
 * @module
 */

import { boot, type Harness, isRemote, openCatalog, type ResolvedServerSpec } from "../mod.ts";

const root = new URL("../", import.meta.url);
const catalogPath = new URL("examples/catalog.toml", root);
const programPath = new URL("examples/program.ts", root);

function section(title: string): void {
  console.log(`\n── ${title} ${"─".repeat(Math.max(0, 72 - title.length))}`);
}

function indent(text: string): string {
  return text.trimEnd().split("\n").map((line) => `  ${line}`).join("\n");
}

function short(text: string, limit = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

// The catalog says "deno"; the demo runs its servers with the very Deno that
// runs it, so it works where `deno` is not on PATH (started through npx).
function withThisDeno(specs: ResolvedServerSpec[], memoryFile: string): ResolvedServerSpec[] {
  return specs.map((spec) =>
    isRemote(spec) ? spec : {
      ...spec,
      command: spec.command === "deno" ? Deno.execPath() : spec.command,
      cwd: spec.cwd ?? root.pathname,
      env: spec.name === "memory" ? { ...spec.env, MEMORY_FILE_PATH: memoryFile } : spec.env,
    }
  );
}

async function main(): Promise<boolean> {
  // Loaded from its file, each server runs in the catalog's folder (examples/).
  const catalog = await openCatalog(catalogPath, { mode: "strict" });
  if (!catalog.ok) {
    console.error(catalog.error.message);
    return false;
  }
  const scratch = await Deno.makeTempDir({ prefix: "loom-mcp-demo-" });
  const specs = withThisDeno(catalog.value.servers, `${scratch}/memory.jsonl`);
  let success = true;

  section("boot");
  const harness: Harness = await boot(specs, {
    onServer: (report) => {
      const seconds = (report.elapsedMs / 1000).toFixed(2);
      if (report.state === "ready") {
        const info = report.info;
        console.log(
          `  ${report.name.padEnd(8)} ready   ${seconds} s  ${info.serverInfo.name} ` +
            `${info.serverInfo.version}, ${info.era} era, protocol ${info.protocolVersion}, ` +
            `${report.tools.length} tools`,
        );
      } else {
        success = false;
        console.log(`  ${report.name.padEnd(8)} FAILED  ${seconds} s  ${report.message}`);
        if (report.stderrTail !== "") console.log(indent(report.stderrTail.slice(-2000)));
      }
    },
  });

  try {
    section("surface (what the model reads)");
    console.log(indent(harness.surface));

    const echo = harness.modules.get("echo");
    if (echo !== undefined) {
      section(`generated module ${echo.moduleName}`);
      console.log(indent(echo.source));
    }

    section("routed calls");
    const calls: [string, string, unknown][] = [
      ["echo", "echo", { text: "hello" }],
      ["echo", "add", { a: 2, b: 40 }],
      ["echo", "fail", {}],
      ["memory", "read_graph", {}],
      ["echo", "add", { a: 2n ** 70n, b: 1 }],
      ["nowhere", "echo", {}],
    ];
    for (const [server, tool, args] of calls) {
      const result = await harness.call(server, tool, args);
      const label = `${server}.${tool}`.padEnd(18);
      if (result.ok) {
        const text = result.value.content.map((block) =>
          block.type === "text" ? block.text : `[${block.type}]`
        ).join(" ");
        console.log(`  ${label} ${result.value.isError ? "isError" : "ok     "}  ${short(text)}`);
      } else {
        console.log(`  ${label} ${result.error.kind.padEnd(7)}  ${short(result.error.message)}`);
      }
    }

    section("code mode: the program");
    const program = await Deno.readTextFile(programPath);
    console.log(indent(program));
    const report = await harness.run(program, { timeoutMs: 60_000 });
    section("code mode: its calls");
    for (const call of report.calls) {
      const outcome = call.outcome.ok
        ? (call.outcome.value.isError ? "isError" : "ok")
        : call.outcome.error.kind;
      console.log(
        `  ${`${call.server}.${call.tool}`.padEnd(24)} ${outcome.padEnd(8)} ` +
          `${call.durationMs.toFixed(1)} ms  ${short(JSON.stringify(call.args), 80)}`,
      );
    }
    for (const line of report.logs) console.log(`  log: ${short(line)}`);
    section("code mode: its result");
    if (report.outcome.kind === "returned") {
      console.log(indent(short(JSON.stringify(report.outcome.value), 600)));
    } else {
      success = false;
      console.log(indent(short(JSON.stringify(report.outcome), 600)));
    }
  } finally {
    section("retirement");
    const retired = await harness.retire();
    for (const [name, result] of retired.clients) {
      if (result.ok) {
        const evidence = result.value;
        console.log(
          evidence.kind === "exited"
            ? `  ${name.padEnd(8)} exited  pid ${evidence.pid}, code ${evidence.code}, signal ` +
              `${evidence.signal ?? "none"}, process group drained: ${evidence.drained}, ` +
              `after ${evidence.escalation}`
            : `  ${name.padEnd(8)} never started`,
        );
      } else {
        success = false;
        console.log(`  ${name.padEnd(8)} ${result.error.kind}: ${result.error.message}`);
      }
    }
    await Deno.remove(scratch, { recursive: true });
  }
  return success;
}

Deno.exit((await main()) ? 0 : 1);
