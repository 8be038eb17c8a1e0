// Private to cli/: the `serve` command. It boots every server of the source
// once, serves them to the MCP host on stdin and stdout as code mode's three
// tools (gateway/), and retires every one when the host goes: stdin closed,
// SIGINT or SIGTERM (withHarness's signal). stdout is the protocol's: every
// line of ours goes to stderr, the retirement evidence included. With
// `--http <host:port>` it serves Streamable HTTP there instead, to any
// number of hosts, until SIGINT or SIGTERM.

import { quote } from "../codec/quote.ts";
import { serveHarness } from "../gateway/serve_harness.ts";
import { hostHandlers } from "../gateway/host_handlers.ts";
import type { Harness } from "../harness/mod.ts";
import type { ServerSpec } from "../settings/mod.ts";
import type { RetirementReport } from "../client/census.ts";
import { oneLine, retirementRow, table } from "./_render.ts";
import { APPROVE_CALL_TIMEOUT_MS, APPROVE_RUN_TIMEOUT_MS } from "./_approve.ts";
import { type Context, fail, progress } from "./_commands.ts";
import type { CliCommand } from "./_args.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { retiredCleanly, withHarness } from "./_with_harness.ts";
import { TOKEN_VARIABLE } from "./_via.ts";

type ServeCommand = Extract<CliCommand, { command: "serve" }>;

/** `serve`: the servers to a host over stdio, until it goes. */
export async function serveCommand(
  command: ServeCommand,
  context: Context,
  serverInfo: { name: string; version: string },
): Promise<number> {
  const { source, output } = context;
  const kept = command.pins === undefined ? undefined : await readPins(command.pins);
  if (kept !== undefined && "error" in kept) {
    return fail(output, false, { kind: "usage", message: kept.error }, EXIT_USAGE);
  }
  // A host's own configuration file names this very command (the user's files
  // are where hosts keep it): serving it would start itself again, and so on.
  const itself = source.specs.filter(isServeItself);
  for (const spec of itself) {
    output.warn(
      `leaving out server ${quote(spec.name)}: it is loom-mcp serve itself, which would start ` +
        "itself again; give serve a catalog without it (--catalog <file>)",
    );
  }
  // A person asked through the host needs longer than the default deadline a call has.
  const specs = source.specs.filter((spec) => !itself.includes(spec)).map((spec) =>
    command.approve && spec.callTimeoutMs === undefined
      ? { ...spec, callTimeoutMs: APPROVE_CALL_TIMEOUT_MS }
      : spec
  );
  const deadlineMs = command.deadlineMs ?? (command.approve ? APPROVE_RUN_TIMEOUT_MS : undefined);
  context.doing.now = "serving the host";
  const gateway = {
    approve: command.approve,
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    ...(command.maxOutputBytes === undefined ? {} : { maxOutputBytes: command.maxOutputBytes }),
    serverInfo,
  };
  // Serving starts with the boot: a host's initialize is answered before every server is up.
  let serving: Promise<number> | undefined;
  const startServing = (
    booting: Promise<Harness>,
    signal: AbortSignal,
    giveUp: () => void,
  ): void => {
    const failed = new AbortController();
    booting.catch(() => failed.abort());
    const until = AbortSignal.any([signal, failed.signal]);
    // A host that leaves while servers still start: their starts are given up.
    serving = command.listen === undefined
      ? serveOverStdio(booting, gateway, until, context, giveUp)
      : serveOverHttp(booting, command.listen, gateway, until, context, giveUp);
  };
  return await withHarness(specs, context.doing, async (harness) => {
    await keepPins(command.pins, harness, output);
    const status = await (serving ?? Promise.resolve(EXIT_FAILED));
    await keepPins(command.pins, harness, output);
    return status;
  }, {
    ...progress({ json: false, ...logLevel(command) }, context),
    boot: { ...hostHandlers(), ...(kept === undefined ? {} : { pins: kept.text }) },
    onBooting: startServing,
    onRetired: (report) => showRetirement(report, context),
  });
}

type Gateway = {
  approve: boolean;
  deadlineMs?: number;
  maxOutputBytes?: number;
  serverInfo: { name: string; version: string };
};

// Once the boot is over, how many of its servers the host is offered.
function sayServing(
  booting: Promise<Harness>,
  how: string,
  output: Context["output"],
  signal: AbortSignal,
): void {
  booting.then((harness) => {
    if (signal.aborted) return;
    const ready = [...harness.reports.values()].filter((report) => report.state === "ready");
    output.progress(
      `serving ${ready.length} of ${harness.reports.size} servers ${how} ` +
        "as search_tools, describe_tool and run_program",
    );
  }, () => {});
}

// stdio: the host on stdin and stdout, until it closes stdin or a signal comes.
async function serveOverStdio(
  booting: Promise<Harness>,
  gateway: Gateway,
  signal: AbortSignal,
  context: Context,
  giveUp: () => void,
): Promise<number> {
  const { output } = context;
  const left = new AbortController();
  sayServing(booting, "to the host on stdio", output, AbortSignal.any([signal, left.signal]));
  const end = await serveHarness(booting, { signal, ...gateway });
  left.abort();
  giveUp();
  if (signal.aborted) return EXIT_OK;
  if (end.kind === "channel_dead") {
    output.error(`the host's channel failed: ${oneLine(end.failure.message)}`);
    return EXIT_FAILED;
  }
  output.progress("the host closed stdin; retiring every server");
  return EXIT_OK;
}

// --http <host:port>: listen, say where (and the token when it was made), serve until a signal.
// When it cannot listen, the starts still under way are given up: nothing will be served.
async function serveOverHttp(
  booting: Promise<Harness>,
  listen: { hostname: string; port: number },
  gateway: Gateway,
  signal: AbortSignal,
  context: Context,
  giveUp: () => void,
): Promise<number> {
  const { output } = context;
  const given = Deno.env.get(TOKEN_VARIABLE);
  let listening;
  try {
    listening = await serveHarness(booting, {
      ...gateway,
      signal,
      http: { hostname: listen.hostname, port: listen.port, token: given },
    });
  } catch (error) {
    // A LOOM_MCP_TOKEN a header cannot carry, or too short to guard anything.
    giveUp();
    const why = error instanceof Error ? error.message : String(error);
    output.error(
      `${TOKEN_VARIABLE} cannot be the token: ${
        oneLine(why.replace(/^Cannot use the token: /, ""))
      }; set it to a longer printable token, or unset it to have one made`,
    );
    return EXIT_USAGE;
  }
  if (!listening.ok) {
    giveUp();
    output.error(listening.error.message);
    return EXIT_FAILED;
  }
  const listener = listening.value;
  if (!isLoopbackName(listen.hostname)) {
    output.warn(
      `listening on ${quote(listen.hostname)}, which is not loopback: other machines can ` +
        "reach it (with the token); give 127.0.0.1 to keep it to this one",
    );
  }
  sayServing(booting, "over Streamable HTTP", output, signal);
  // The address is said whatever --quiet says: a host cannot be pointed at it otherwise.
  output.detail(`listening on ${listener.url.href}`);
  if (given === undefined) {
    output.detail(
      `token: ${listener.token} (send it as "Authorization: Bearer <token>"; ` +
        `set ${TOKEN_VARIABLE} to choose it)`,
    );
  }
  await listener.finished;
  output.progress("stopped listening; retiring every server");
  return EXIT_OK;
}

function isLoopbackName(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || /^127\./.test(hostname);
}

/** Whether a spec runs `loom-mcp serve` (the CLI by any of its names, with `serve`). */
export function isServeItself(spec: ServerSpec): boolean {
  if ("url" in spec) return false;
  const words = [spec.command, ...(spec.args ?? [])];
  const cli = words.some((word) =>
    /(?:^|[/\\])loom-mcp(?:\.exe)?$|@loom\/mcp\/cli|[/\\]cli[/\\]main\.ts$/.test(word)
  );
  return cli && words.includes("serve");
}

function logLevel(command: ServeCommand): Pick<ServeCommand, "logLevel"> {
  return command.logLevel === undefined ? {} : { logLevel: command.logLevel };
}

// Pins kept in a file: absent is a first session; anything else that is not JSON is a mistake.
async function readPins(path: string): Promise<{ text: string } | { error: string } | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    return { error: `cannot read the pins ${quote(path)}: ${oneLine(String(error))}` };
  }
  try {
    const value = JSON.parse(text);
    if (value?.version !== 1 || typeof value.servers !== "object") throw new Error("no pins");
  } catch {
    return {
      error: `the pins ${quote(path)} are not pins (JSON with "version": 1 and "servers"); ` +
        "remove the file to pin the tools anew",
    };
  }
  return { text };
}

async function keepPins(path: string | undefined, harness: Harness, context: Context["output"]) {
  if (path === undefined) return;
  try {
    await Deno.writeTextFile(path, JSON.stringify(harness.pins(), null, 2) + "\n");
  } catch (error) {
    context.warn(`cannot keep the pins in ${quote(path)}: ${oneLine(String(error))}`);
  }
}

function showRetirement(report: RetirementReport, context: Context): void {
  const rows = [...report.clients].map(([name, outcome]) => retirementRow(name, outcome));
  context.output.detail(`retired:\n${table(rows)}`);
  if (!retiredCleanly(report)) {
    context.output.error("some servers were not confirmed retired (see above)");
  }
}
