// Private to client/: a client's requests of tools: the listing, and by it
// which tools run as tasks (by the listing of the generation that answered);
// a call made as a task or as rounds that may ask for input (2026-07-28
// `input_required`); and a call made once more after the user visited the
// URLs a server asked for (-32042). Each send goes to the client's
// generation of that moment.

import { compactJson, isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import type { CallToolResult } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { callTimedOut, type ClientError } from "./thread/outcomes.ts";
import type { InputRequired } from "./thread/era.ts";
import type { ServedRequests } from "./thread/asked.ts";
import { MAX_INPUT_ROUNDS, MAX_SERVER_REQUESTS_IN_FLIGHT } from "../settings/mod.ts";
import { quote } from "../codec/quote.ts";
import { callParams } from "./_checks.ts";
import { decodeCallResult, listFresh } from "./_results.ts";
import type { RequestHost } from "./_lists.ts";
import { type Follow, followOf } from "./_progress.ts";
import { type ServerAnswers, URL_ELICITATION_REQUIRED } from "./_answers.ts";
import { type TaskSupport, taskTools } from "./tasks.ts";
import type { ToolListing } from "./tool_listing.ts";
import type { CallOptions } from "./client_options.ts";

/** What a client's tool requests need of it, besides what every request does. */
export type ToolHost = RequestHost & {
  /** Call the tools whose `taskSupport` is `"optional"` as tasks too, unless a call says. */
  optionalTasks: boolean;
  /** What the server's requests are answered with. */
  served: ServedRequests;
  /** The answers to the server's requests, by the harness's handlers. */
  answers: ServerAnswers;
};

/** One round of a call that may ask for input: its result, or what it asks. */
type CallRound =
  | { kind: "complete"; result: CallToolResult }
  | { kind: "input"; asked: InputRequired };

/** The tool requests of one client. */
export class ToolRequests {
  #host: ToolHost;
  #taskTools = new Map<string, TaskSupport>();

  /** The requests of the client `host` describes. */
  constructor(host: ToolHost) {
    this.#host = host;
  }

  /** Lists every tool, with how long the listing stays fresh (see `Client.listing`). */
  listing(options: { timeoutMs?: number } = {}): Promise<Result<ToolListing, ClientError>> {
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const generation = this.#host.generation();
    const info = generation.info;
    // A server that offers prompts, resources or skills but declared no tools lists none.
    if (generation.state === "ready" && !isJsonObject(info?.capabilities.tools)) {
      return Promise.resolve(ok({ tools: [] }));
    }
    const page = (params: string, ms: number) =>
      generation.request("tools/list", params, ms, undefined);
    return listFresh(this.#host.server, page, { timeoutMs, era: generation.era }).then((listed) => {
      // Which tools run as tasks, by the listing of the generation that answered.
      if (listed.ok && generation === this.#host.generation()) {
        this.#taskTools = taskTools(info, listed.value.tools);
      }
      return listed;
    });
  }

  /** Calls one tool (see `Client.callTool`). */
  call(
    name: string,
    args: JsonObject,
    options: CallOptions,
  ): Promise<Result<CallToolResult, ClientError>> {
    const params = callParams(name, args);
    const timeoutMs = this.#host.timeout(options.timeoutMs);
    const support = this.#taskTools.size === 0 ? undefined : this.#taskTools.get(name);
    const task = support === "required" ||
      (support === "optional" && (options.task ?? this.#host.optionalTasks));
    const follow = followOf(options, task);
    // A task's input arrives by its status, not by its result.
    const send = task
      ? () =>
        this.#host.generation().request(
          "tools/call",
          params,
          timeoutMs,
          options.signal,
          this.#decodeCall,
          follow,
        )
      : () => this.#callRounds(name, params, timeoutMs, options.signal, follow);
    if (!this.#host.served.elicit) return send();
    return send().then(async (called) => {
      // A server that needs the user to visit a URL first says so (-32042):
      // once onElicit accepted every one, the call is made once more.
      if (called.ok || called.error.kind !== "server_error") return called;
      const error = called.error.error;
      if (error.code !== URL_ELICITATION_REQUIRED) return called;
      const satisfied = await this.#host.answers.satisfyUrlRequired(
        error.data,
        name,
        options.signal,
      );
      return satisfied ? send() : called;
    });
  }

  /**
   * A call whose result may ask for input (2026-07-28 `input_required`):
   * each input request answered by the handlers, the call made again with
   * the `inputResponses` and the echoed `requestState` (a new request, so a
   * new JSON-RPC id), at most `MAX_INPUT_ROUNDS` rounds, all within the
   * call's deadline. The deadline is the server's: the time the handlers
   * take between rounds (a person answering, a model sampling), when no
   * request is open, is not counted, and the caller's signal withdraws them.
   */
  async #callRounds(
    tool: string,
    params: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    follow: Follow | undefined,
  ): Promise<Result<CallToolResult, ClientError>> {
    const started = performance.now();
    // The time spent in the handlers, which the deadline does not count.
    let answering = 0;
    let sent = params;
    // Every round goes to the server that asked: one gone refuses it, saying why.
    const generation = this.#host.generation();
    for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
      const left = Math.ceil(timeoutMs - (performance.now() - started - answering));
      if (left <= 0) return err(callTimedOut(this.#host.server, "tools/call", timeoutMs, false));
      const answered = await generation.request(
        "tools/call",
        sent,
        left,
        signal,
        this.#decodeRound,
        follow,
      );
      if (!answered.ok) {
        // A later round's deadline is what was left of the call's: said as the call's.
        const error = answered.error;
        if (round > 0 && error.kind === "call_timed_out" && error.timeoutMs === left) {
          return err(callTimedOut(this.#host.server, "tools/call", timeoutMs, error.aborted));
        }
        return answered;
      }
      const value = answered.value;
      if (value.kind === "complete") return ok(value.result);
      const asked = Object.entries(value.asked.inputRequests);
      if (asked.length > MAX_SERVER_REQUESTS_IN_FLIGHT) {
        // As many as a legacy server may ask at once: a round past it is a flood, not a question.
        return err({
          kind: "result_malformed",
          method: "tools/call",
          message: `Server "${this.#host.server}" asked for ${asked.length} inputs in one round ` +
            `of tool ${JSON.stringify(tool)}, more than MAX_SERVER_REQUESTS_IN_FLIGHT ` +
            `(${MAX_SERVER_REQUESTS_IN_FLIGHT}); none was asked and the call is given up`,
        });
      }
      const responses: JsonObject = {};
      const asking = performance.now();
      // The handlers are withdrawn when the caller gives up or the server goes;
      // the next round's request then settles the call as either says.
      const withdrawn = withdrawnBy(signal, generation.gone);
      try {
        for (const [key, request] of asked) {
          if (withdrawn.signal.aborted) break;
          const response = await this.#host.answers.inputResponse(request, tool, withdrawn.signal);
          if (!response.ok) {
            return err({
              kind: "result_malformed",
              method: "tools/call",
              message: `Cannot answer input request ${quote(key)} of server ` +
                `"${this.#host.server}": ${response.error}`,
            });
          }
          responses[key] = response.value;
        }
      } finally {
        withdrawn.release();
      }
      answering += performance.now() - asking;
      const extra: JsonObject = { inputResponses: responses };
      if (value.asked.requestState !== undefined) extra.requestState = value.asked.requestState;
      sent = `${params.slice(0, -1)},${compactJson(extra).slice(1)}`;
    }
    return err({
      kind: "result_malformed",
      method: "tools/call",
      message:
        `Server "${this.#host.server}" still asked for input after ${MAX_INPUT_ROUNDS} rounds ` +
        `of tool ${JSON.stringify(tool)}; the call is given up`,
    });
  }

  // Decodes one round of a call that may ask for input.
  #decodeRound = (value: JsonValue): Result<CallRound, ClientError> => {
    const asked = this.#host.generation().era.inputRequired(value);
    if (asked !== undefined) return ok({ kind: "input", asked });
    const decoded = this.#decodeCall(value);
    return decoded.ok ? ok({ kind: "complete", result: decoded.value }) : decoded;
  };

  // Decodes a tools/call result in the step that settles the call.
  #decodeCall = (value: JsonValue) =>
    decodeCallResult(this.#host.server, value, this.#host.generation().era);
}

/**
 * A signal aborted by either of two, and the release of what it listens to:
 * `AbortSignal.any` would leave an entry on each source for every round of
 * a call, for as long as the source (a generation) lives.
 */
function withdrawnBy(
  caller: AbortSignal | undefined,
  gone: AbortSignal,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const sources = caller === undefined ? [gone] : [caller, gone];
  for (const source of sources) {
    if (source.aborted) controller.abort();
    else source.addEventListener("abort", abort, { once: true });
  }
  return {
    signal: controller.signal,
    release: () => {
      for (const source of sources) source.removeEventListener("abort", abort);
    },
  };
}
