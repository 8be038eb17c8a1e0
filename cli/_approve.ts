// Private to cli/: `run --approve`, the approval hook that asks a person on
// the terminal about each call of the program that its server does not mark
// read-only (`readOnlyHint: true`: the server's claim, taken as given, and
// said once per tool). A program's read of a resource is not asked about
// either: by the protocol's rule a read changes nothing (said once per
// server). The library asks the hook one call at a time, in the
// order the program made them, so one question is open at a time; the
// question shows the server, the tool, the arguments (cut to a readable
// size) and the hints as the server gave them, all made printable.
//
// Time: the library counts the hook's time in the call's deadline and in the
// run's, and a late answer is a denial. So the question says how long it has
// (the least of the two, less a margin, so that the denial is the question's
// own and says why), and `run --approve` on a terminal gives the deadlines
// that were not set (by --timeout, --deadline or the catalog)
// APPROVE_CALL_TIMEOUT_MS and APPROVE_RUN_TIMEOUT_MS. A call that waited its
// turn behind a question may run out of time before it is asked; the next
// question then says that the one left open was given up.
//
// Lines: the terminal is read from the moment the hook is made until the run
// ends; a line typed while no question is open is dropped, so that a key
// typed ahead never answers a later question. Without a terminal nothing is
// asked: every call not marked read-only is denied at once, saying why.

import { compactJson, type JsonObject } from "../codec/json.ts";
import type { Approval, ApprovalRequest, Approve } from "../harness/mod.ts";
import type { Output } from "./_output.ts";
import { duration, printableLine } from "./_render.ts";

/** Each call's deadline under `run --approve` on a terminal, when none was set: 5 minutes. */
export const APPROVE_CALL_TIMEOUT_MS = 300_000;
/** The program's deadline under `run --approve` on a terminal, when none was set: 15 minutes. */
export const APPROVE_RUN_TIMEOUT_MS = 900_000;
/** How much sooner than the deadline a question gives up, so that its denial says why. */
export const APPROVE_MARGIN_MS = 1_000;
/** The most characters of a call's arguments a question shows. */
export const APPROVE_ARGS_CHARS = 400;
/** The most characters of a tool's hints a question shows. */
export const APPROVE_HINTS_CHARS = 300;

/** Lines typed on the terminal, each to the question open when it arrives. */
export type Lines = {
  /** The next line typed from now on; `null` once the input ended. */
  next(): Promise<string | null>;
  /** The question that asked for the next line is given up: the line is dropped. */
  forget(): void;
};

/** Reads lines of the terminal (standard input) as {@linkcode Lines} says. */
export class TerminalLines implements Lines {
  #waiter: ((line: string | null) => void) | undefined;
  #ended = false;

  /** Starts reading `read` (standard input by default) at once. */
  constructor(read: (buffer: Uint8Array) => Promise<number | null> = (b) => Deno.stdin.read(b)) {
    void this.#loop(read);
  }

  next(): Promise<string | null> {
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiter = resolve);
  }

  forget(): void {
    this.#waiter = undefined;
  }

  async #loop(read: (buffer: Uint8Array) => Promise<number | null>): Promise<void> {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(1024);
    let pending = "";
    for (;;) {
      let count: number | null;
      try {
        count = await read(buffer);
      } catch {
        count = null;
      }
      if (count === null) break;
      pending += decoder.decode(buffer.subarray(0, count), { stream: true });
      let end: number;
      while ((end = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter?.(line);
      }
    }
    this.#ended = true;
    this.#waiter?.(null);
    this.#waiter = undefined;
  }
}

/** A hook and the end of its asking. */
export type Asking = {
  approve: Approve;
  /** The run is over: a question still open is closed, and nothing more is asked. */
  close(): void;
};

/** What the terminal's hook needs. */
export type TerminalOptions = {
  output: Output;
  lines: Lines;
  /** Each server's call deadline, in milliseconds. */
  callTimeoutMs: (server: string) => number;
  /** The run's deadline, in milliseconds from now. */
  runTimeoutMs: number;
  /** The clock, in milliseconds (monotonic). */
  now?: () => number;
};

type Open = { give: (approval: Approval) => void; call: string };

function isReadOnly(request: ApprovalRequest): boolean {
  return request.annotations.readOnlyHint === true;
}

function said(value: JsonObject, limit: number): string {
  const text = printableLine(compactJson(value));
  const points = [...text];
  return points.length <= limit
    ? text
    : `${points.slice(0, limit).join("")}… (${points.length - limit} more characters)`;
}

/** The hook of `run --approve` on a terminal (see the module doc). */
export function terminalApproval(options: TerminalOptions): Asking {
  const { output, lines } = options;
  const now = options.now ?? (() => performance.now());
  const runEndsAt = now() + options.runTimeoutMs;
  const always = new Set<string>();
  const noted = new Set<string>();
  let open: Open | undefined;
  let ended: string | undefined;

  const close = (why: string) => {
    const left = open;
    open = undefined;
    if (left === undefined) return;
    lines.forget();
    output.detail("");
    output.answered();
    output.warn(`${left.call} was not answered: ${why}; it is denied`);
    left.give({ allow: false, reason: `not answered on the terminal: ${why}` });
  };

  const approve: Approve = (request) => {
    const call = `${request.server}.${printableLine(request.tool)}`;
    if (request.resource !== undefined) {
      if (!noted.has(call)) {
        noted.add(call);
        output.progress(
          `reads of ${request.server}'s resources are not asked about: a read changes nothing`,
        );
      }
      return true;
    }
    if (isReadOnly(request)) {
      if (!noted.has(call)) {
        noted.add(call);
        output.progress(`${call} is not asked about: its server marks it read-only (readOnlyHint)`);
      }
      return true;
    }
    if (always.has(call)) return true;
    if (ended !== undefined) return { allow: false, reason: ended };
    // A question still open was given up by the library, its time run out while it waited.
    close("its deadline passed while it waited its turn");
    const left = Math.min(options.callTimeoutMs(request.server), runEndsAt - now()) -
      APPROVE_MARGIN_MS;
    if (left <= 0) {
      return {
        allow: false,
        reason: "no time was left to ask on the terminal before its deadline",
      };
    }
    const asked = Promise.withResolvers<Approval>();
    open = { give: asked.resolve, call };
    const timer = setTimeout(() => close(`no answer within ${duration(left)}`), left);
    const hints = Object.keys(request.annotations).length === 0
      ? "none"
      : said(request.annotations, APPROVE_HINTS_CHARS);
    output.detail(output.paint(`Call ${call}?`, "head", "err"));
    output.detail(`  arguments: ${said(request.args, APPROVE_ARGS_CHARS)}`);
    output.detail(`  hints, the server's claims: ${hints}`);
    output.prompt(
      output.paint(
        `Allow it? [y] yes  [a] yes to every ${call} of this run  [N] no  ` +
          `(${duration(left)} to answer): `,
        "head",
        "err",
      ),
    );
    const mine = open;
    void lines.next().then((line) => {
      if (open !== mine) return;
      open = undefined;
      output.answered();
      if (line === null) {
        ended = "the terminal's input ended, so nothing more can be asked";
        output.detail("");
        output.warn(
          `the terminal's input ended: ${call} and every later call asked about is denied`,
        );
        return asked.resolve({ allow: false, reason: ended });
      }
      const answer = line.trim().toLowerCase();
      if (answer === "a" || answer === "always") always.add(call);
      if (answer === "y" || answer === "yes" || always.has(call)) return asked.resolve(true);
      asked.resolve({ allow: false, reason: "the user said no on the terminal" });
    });
    return asked.promise.finally(() => clearTimeout(timer));
  };

  return {
    approve,
    close: () => {
      close("the run ended first");
      ended ??= "the run ended";
    },
  };
}

/**
 * The hook of `run --approve` without a terminal: a call not marked
 * read-only is denied at once, saying `why` no one could be asked.
 */
export function deniedWithoutTerminal(why: string): Asking {
  const reason = `no terminal to ask on (${why}); run it on a terminal to be asked`;
  return {
    approve: (request) =>
      request.resource !== undefined || isReadOnly(request) || { allow: false, reason },
    close: () => {},
  };
}
