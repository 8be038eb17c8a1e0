import assert from "node:assert/strict";
import ts from "npm:typescript@6.0.3";
import { ok } from "../../../codec/result.ts";
import { LIB_FILES } from "../../../runner/checker/_libs.ts";
import {
  COMPILER_OPTIONS,
  createHost,
  parse,
  PROGRAM_PATH,
  VIRTUAL_LIB,
  worldLibs,
} from "../../../runner/checker/_host.ts";
import {
  ABSENT_GLOBALS,
  ABSENT_MEMBERS,
  carve,
  HIDDEN_GLOBALS,
} from "../../../runner/checker/_world.ts";
import { runProgram } from "../../../runner/host/runner.ts";
import type { RunOptions } from "../../../runner/host/run.ts";

const OPTIONS: RunOptions = {
  modules: new Map(),
  call: () => Promise.resolve(ok({ content: [], isError: false })),
  timeoutMs: 60_000,
};

/** A program over the world's carved libraries, as the checker's compiler builds it. */
function worldProgram(
  options: ts.CompilerOptions = COMPILER_OPTIONS,
): { program: ts.Program; checker: ts.TypeChecker; file: ts.SourceFile } {
  const libs = worldLibs();
  const root = new Map([[PROGRAM_PATH, parse(PROGRAM_PATH, "export {};\n")]]);
  const program = ts.createProgram({
    rootNames: [PROGRAM_PATH],
    options,
    host: createHost(libs, root, { programImported: false }),
  });
  return { program, checker: program.getTypeChecker(), file: root.get(PROGRAM_PATH)! };
}

/** Every global value of the world, with the members its type declares (symbol-keyed ones aside). */
function worldGlobals(): Map<string, string[]> {
  const { checker, file } = worldProgram();
  const out = new Map<string, string[]>();
  for (const symbol of checker.getSymbolsInScope(file, ts.SymbolFlags.Value)) {
    const type = checker.getTypeOfSymbol(symbol);
    out.set(
      symbol.name,
      checker.getPropertiesOfType(type).map((p) => p.name).filter((n) => !n.startsWith("__@")),
    );
  }
  return out;
}

const WORLD = worldGlobals();

Deno.test("every global the sandbox's program Worker offers is in the world or hidden", async () => {
  // The global object's own names and those it inherits below Object.prototype
  // (EventTarget's methods are globals too).
  const report = await runProgram(
    "const names = new Set<string>();\n" +
      "for (let o: object | null = globalThis; o !== null && o !== Object.prototype; " +
      "o = Object.getPrototypeOf(o)) {\n" +
      '  for (const name of Object.getOwnPropertyNames(o)) if (name !== "constructor") ' +
      "names.add(name);\n}\n" +
      "export default [...names].sort();\n",
    { ...OPTIONS, typeCheck: false },
  );
  assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
  const offered = report.outcome.kind === "returned" ? report.outcome.value as string[] : [];
  assert.ok(offered.includes("setTimeout") && offered.includes("Deno"));
  const unaccounted = offered.filter((name) => !WORLD.has(name) && !HIDDEN_GLOBALS.has(name));
  assert.deepEqual(unaccounted, [], "offered by the Worker, neither in the world nor hidden");
  const stale = [...HIDDEN_GLOBALS.keys()].filter((name) => !offered.includes(name));
  assert.deepEqual(stale, [], "hidden, but not offered by the Worker");
  const offeredAbsent = [...ABSENT_GLOBALS.keys()].filter((name) => offered.includes(name));
  assert.deepEqual(offeredAbsent, [], "said to be absent, but offered by the Worker");
});

Deno.test("no hidden or absent global is in the world", () => {
  const leaked = [...HIDDEN_GLOBALS.keys(), ...ABSENT_GLOBALS.keys()].filter((name) =>
    WORLD.has(name) || (WORLD.get("self") ?? []).includes(name)
  );
  assert.deepEqual(leaked, []);
});

Deno.test("every global of the world, and every member its type declares, is in the sandbox", async () => {
  const names = [...WORLD.keys()].sort();
  const members = Object.fromEntries(names.map((name) => [name, WORLD.get(name) ?? []]));
  // The shorthand object touches every global by name, type-checked; the
  // members are looked up by name on what the Worker really holds.
  const report = await runProgram(
    `const world: Record<string, unknown> = { ${names.join(", ")} };\n` +
      `const members: Record<string, string[]> = ${JSON.stringify(members)};\n` +
      "const missing: string[] = [];\n" +
      "for (const [name, value] of Object.entries(world)) {\n" +
      '  if (value === undefined && name !== "undefined") missing.push(name);\n' +
      "  for (const member of members[name] ?? []) {\n" +
      "    if (value === null || value === undefined || !(member in Object(value))) {\n" +
      "      missing.push(`${name}.${member}`);\n" +
      "    }\n" +
      "  }\n" +
      "}\n" +
      "export default missing;\n",
    OPTIONS,
  );
  assert.deepEqual(report.outcome, { kind: "returned", value: [] });
});

Deno.test("each name the world leaves out is removed from a declaration of the libraries", () => {
  const removed = new Set<string>();
  for (const [name, text] of LIB_FILES) {
    for (const each of carve(parse(`${VIRTUAL_LIB}${name}`, text)).removed) removed.add(each);
  }
  const stale = [...ABSENT_GLOBALS.keys(), ...ABSENT_MEMBERS].filter((name) => !removed.has(name));
  assert.deepEqual(stale, []);
  assert.ok(removed.has("fetch") && removed.has("WindowOrWorkerGlobalScope.fetch"));
});

Deno.test("the carved libraries check without an error", () => {
  // The checker skips the libraries' own check; this check does not.
  const { program } = worldProgram({ ...COMPILER_OPTIONS, skipDefaultLibCheck: false });
  const libs = program.getSourceFiles().filter((file) => file.fileName.startsWith(VIRTUAL_LIB));
  assert.ok(libs.length === LIB_FILES.size);
  const found = [
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...libs.flatMap((file) => program.getSemanticDiagnostics(file)),
  ].map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "));
  assert.deepEqual(found, []);
});

Deno.test("a carved library keeps its text, so every kept declaration keeps its place", () => {
  const text = LIB_FILES.get("lib.webworker.d.ts") ?? "";
  const parsed = parse(`${VIRTUAL_LIB}lib.webworker.d.ts`, text);
  const { file } = carve(parsed);
  assert.equal(file.text, text);
  const declared = (of: ts.SourceFile) =>
    of.statements.filter(ts.isFunctionDeclaration).map((each) => each.name?.text);
  assert.ok(declared(parsed).includes("fetch") && !declared(file).includes("fetch"));
  const response = file.statements.find((each) =>
    ts.isVariableStatement(each) && each.getText(file).startsWith("declare var Response:")
  );
  assert.ok(response !== undefined);
  assert.equal(
    parsed.statements.find((each) => each.pos === response.pos)?.getText(parsed),
    response.getText(file),
  );
});
