// Private to cli/: the messages of failures, said in the words of where the
// server was given. A deadline names what set it (_source.ts decides: the
// flag when it was given, the entry's key when the entry wrote one, else the
// default with both ways to raise it), never the key of a file the server is
// not in. A server that exited by itself is said to have exited, whatever
// deadline fell meanwhile. Messages are kept whole: a terminal wraps them,
// nothing cuts them.

import { quote } from "../codec/quote.ts";
import type { ServerReport } from "../harness/harness.ts";
import type { ClientError } from "../client/errors.ts";
import type { Knobs } from "./_source.ts";
import { duration, printable, seconds } from "./_render.ts";

type FailedReport = ServerReport & { state: "failed" };

// The library's own advice on a deadline, which names the catalog's key
// whatever the server came from; the command line says its own instead.
const CONNECT_ADVICE =
  /; check that [^;]*, or raise connect_timeout_ms in its catalog entry \(connectTimeoutMs in a ServerSpec\)/g;
const SILENT = /did not answer (\S+) within \d+ ms/;
// The library's own advice on a request's deadline, which names the catalog's key and the
// library's options whatever the server came from.
const CALL_ADVICE =
  /; raise call_timeout_ms in its catalog entry \(callTimeoutMs in a ServerSpec, or the call's timeoutMs\)/g;
// The earlier attempt of a server that exited says the same exit again.
const EXITED_BEFORE = /(?<=\bexited with .*) \(tried before it: [^()]*\bexited with [^()]*\)/;

/** Why a server failed at boot, whole, with what to do next. */
export function startMessage(report: FailedReport, knobs: Knobs | undefined): string {
  const text = printable(report.message.replace(/\s+/g, " ").trim()).replace(EXITED_BEFORE, "");
  const exit = exitedUnasked(report);
  const silent = SILENT.exec(text);
  if (silent !== null && exit !== undefined) {
    // It ended by itself as the deadline fell: a longer deadline would not help.
    const said = `Server ${quote(report.name)} exited ${exit} before answering ${silent[1]}`;
    return `${said}; ${
      report.stderrTail !== "" ? "its stderr follows" : "check its command, args and cwd"
    }`;
  }
  if (silent !== null && report.failure.stage === "list") {
    // It started; its listing ran past the deadline of a request, which --timeout sets.
    const setBy = knobs?.call.setBy ?? "--timeout";
    const set = setBy === "the default" ? "the default" : `set by ${setBy}`;
    return `${text.replace(CALL_ADVICE, "")}, the deadline of each request (${set}); ` +
      `raise it with ${knobs?.call.raise ?? "--timeout"}`;
  }
  if (silent !== null) {
    const remote = isRemote(report);
    const advice = `check that ${
      remote ? "its url serves MCP" : "its command starts an MCP server on stdio"
    }, or raise the deadline with ${knobs?.connect.raise ?? "--connect-timeout"}`;
    return `${text.replace(CONNECT_ADVICE, "")}; ${advice}${stopping(report)}`;
  }
  const advice = hint(report, text);
  return `${text}${advice === "" ? "" : `; ${advice}`}${stopping(report)}`;
}

// What to check, said once: a message that already says it gets no hint.
function hint(report: FailedReport, text: string): string {
  switch (report.failure.stage) {
    case "start":
      if (report.failure.error.kind === "needs_auth") {
        return `sign in: loom-mcp login ${report.name}`;
      }
      if (report.stderrTail !== "") return "its stderr follows";
      if (/\bcheck\b/.test(text)) return "";
      if (/was (?:shut down|retired) before/.test(text)) return "";
      return isRemote(report) ? "check its url and headers" : "check its command, args and cwd";
    case "list":
      return "it started but its tools/list failed; check the server";
    case "generate":
      return "its tools cannot become a module; check the server's tool list";
    case "run":
      return "it died after it was ready";
  }
}

// How a server that exited before anything was done to stop it ended
// (`with code 1`); `undefined` when it did not, or was stopped.
function exitedUnasked(report: FailedReport): string | undefined {
  if (report.failure.stage !== "start") return undefined;
  const error = report.failure.error;
  const cleanup = "cleanup" in error ? error.cleanup : undefined;
  if (cleanup?.kind !== "exited" || cleanup.escalation !== "none") return undefined;
  return cleanup.signal === null ? `with code ${cleanup.code}` : `on ${cleanup.signal}`;
}

// A remote server's failed start says so in the evidence of its cleanup.
function isRemote(report: FailedReport): boolean {
  if (report.failure.stage !== "start") return false;
  const error = report.failure.error;
  return "cleanup" in error && error.cleanup?.kind === "remote";
}

// A failed start is retired before it is reported, so its boot time includes
// the stopping: say so when stopping took more than closing stdin.
function stopping(report: FailedReport): string {
  if (report.failure.stage !== "start") return "";
  const error = report.failure.error;
  const cleanup = "cleanup" in error ? error.cleanup : undefined;
  if (cleanup === undefined || cleanup.kind !== "exited") return "";
  if (cleanup.escalation === "none" || cleanup.escalation === "stdin_closed") return "";
  return ` (its ${seconds(report.elapsedMs)} include stopping it, which took a ${
    cleanup.escalation === "sigkill" ? "SIGKILL" : "SIGTERM"
  })`;
}

/** Why a call failed, whole: a deadline names what raises it. */
export function callMessage(
  error: ClientError,
  server: string,
  knobs: Knobs | undefined,
): string {
  if (error.kind === "call_timed_out") {
    if (error.aborted) return `the call to ${quote(server)} was cancelled`;
    return `server ${quote(server)} did not answer ${error.method} within ${
      duration(error.timeoutMs)
    }; raise the deadline with ${knobs?.call.raise ?? "--timeout"}`;
  }
  return printable(error.message.replace(/\s+/g, " ").trim());
}
