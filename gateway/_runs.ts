// Private to gateway/: the runs a session starts for its host, and the
// tools/call requests of either era that start them. `search_tools` and
// `describe_tool` are answered from the harness at once, and start code mode
// (harness.prepareRunner) after their answer: a model that looks tools up is
// about to write a program, and its checker and sandbox load while it does.
// `run_program` runs the host's program with the asker of its request. A
// 2026-07-28 host's run is parked on an `input_required` result while its
// questions wait for the host to retry the call with its answers and the
// run's `requestState`, or for `parkedRunTimeoutMs` to pass; at most
// MAX_PARKED_RUNS wait so, the one parked longest ago given up for a newer
// one; at most MAX_SESSION_RUNS run at once. A question its server withdraws leaves the parked run's questions at
// once: no later input_required carries it.
//
// Lifecycle: the session owns its runs. Each is at every moment either the
// run of one request (in `#running`, under the request's id) or parked (in
// `#parked`, under its requestState). `cancel()` aborts the run of one
// request (its calls are cancelled with it, and the request gets no answer);
// a request whose id names a run still going cancels that run, since its id
// names the newer one from then on; `abort()` aborts every run and unparks
// the parked ones, answering their questions as unanswered; `settled()`
// settles once every run has ended.

import { isJsonObject, type JsonObject, type JsonValue, stringifyJson } from "../codec/json.ts";
import {
  encodeError,
  encodeNotification,
  encodeResult,
  type Id,
  INVALID_PARAMS,
} from "../codec/jsonrpc.ts";
import { describeValue, quote } from "../codec/quote.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type {
  Approval,
  ApprovalRequest,
  CallProgress,
  Harness,
  RunReport,
} from "../harness/mod.ts";
import { searchProblem } from "../runner/host/discovery.ts";
import { MAX_APPROVAL_ARGS_CHARS, MAX_PARKED_RUNS, MAX_SESSION_RUNS } from "./limits.ts";
import { askingHandlers, capable, type HostAsker, noHost } from "./_asking.ts";
import type { GatewayOptions, Send } from "./options.ts";
import { errorResult, type GatewayResult, runResult, searchResult, tooManyRuns } from "./tools.ts";
import { describedTool } from "./_described.ts";

// Why a question its server withdrew has no answer.
const WITHDRAWN = "the server withdrew its question";
// Why a run parked longest ago is stopped once MAX_PARKED_RUNS others wait.
const GIVEN_UP = "The run was given up for a newer one past MAX_PARKED_RUNS";
// Why a run stopped (cancelled, given up, past its wait) asks its host nothing more.
const STOPPED = "the run was stopped before it asked";

// A run parked on an input_required result, waiting for its host to retry.
type Parked = {
  state: string;
  controller: AbortController;
  asks: Map<string, { request: JsonObject; resolve: (answer: Result<JsonObject, string>) => void }>;
  nextAsk: number;
  /** Answers the request now waiting on this run, when one is. */
  responder: ((result: JsonObject) => void) | undefined;
  /** The run's result, when it ended while no request waited. */
  final: JsonObject | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Where the run's progress goes: the request that holds the run, when it
   * asked for progress. An answered request's token is dead, so a run parked
   * on an input_required result reports to nobody until a retry holds it.
   */
  progress: ((message: string) => void) | undefined;
};

/** What a session's runs are given: its options, and how its results are marked complete. */
export type RunSettings = {
  options: GatewayOptions;
  /** How long a parked run waits for its host, in milliseconds. */
  parkedMs: number;
  /** A 2026-07-28 result marked complete, carrying the gateway's `serverInfo`. */
  complete: (result: JsonObject) => JsonObject;
};

/** The runs of one host's session, running or parked, and the calls that start them. */
export class SessionRuns {
  #boot: () => Harness;
  #options: GatewayOptions;
  #complete: (result: JsonObject) => JsonObject;
  #running = new Map<string, AbortController>();
  #parked = new Map<string, Parked>();
  #work = new Set<Promise<void>>();
  #parkedMs: number;

  /** Runs whose harness `booted` gives once the servers have started. */
  constructor(booted: () => Harness, settings: RunSettings) {
    this.#boot = booted;
    this.#options = settings.options;
    this.#complete = settings.complete;
    this.#parkedMs = settings.parkedMs;
  }

  // Only reached once the boot settled (see the session's #afterBoot).
  get #booted(): Harness {
    return this.#boot();
  }

  /** How many runs are under way (parked ones included). */
  get running(): number {
    return this.#work.size;
  }

  /** Aborts the run of the request `id`, if one runs. */
  cancel(id: Id): void {
    this.#running.get(key(id))?.abort(new Error("The host cancelled the call"));
  }

  /** Aborts every run, and unparks the parked ones, their questions unanswered. */
  abort(): void {
    for (const controller of this.#running.values()) {
      controller.abort(new Error("The host left"));
    }
    for (const parked of this.#parked.values()) {
      parked.controller.abort(new Error("The host left"));
      this.#unpark(parked, "the host left before answering");
    }
  }

  /** Settles once every run has ended. */
  async settled(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /** One tool call of either era; `answer` sends its result unless it was cancelled. */
  call(
    id: Id,
    params: JsonObject,
    send: Send,
    asker: HostAsker,
    answer: (result: JsonObject) => void,
  ): void {
    const name = params.name;
    const args = params.arguments ?? {};
    if (typeof name !== "string") {
      send(encodeError(id, {
        code: INVALID_PARAMS,
        message: `Invalid params: tool "name" is ${describeValue(name)}, not a string`,
      }));
      return;
    }
    if (!isJsonObject(args)) {
      answer(errorResult(`The arguments of ${quote(name)} are not an object`));
      return;
    }
    switch (name) {
      case "search_tools": {
        const problem = searchProblem(args.query, args.limit);
        if (problem !== undefined) return answer(errorResult(problem));
        const query = args.query as string;
        const limit = args.limit as number | undefined;
        answer(searchResult(
          query,
          this.#booted.search(query, limit === undefined ? {} : { limit }),
        ));
        this.#booted.prepareRunner();
        return;
      }
      case "describe_tool": {
        const { server, tool } = args;
        if (typeof server !== "string" || typeof tool !== "string") {
          return answer(errorResult(
            'describe_tool needs "server" and "tool", both strings, as search_tools names them',
          ));
        }
        const described = this.#booted.describe(server, tool);
        if (!described.ok) answer(errorResult(described.error.message));
        else {
          const data = describedTool(this.#booted, server, tool);
          answer({ ...text(described.value), ...(data && { structuredContent: data }) });
        }
        this.#booted.prepareRunner();
        return;
      }
      case "run_program": {
        if (typeof args.code !== "string") {
          return answer(errorResult(
            'run_program needs "code": the whole program as a string, ending in export default',
          ));
        }
        if (this.#work.size >= MAX_SESSION_RUNS) return answer(tooManyRuns());
        const controller = new AbortController();
        const progress = progressSink(params, send);
        this.#claim(id, controller);
        this.#track(
          this.#runProgram(args.code, asker, controller.signal, progress).then((result) => {
            this.#release(id, controller);
            if (!controller.signal.aborted) answer(result);
          }),
        );
        return;
      }
      default:
        send(encodeError(id, {
          code: INVALID_PARAMS,
          message: `Unknown tool: ${quote(name)}; this server has search_tools, ` +
            "describe_tool and run_program",
        }));
    }
  }

  // A 2026-07-28 tools/call: a new call, or the retry of a parked run with its answers.
  modernCall(id: Id, params: JsonObject, caps: JsonObject, send: Send): void {
    const state = params.requestState;
    const respond = (result: JsonObject) =>
      send(encodeResult(id, result.resultType === undefined ? this.#complete(result) : result));
    if (state !== undefined) {
      const parked = typeof state === "string" ? this.#parked.get(state) : undefined;
      if (parked === undefined) {
        respond(errorResult(
          `Cannot continue the run: its requestState ${
            describeValue(state)
          } names no run waiting for answers (it ended, waited past ${this.#parkedMs} ms, ` +
            `or was given up for a newer one once MAX_PARKED_RUNS (${MAX_PARKED_RUNS}) runs ` +
            "waited); run the program again",
        ));
        return;
      }
      // The run is this request's now, no longer parked, and so is its progress.
      this.#parked.delete(parked.state);
      parked.progress = progressSink(params, send);
      this.#resume(parked, params.inputResponses);
      this.#claim(id, parked.controller);
      this.#attach(parked, (result) => {
        this.#release(id, parked.controller);
        if (!parked.controller.signal.aborted) respond(result);
      });
      return;
    }
    const args = params.arguments;
    const code = isJsonObject(args) ? args.code : undefined;
    if (params.name !== "run_program" || typeof code !== "string") {
      this.call(id, params, send, noHost, respond);
      return;
    }
    if (this.#work.size >= MAX_SESSION_RUNS) return respond(tooManyRuns());
    // Counted among the parked runs only once it asks (#flush): a run that asks nothing never is.
    const parked: Parked = {
      state: crypto.randomUUID(),
      controller: new AbortController(),
      asks: new Map(),
      nextAsk: 0,
      responder: undefined,
      final: undefined,
      timer: undefined,
      progress: progressSink(params, send),
    };
    const asker: HostAsker = {
      can: (question) => capable(caps, question),
      ask: (method, askParams, signal) => {
        if (signal?.aborted) return Promise.resolve(err(WITHDRAWN));
        if (parked.controller.signal.aborted) return Promise.resolve(err(STOPPED));
        const name = `ask-${parked.nextAsk++}`;
        const { promise, resolve } = Promise.withResolvers<Result<JsonObject, string>>();
        // Withdrawn by its server: never put to the host from now on, and an
        // answer the host already sends for it is not asked for any more.
        const withdraw = () => {
          if (parked.asks.delete(name)) resolve(err(WITHDRAWN));
        };
        signal?.addEventListener("abort", withdraw, { once: true });
        parked.asks.set(name, {
          request: { method, params: askParams },
          resolve: (answer) => {
            signal?.removeEventListener("abort", withdraw);
            resolve(answer);
          },
        });
        this.#flush(parked);
        return promise;
      },
      // A parked run's questions are unparked with it, and a 2026-07-28 host holds no request.
      drop: () => {},
    };
    this.#claim(id, parked.controller);
    this.#attach(parked, (result) => {
      this.#release(id, parked.controller);
      if (!parked.controller.signal.aborted) respond(result);
    });
    // The run's progress goes wherever the request holding it says at the time.
    const progress = (message: string) => parked.progress?.(message);
    this.#track(
      this.#runProgram(code, asker, parked.controller.signal, progress).then((result) => {
        if (parked.responder !== undefined) {
          const responder = parked.responder;
          this.#unpark(parked, "the run ended");
          responder(result);
        } else {
          parked.final = result;
        }
      }),
    );
  }

  #attach(parked: Parked, responder: (result: JsonObject) => void): void {
    clearTimeout(parked.timer);
    if (parked.final !== undefined) {
      const final = parked.final;
      this.#unpark(parked, "the run ended");
      responder(final);
      return;
    }
    parked.responder = responder;
    this.#flush(parked);
  }

  // Questions waiting and a request to carry them: answer it input_required, and wait, parked.
  #flush(parked: Parked): void {
    const responder = parked.responder;
    if (responder === undefined || parked.asks.size === 0) return;
    parked.responder = undefined;
    parked.progress = undefined;
    if (this.#parked.size >= MAX_PARKED_RUNS) this.#giveUpOldest();
    this.#parked.set(parked.state, parked);
    const inputRequests: JsonObject = {};
    for (const [name, ask] of parked.asks) inputRequests[name] = ask.request;
    responder({ resultType: "input_required", inputRequests, requestState: parked.state });
    parked.timer = setTimeout(() => {
      this.#unpark(parked, `the host did not answer within ${this.#parkedMs} ms`);
      parked.controller.abort(new Error("The host did not come back"));
    }, this.#parkedMs);
  }

  #resume(parked: Parked, responses: JsonValue | undefined): void {
    if (!isJsonObject(responses)) return;
    for (const [name, response] of Object.entries(responses)) {
      const ask = parked.asks.get(name);
      if (ask === undefined) continue;
      parked.asks.delete(name);
      ask.resolve(
        isJsonObject(response) ? ok(response) : err("the host's answer is not an object"),
      );
    }
  }

  #unpark(parked: Parked, why: string): void {
    clearTimeout(parked.timer);
    if (this.#parked.get(parked.state) === parked) this.#parked.delete(parked.state);
    for (const ask of parked.asks.values()) ask.resolve(err(why));
    parked.asks.clear();
  }

  // No host can be told apart from another without a session, so the parked runs of every
  // 2026-07-28 host share one bound, kept by giving up the run parked longest ago: a host whose
  // runs wait unanswered cannot keep another's newer run from asking.
  #giveUpOldest(): void {
    const [oldest] = this.#parked.values();
    if (oldest === undefined) return;
    this.#unpark(
      oldest,
      `it was given up: ${MAX_PARKED_RUNS} runs waited for their hosts' answers ` +
        "(MAX_PARKED_RUNS), and it had waited longest",
    );
    oldest.controller.abort(new Error(GIVEN_UP));
  }

  // The run of request `id` is `controller`'s; one its id named until now is cancelled.
  #claim(id: Id, controller: AbortController): void {
    const older = this.#running.get(key(id));
    if (older !== undefined && older !== controller) {
      older.abort(new Error("The host reused the request's id for another call"));
    }
    this.#running.set(key(id), controller);
  }

  // The run of request `id` has ended: its entry goes, unless the id names a newer run by now.
  #release(id: Id, controller: AbortController): void {
    if (this.#running.get(key(id)) === controller) this.#running.delete(key(id));
  }

  async #runProgram(
    code: string,
    asker: HostAsker,
    signal: AbortSignal,
    progress: ((message: string) => void) | undefined,
  ): Promise<GatewayResult> {
    const { deadlineMs, maxOutputBytes } = this.#options;
    progress?.("type-checking and running the program");
    try {
      const report: RunReport = await this.#booted.run(code, {
        signal,
        ...askingHandlers(asker),
        ...(deadlineMs === undefined ? {} : { timeoutMs: deadlineMs }),
        ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
        ...(this.#options.approve === true
          ? { approve: (request: ApprovalRequest) => this.#approve(request, asker, progress) }
          : {}),
        ...(progress === undefined ? {} : {
          onProgress: (callId: number, reported: CallProgress) =>
            progress(`call ${callId + 1}: ${progressText(reported)}`),
        }),
      });
      return runResult(report);
    } catch (error) {
      // A harness that throws (retired under us, say) still answers the host.
      return errorResult(
        `The program could not be run: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      // The harness settled whatever the run still asked: the host need not answer it any more.
      asker.drop("the run ended before the host answered");
    }
  }

  // --approve: a call its tool does not mark read-only is put to the host as a form.
  async #approve(
    request: ApprovalRequest,
    asker: HostAsker,
    progress: ((message: string) => void) | undefined,
  ): Promise<Approval> {
    if (request.annotations.readOnlyHint === true) return true;
    const named = toolNamed(request.server, request.tool);
    if (!asker.can("form")) {
      return {
        allow: false,
        reason: `--approve asks the host before ${named}, which is not marked read-only, ` +
          "but this host declared no form elicitation capability, so it cannot be asked; " +
          "use a host that supports elicitation, or serve without --approve",
      };
    }
    const args = stringifyJson(request.args);
    const summary = quote(
      args.ok ? args.value : "(arguments JSON cannot say)",
      MAX_APPROVAL_ARGS_CHARS,
    );
    progress?.(`asking the host to approve ${named}`);
    const answer = await asker.ask("elicitation/create", {
      message: `Allow the program to call ${quote(request.tool)} of the MCP server ` +
        `${JSON.stringify(request.server)} with the arguments ${summary}?`,
      requestedSchema: { type: "object", properties: {} },
    });
    if (!answer.ok) return { allow: false, reason: `the host could not be asked: ${answer.error}` };
    const action = answer.value.action;
    if (action === "accept") return true;
    return {
      allow: false,
      reason: `the host's user ${action === "decline" ? "declined" : "did not approve"} ${named}`,
    };
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
  }
}

/** The key of a request's id in a session's maps: ids 1 and "1" are two requests. */
export function key(id: Id): string {
  return `${typeof id === "string" ? "s" : "n"}:${id}`;
}

// A tool's name is its server's text: shown as it is when quoting would change nothing in it
// (no escape, no cut), quoted otherwise.
function toolNamed(server: string, tool: string): string {
  const quoted = quote(tool);
  return quoted === `"${tool}"` ? `${server}.${tool}` : `${server}.${quoted}`;
}

function text(body: string): GatewayResult {
  return { content: [{ type: "text", text: body }] };
}

// The host's progressToken, when it asked for progress: numbered steps with what is going on.
function progressSink(params: JsonObject, send: Send): ((message: string) => void) | undefined {
  const meta = params._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  let step = 0;
  return (message) =>
    send(encodeNotification("notifications/progress", {
      progressToken: token,
      progress: ++step,
      message,
    }));
}

function progressText(progress: CallProgress): string {
  if (progress.kind === "task") {
    return `task ${progress.status}${
      progress.message === undefined ? "" : `: ${progress.message}`
    }`;
  }
  const of = progress.total === undefined ? "" : ` of ${progress.total}`;
  return `${progress.progress}${of}${
    progress.message === undefined ? "" : `: ${progress.message}`
  }`;
}
