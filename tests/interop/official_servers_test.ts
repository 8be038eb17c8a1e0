// The whole pipeline against the official MCP servers from npm, run by Deno:
// catalog, boot, listing, generation, type check, surface, routed calls,
// a code-mode program over two servers, unsolicited notifications, and
// retirement with no process left. The four servers boot once for the file.

import assert from "node:assert/strict";
import { boot, type Harness } from "../../harness/harness.ts";
import type { CallToolResult, ContentBlock } from "../../codec/protocol.ts";
import { REQUESTED_VERSION, SUPPORTED_VERSIONS } from "../../codec/protocol.ts";
import type { JsonValue } from "../../codec/json.ts";
import type { Generated } from "../../codegen/generate.ts";
import { checkModules } from "../codegen/_modules.ts";
import {
  descendants,
  identifier,
  isLive,
  leftovers,
  localize,
  makeScratch,
  recordedToolNames,
  type Scratch,
  SERVERS,
  tomlCatalogSpecs,
} from "./_servers.ts";
import { OPENS_CUSTODIAN } from "../_lifetime.ts";

// What each server says of itself at 2026.8.31.
const SERVER_INFO_NAMES: Record<string, string> = {
  everything: "mcp-servers/everything",
  filesystem: "secure-filesystem-server",
  memory: "memory-server",
  "sequential-thinking": "sequential-thinking-server",
};

// The PNG the everything server's get-tiny-image returns starts with this.
const PNG_BASE64_PREFIX = "iVBORw0KGgo";

function ready(harness: Harness, server: string) {
  const report = harness.reports.get(server);
  assert.ok(report?.state === "ready", `${server}: ${JSON.stringify(report).slice(0, 2000)}`);
  return report;
}

function module(harness: Harness, server: string): Generated {
  const generated = harness.modules.get(server);
  assert.ok(generated !== undefined, `no module for ${server}`);
  return generated;
}

async function called(
  harness: Harness,
  server: string,
  tool: string,
  args: unknown,
): Promise<CallToolResult> {
  const result = await harness.call(server, tool, args);
  assert.ok(result.ok, `${server}.${tool}: ${JSON.stringify(result)}`);
  return result.value;
}

async function succeeded(
  harness: Harness,
  server: string,
  tool: string,
  args: unknown,
): Promise<CallToolResult> {
  const result = await called(harness, server, tool, args);
  assert.equal(result.isError, false, `${server}.${tool}: ${JSON.stringify(result)}`);
  return result;
}

function text(result: CallToolResult): string {
  return result.content.map((block) => block.type === "text" ? block.text : "").join("");
}

function blocks<T extends ContentBlock["type"]>(
  result: CallToolResult,
  type: T,
): Extract<ContentBlock, { type: T }>[] {
  return result.content.filter((block): block is Extract<ContentBlock, { type: T }> =>
    block.type === type
  );
}

function field(value: JsonValue | undefined, key: string): JsonValue | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return value[key];
}

// Every property key of a schema, nested objects and array items included.
function propertyKeys(schema: JsonValue | undefined, into: Set<string> = new Set()): Set<string> {
  const properties = field(schema, "properties");
  if (typeof properties === "object" && properties !== null && !Array.isArray(properties)) {
    for (const [key, child] of Object.entries(properties)) {
      into.add(key);
      propertyKeys(child, into);
    }
  }
  const items = field(schema, "items");
  if (items !== undefined) propertyKeys(items, into);
  return into;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// The file's first server starts the process's custodian, kept for its life (tests/_lifetime.ts).
Deno.test(
  "the official servers run the whole pipeline from one TOML catalog",
  OPENS_CUSTODIAN,
  async (t) => {
    const scratch: Scratch = await makeScratch();
    const harness = await boot(localize(tomlCatalogSpecs(), scratch));
    let retired = false;
    try {
      await t.step("each server is ready with its negotiated protocol version", () => {
        for (const server of SERVERS) {
          const report = ready(harness, server);
          assert.ok(
            (SUPPORTED_VERSIONS as readonly string[]).includes(report.info.protocolVersion),
            report.info.protocolVersion,
          );
          // They accept the version asked for rather than offering an older one,
          // after refusing the era probe: the legacy era, through the fallback.
          assert.equal(report.info.protocolVersion, REQUESTED_VERSION);
          assert.equal(report.info.era, "legacy");
          assert.equal(report.info.serverInfo.name, SERVER_INFO_NAMES[server]);
          assert.ok(report.elapsedMs > 0);
        }
      });

      await t.step("each server lists every tool of its recorded listing", () => {
        for (const server of SERVERS) {
          const names = ready(harness, server).tools.map((tool) => tool.name);
          assert.deepEqual(names.toSorted(), recordedToolNames(server).toSorted(), server);
        }
      });

      await t.step("each module is generated, maps every tool, and type-checks", async () => {
        const modules = SERVERS.map((server) => {
          const generated = module(harness, server);
          assert.equal(generated.moduleName, `mcp/${server}.ts`);
          const names = ready(harness, server).tools.map((tool) => tool.name);
          assert.deepEqual(
            [...generated.manifest.values(), ...generated.omitted.keys()].toSorted(),
            names.toSorted(),
          );
          return { group: "interop", generated };
        });
        assert.equal(await checkModules(modules), "");
      });

      await t.step("the surface holds every tool and every parameter", () => {
        const lines = harness.surface.split("\n");
        for (const server of SERVERS) {
          assert.ok(lines.some((line) => line.startsWith(`// mcp/${server}.ts `)), server);
          const generated = module(harness, server);
          for (const tool of ready(harness, server).tools) {
            if (generated.omitted.has(tool.name)) {
              const left = lines.find((line) => line.startsWith("// Left out, ")) ?? "";
              assert.ok(
                left.includes(JSON.stringify(tool.name)),
                `${server}.${tool.name} not named`,
              );
              continue;
            }
            const name = identifier(generated, tool.name);
            const line = lines.find((candidate) => candidate.startsWith(`${name}(`));
            assert.ok(line !== undefined, `${server}.${tool.name} has no surface line`);
            for (const key of propertyKeys(tool.inputSchema)) {
              const pattern = new RegExp(`(?:${escapeRegExp(key)}|"${escapeRegExp(key)}")\\??:`);
              assert.match(line, pattern, `${server}.${tool.name} lacks parameter ${key}`);
            }
          }
        }
      });

      await t.step("everything: text, structured content, images, resources, links", async () => {
        const echo = await succeeded(harness, "everything", "echo", { message: "héllo 😀" });
        assert.equal(text(echo), "Echo: héllo 😀");

        const sum = await succeeded(harness, "everything", "get-sum", { a: 2, b: 40 });
        assert.match(text(sum), /\b42\b/);

        const weather = await succeeded(harness, "everything", "get-structured-content", {
          location: "Chicago",
        });
        assert.equal(typeof field(weather.structuredContent, "temperature"), "number");
        assert.equal(typeof field(weather.structuredContent, "conditions"), "string");
        assert.deepEqual(JSON.parse(text(weather)), weather.structuredContent);

        const image = await succeeded(harness, "everything", "get-tiny-image", {});
        const [png] = blocks(image, "image");
        assert.equal(png?.mimeType, "image/png");
        assert.ok(png.data.startsWith(PNG_BASE64_PREFIX));

        const annotated = await succeeded(harness, "everything", "get-annotated-message", {
          messageType: "error",
          includeImage: true,
        });
        assert.deepEqual(annotated.content.map((block) => block.type), ["text", "image"]);
        const [headline] = blocks(annotated, "text");
        assert.equal(field(headline?.annotations, "priority"), 1);

        const embedded = await succeeded(harness, "everything", "get-resource-reference", {
          resourceType: "Text",
          resourceId: 2,
        });
        const [textResource] = blocks(embedded, "resource");
        assert.equal(textResource?.resource.uri, "demo://resource/dynamic/text/2");
        assert.ok("text" in textResource.resource && textResource.resource.text.includes("2"));

        const blob = await succeeded(harness, "everything", "get-resource-reference", {
          resourceType: "Blob",
          resourceId: 3,
        });
        const [blobResource] = blocks(blob, "resource");
        assert.equal(blobResource?.resource.uri, "demo://resource/dynamic/blob/3");
        assert.ok("blob" in blobResource.resource);
        const decoded = new TextDecoder().decode(
          Uint8Array.from(atob(blobResource.resource.blob), (char) => char.charCodeAt(0)),
        );
        assert.match(decoded, /^Resource 3: /);

        const links = await succeeded(harness, "everything", "get-resource-links", { count: 4 });
        const found = blocks(links, "resource_link");
        assert.equal(found.length, 4);
        for (const link of found) assert.match(link.uri, /^demo:\/\/resource\//);

        // The server's environment is the allowlist plus the catalog's pairs.
        const env = JSON.parse(text(await succeeded(harness, "everything", "get-env", {})));
        assert.equal(env.MEMORY_FILE_PATH, undefined);
        assert.equal(typeof env.LOOM_INTEROP_RUN, "string");
      });

      await t.step("filesystem: write, list, read, media, info, and isError outside", async () => {
        const notes = `${scratch.allowed}/notes`;
        await succeeded(harness, "filesystem", "create_directory", { path: notes });
        await succeeded(harness, "filesystem", "write_file", {
          path: `${notes}/a.md`,
          content: "# Alpha\nfirst line\n",
        });
        const listing = await succeeded(harness, "filesystem", "list_directory", { path: notes });
        assert.match(text(listing), /\[FILE\] a\.md/);

        const read = await succeeded(harness, "filesystem", "read_text_file", {
          path: `${notes}/a.md`,
        });
        assert.equal(text(read), "# Alpha\nfirst line\n");
        assert.deepEqual(read.structuredContent, { content: "# Alpha\nfirst line\n" });

        const head = await succeeded(harness, "filesystem", "read_text_file", {
          path: `${notes}/a.md`,
          head: 1,
        });
        assert.equal(text(head), "# Alpha");

        const tiny = await succeeded(harness, "everything", "get-tiny-image", {});
        const data = blocks(tiny, "image")[0]?.data ?? "";
        await Deno.writeFile(
          `${notes}/tiny.png`,
          Uint8Array.from(atob(data), (char) => char.charCodeAt(0)),
        );
        const media = await succeeded(harness, "filesystem", "read_media_file", {
          path: `${notes}/tiny.png`,
        });
        const [image] = blocks(media, "image");
        assert.equal(image?.mimeType, "image/png");
        assert.equal(image.data, data);

        const info = await succeeded(harness, "filesystem", "get_file_info", {
          path: `${notes}/a.md`,
        });
        assert.match(text(info), /size: 19\b/);

        const outside = await called(harness, "filesystem", "read_text_file", {
          path: "/etc/hostname",
        });
        assert.equal(outside.isError, true);
        assert.match(text(outside), /Access denied - path outside allowed directories/);
      });

      await t.step("memory: entities, relations, observations, search, open", async () => {
        await succeeded(harness, "memory", "create_entities", {
          entities: [
            { name: "Deno", entityType: "runtime", observations: ["runs TypeScript"] },
            { name: "V8", entityType: "engine", observations: [] },
          ],
        });
        await succeeded(harness, "memory", "create_relations", {
          relations: [{ from: "Deno", to: "V8", relationType: "embeds" }],
        });
        await succeeded(harness, "memory", "add_observations", {
          observations: [{ entityName: "V8", contents: ["compiles JavaScript"] }],
        });
        const search = await succeeded(harness, "memory", "search_nodes", { query: "compiles" });
        const found = field(search.structuredContent, "entities");
        assert.ok(Array.isArray(found));
        assert.deepEqual(found.map((entity) => field(entity, "name")), ["V8"]);
        const opened = await succeeded(harness, "memory", "open_nodes", { names: ["Deno", "V8"] });
        assert.deepEqual(field(opened.structuredContent, "relations"), [
          { from: "Deno", to: "V8", relationType: "embeds" },
        ]);
        // The server persisted the graph where the catalog's localized env said.
        assert.match(await Deno.readTextFile(scratch.memoryFile), /"compiles JavaScript"/);
      });

      await t.step("sequential-thinking: thoughts, a revision, and the last thought", async () => {
        const steps = [
          {
            thought: "List the servers",
            thoughtNumber: 1,
            totalThoughts: 3,
            nextThoughtNeeded: true,
          },
          {
            thought: "Recount them",
            thoughtNumber: 2,
            totalThoughts: 3,
            nextThoughtNeeded: true,
            isRevision: true,
            revisesThought: 1,
          },
          { thought: "Four servers", thoughtNumber: 3, totalThoughts: 3, nextThoughtNeeded: false },
        ];
        for (const [index, args] of steps.entries()) {
          const result = await succeeded(
            harness,
            "sequential-thinking",
            "sequentialthinking",
            args,
          );
          assert.equal(field(result.structuredContent, "thoughtNumber"), args.thoughtNumber);
          assert.equal(
            field(result.structuredContent, "nextThoughtNeeded"),
            args.nextThoughtNeeded,
          );
          assert.equal(field(result.structuredContent, "thoughtHistoryLength"), index + 1);
        }
      });

      await t.step(
        "harness.call() takes a tool's wire name and its function's name alike",
        async () => {
          for (const name of ["get-sum", "get_sum"]) {
            const sum = await succeeded(harness, "everything", name, { a: 2, b: 40 });
            assert.match(text(sum), /\b42\b/, name);
          }
          const guess = await harness.call("everything", "getSum", { a: 1, b: 2 });
          assert.ok(!guess.ok && guess.error.kind === "unknown_tool", JSON.stringify(guess));
          assert.match(guess.error.message, /did you mean get_sum\?$/);
        },
      );

      await t.step(
        "a program runs simulate-research-query as a task, and reads a resource link it was given",
        async () => {
          // Task-required, so a function like any other: the client runs it as a task.
          assert.ok(!module(harness, "everything").omitted.has("simulate-research-query"));
          assert.match(harness.surface, /^read_resource\(uri: string\): Promise<ResourceResult>/m);
          const heard: [number, string][] = [];
          const report = await harness.run(
            [
              "import { get_resource_links, read_resource, simulate_research_query } from",
              '  "./mcp/everything.ts";',
              'const research = await simulate_research_query({ topic: "tasks" });',
              "const links = await get_resource_links({ count: 2 });",
              "const read: Awaited<ReturnType<typeof read_resource>>[] = [];",
              "for (const block of links.content) {",
              '  if (block.type === "resource_link") read.push(await read_resource(block.uri));',
              "}",
              "export default {",
              "  report: research.text,",
              "  uris: read.map((r) => r.contents[0]?.uri),",
              "  kinds: read.map((r) => Object.keys(r.contents[0] ?? {}).sort().join()),",
              "};",
            ].join("\n"),
            {
              timeoutMs: 60_000,
              onProgress: (callId, progress) => heard.push([callId, progress.message ?? ""]),
            },
          );
          assert.equal(report.outcome.kind, "returned", JSON.stringify(report).slice(0, 3000));
          const value = report.outcome.value as { report: string; uris: string[]; kinds: string[] };
          assert.match(value.report, /# Research Report: tasks/);
          assert.equal(value.uris.length, 2);
          // The everything server's links alternate blob and text resources.
          assert.deepEqual(value.kinds.toSorted(), ["blob,mimeType,uri", "mimeType,text,uri"]);
          assert.deepEqual(report.calls.map((call) => call.tool), [
            "simulate-research-query",
            "get-resource-links",
            "resources/read",
            "resources/read",
          ]);
          // Its status messages, heard with the id of the call they belong to.
          assert.ok(heard.some(([id, message]) => id === 0 && /Gathering sources/.test(message)));
        },
      );

      await t.step(
        "a program per server, with the wire names as identifiers, checks and runs",
        async () => {
          const programs: Record<string, [string, (value: unknown) => void]> = {
            everything: [
              [
                'import { echo, get_structured_content, get_sum } from "./mcp/everything.ts";',
                'const weather = await get_structured_content({ location: "Chicago" });',
                "const celsius: number = weather.structuredContent.temperature;",
                "const sum = await get_sum({ a: 2, b: 40 });",
                'const said = (await echo({ message: "hi" })).text;',
                "export default { celsius: typeof celsius, sum: sum.text, said };",
              ].join("\n"),
              (value) => {
                const { celsius, sum, said } = value as Record<string, string>;
                assert.equal(celsius, "number");
                assert.match(sum ?? "", /\b42\b/);
                assert.equal(said, "Echo: hi");
              },
            ],
            filesystem: [
              [
                'import { list_allowed_directories } from "./mcp/filesystem.ts";',
                "const allowed = await list_allowed_directories({});",
                "export default allowed.structuredContent.content;",
              ].join("\n"),
              (value) => assert.match(String(value), /Allowed directories/),
            ],
            memory: [
              [
                'import { read_graph, search_nodes } from "./mcp/memory.ts";',
                "const graph = await read_graph({});",
                'const found = await search_nodes({ query: "compiles" });',
                "export default {",
                "  entities: graph.structuredContent.entities.length > 0,",
                "  found: found.structuredContent.entities.map((entity) => entity.name),",
                "};",
              ].join("\n"),
              (value) => assert.deepEqual(value, { entities: true, found: ["V8"] }),
            ],
            "sequential-thinking": [
              [
                'import { sequentialthinking } from "./mcp/sequential-thinking.ts";',
                "const thought = await sequentialthinking({",
                '  thought: "One more", thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false,',
                "});",
                "const next: boolean = thought.structuredContent.nextThoughtNeeded;",
                "export default next;",
              ].join("\n"),
              (value) => assert.equal(value, false),
            ],
          };
          for (const [server, [program, expect]] of Object.entries(programs)) {
            const report = await harness.run(program, { timeoutMs: 60_000 });
            assert.equal(
              report.outcome.kind,
              "returned",
              `${server}: ${JSON.stringify(report.outcome)}`,
            );
            assert.ok(report.outcome.kind === "returned");
            expect(report.outcome.value);
          }
        },
      );

      await t.step("a code-mode program reads files and records them in memory", async () => {
        const people = `${scratch.allowed}/people`;
        await Deno.mkdir(people);
        await Deno.writeTextFile(`${people}/ada.txt`, "Ada Lovelace\nmathematician\n");
        await Deno.writeTextFile(`${people}/alan.txt`, "Alan Turing\ncomputer scientist\n");
        // The wire names are the identifiers: a model types what the server calls its tools.
        const [list, read] = ["list_directory", "read_text_file"];
        const [create, relate, open] = ["create_entities", "create_relations", "open_nodes"];
        const program = [
          `import { ${list}, ${read} } from "./mcp/filesystem.ts";`,
          `import { ${create}, ${open}, ${relate} } from "./mcp/memory.ts";`,
          `const folder = ${JSON.stringify(people)};`,
          `const listing = await ${list}({ path: folder });`,
          `const files = listing.text.split("\\n").filter((line) => line.startsWith("[FILE] "))`,
          `  .map((line) => line.slice(7)).sort();`,
          `const found = await Promise.all(files.map(async (file) => {`,
          `  const [name = "", role = ""] = (await ${read}({ path: folder + "/" + file })).text`,
          `    .split("\\n");`,
          `  return { name, entityType: "person", observations: [role, "from " + file] };`,
          `}));`,
          `await ${create}({ entities: found });`,
          `const names = found.map((entity) => entity.name);`,
          `await ${relate}({`,
          `  relations: [{ from: names[0] ?? "", to: names[1] ?? "", relationType: "inspired" }],`,
          `});`,
          `console.log("recorded " + names.length + " people");`,
          `export default (await ${open}({ names })).structuredContent;`,
        ].join("\n");
        const report = await harness.run(program, { timeoutMs: 60_000 });
        assert.equal(report.outcome.kind, "returned", JSON.stringify(report.outcome));
        assert.ok(report.outcome.kind === "returned");
        assert.deepEqual(report.outcome.value, {
          entities: [
            {
              name: "Ada Lovelace",
              entityType: "person",
              observations: ["mathematician", "from ada.txt"],
            },
            {
              name: "Alan Turing",
              entityType: "person",
              observations: ["computer scientist", "from alan.txt"],
            },
          ],
          relations: [{ from: "Ada Lovelace", to: "Alan Turing", relationType: "inspired" }],
        });
        assert.deepEqual(report.logs, ["recorded 2 people"]);
        assert.deepEqual(
          report.calls.map((call) => `${call.server}.${call.tool}:${call.outcome.ok}`).toSorted(),
          [
            "filesystem.list_directory:true",
            "filesystem.read_text_file:true",
            "filesystem.read_text_file:true",
            "memory.create_entities:true",
            "memory.create_relations:true",
            "memory.open_nodes:true",
          ],
        );
      });

      await t.step("unsolicited log notifications never disturb concurrent calls", async () => {
        // Each time logging is switched on, the server sends a log message at
        // once, in the middle of the calls in flight; it also sent
        // notifications/tools/list_changed right after the handshake.
        const rounds = 6;
        const perRound = 40;
        for (let round = 0; round < rounds; round++) {
          const toggle = harness.call("everything", "toggle-simulated-logging", {});
          const echoes = Array.from(
            { length: perRound },
            (_, index) =>
              harness.call("everything", "echo", { message: `round ${round} call ${index}` }),
          );
          const sums = Array.from(
            { length: perRound / 4 },
            (_, index) => harness.call("everything", "get-sum", { a: round, b: index }),
          );
          const toggled = await toggle;
          assert.ok(toggled.ok && !toggled.value.isError, JSON.stringify(toggled));
          assert.match(text(toggled.value), round % 2 === 0 ? /^Started/ : /^Stopped/);
          for (const [index, settled] of (await Promise.all(echoes)).entries()) {
            assert.ok(settled.ok, JSON.stringify(settled));
            assert.equal(text(settled.value), `Echo: round ${round} call ${index}`);
          }
          for (const [index, settled] of (await Promise.all(sums)).entries()) {
            assert.ok(settled.ok, JSON.stringify(settled));
            assert.equal(
              text(settled.value),
              `The sum of ${round} and ${index} is ${round + index}.`,
            );
          }
        }
      });

      await t.step(
        "retirement: each server exited, and none of its processes remains",
        async () => {
          const pids = new Map<string, number>();
          for (const server of SERVERS) {
            const pid = harness.census.clients.get(server)?.pid;
            assert.ok(pid !== undefined && isLive(pid), `${server} has no live process`);
            pids.set(server, pid);
          }
          const family = [...pids.values(), ...descendants([...pids.values()])];
          // The marker scan sees every server while it runs, so it can fail.
          const running = leftovers(scratch.marker).map((entry) => entry.pid);
          for (const pid of pids.values()) assert.ok(running.includes(pid), `${pid} not found`);

          retired = true;
          const report = await harness.retire();
          assert.equal(report.confirmed, true, JSON.stringify([...report.clients]));
          assert.deepEqual([...report.clients.keys()], [...SERVERS]);
          for (const [server, outcome] of report.clients) {
            assert.ok(outcome.ok, `${server}: ${JSON.stringify(outcome)}`);
            const evidence = outcome.value;
            assert.ok(evidence.kind === "exited", `${server}: ${JSON.stringify(evidence)}`);
            assert.equal(evidence.pid, pids.get(server));
            assert.equal(evidence.drained, true, server);
          }
          assert.deepEqual(family.filter(isLive), [], "a server process or descendant remains");
          assert.deepEqual(leftovers(scratch.marker), [], "a marked process remains");
        },
      );
    } finally {
      if (!retired) await harness.retire();
      await Deno.remove(scratch.root, { recursive: true });
    }
  },
);
