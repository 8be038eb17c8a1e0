// Private to cli/: the messages of failures, said in the words of where the
// server was given. A deadline names the knob that raises it: the flag for a
// server given on the command line, the catalog key (and the flag) for one of
// a catalog, never the key of a file the server is not in. Messages are kept
// whole: a terminal wraps them, nothing cuts them.

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
const SILENT = /did not answer \S+ within \d+ ms/;

/** Why a server failed at boot, whole, with what to do next. */
export function startMessage(report: FailedReport, knobs: Knobs | undefined): string {
  const text = printable(report.message.replace(/\s+/g, " ").trim());
  if (SILENT.test(text)) {
    const remote = isRemote(report);
    const advice = `check that ${
      remote ? "its url serves MCP" : "its command starts an MCP server on stdio"
    }, or raise the deadline with ${knobs?.connect ?? "--connect-timeout"}`;
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
    }; raise the deadline with ${knobs?.call ?? "--timeout"}`;
  }
  return printable(error.message.replace(/\s+/g, " ").trim());
}
