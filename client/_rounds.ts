// Private to client/: a request whose result may ask for input (2026-07-28
// `input_required`, which a server may answer to `tools/call`,
// `prompts/get` and `resources/read`): each input request answered by the
// harness's handlers, the request made again with the `inputResponses` and
// the echoed `requestState` (a new request, so a new JSON-RPC id), at most
// `MAX_INPUT_ROUNDS` rounds, all within the request's deadline; and a
// request made once more after the user visited the URLs its server asked
// for (-32042, which a server may answer to any request it cannot serve
// until then).

import { compactJson, type JsonObject, type JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { quote } from "../codec/quote.ts";
import { MAX_INPUT_ROUNDS, MAX_SERVER_REQUESTS_IN_FLIGHT } from "../settings/mod.ts";
import { callTimedOut, type ClientError } from "./thread/outcomes.ts";
import type { InputRequired } from "./thread/era.ts";
import type { Generation } from "./_generation.ts";
import type { Decode } from "./_tickets.ts";
import type { Follow } from "./_progress.ts";
import { type ServerAnswers, URL_ELICITATION_REQUIRED } from "./_answers.ts";

/** The requests a server may answer with `input_required`. */
export type AskingMethod = "tools/call" | "prompts/get" | "resources/read";

/** One request that may ask for input, and what its rounds are answered with. */
export type RoundsRequest<T> = {
  /** The server's name, for messages. */
  server: string;
  /** The handlers that answer the input requests. */
  answers: ServerAnswers;
  /** The generation every round goes to: the server that asked. */
  generation: Generation;
  method: AskingMethod;
  /** What the request is of, for messages: `tool "x"`, `prompt "p"`, `resource "u"`. */
  subject: string;
  /** The request's params as JSON text (an object). */
  params: string;
  /** The request's deadline, the handlers' time between rounds not counted. */
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Decodes the complete result. */
  decode: Decode<T>;
  follow?: Follow | undefined;
  /** The tool's name when the request is a call, given to the handlers. */
  tool?: string | undefined;
};

/** One round: the complete result, or what it asks. */
type Round<T> = { kind: "complete"; result: T } | { kind: "input"; asked: InputRequired };

/**
 * Makes a request whose result may ask for input, round by round (see the
 * module doc). The deadline is the server's: the time the handlers take
 * between rounds (a person answering, a model sampling), when no request is
 * open, is not counted, and the caller's signal withdraws them. A round of
 * the wrong shape, one asking more than `MAX_SERVER_REQUESTS_IN_FLIGHT`
 * inputs, or a request still asking after `MAX_INPUT_ROUNDS`, fails as
 * `result_malformed`; a question withdrawn (the caller gave up, the server
 * went) ends the request as the next round's request says.
 */
export async function requestRounds<T>(request: RoundsRequest<T>): Promise<Result<T, ClientError>> {
  const { server, generation, method, subject, params, timeoutMs, signal } = request;
  const decodeRound = (value: JsonValue): Result<Round<T>, ClientError> => {
    const asked = generation.era.inputRequired(value);
    if (asked !== undefined && !asked.ok) {
      return err({
        kind: "result_malformed",
        method,
        message: `Server "${server}" answered ${method} of ${subject} with a malformed ` +
          `input_required result: ${asked.error}; the ${method} is given up`,
      });
    }
    if (asked !== undefined) return ok({ kind: "input", asked: asked.value });
    const decoded = request.decode(value);
    return decoded.ok ? ok({ kind: "complete", result: decoded.value }) : decoded;
  };
  const started = performance.now();
  // The time spent in the handlers, which the deadline does not count.
  let answering = 0;
  let sent = params;
  for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
    const left = Math.ceil(timeoutMs - (performance.now() - started - answering));
    if (left <= 0) return err(callTimedOut(server, method, timeoutMs, false));
    const answered = await generation.request(
      method,
      sent,
      left,
      signal,
      decodeRound,
      request.follow,
    );
    if (!answered.ok) {
      // A later round's deadline is what was left of the request's: said as the request's.
      const error = answered.error;
      if (round > 0 && error.kind === "call_timed_out" && error.timeoutMs === left) {
        return err(callTimedOut(server, method, timeoutMs, error.aborted));
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
        method,
        message: `Server "${server}" asked for ${asked.length} inputs in one round of ` +
          `${subject}, more than MAX_SERVER_REQUESTS_IN_FLIGHT ` +
          `(${MAX_SERVER_REQUESTS_IN_FLIGHT}); none was asked and the ${method} is given up`,
      });
    }
    const responses: JsonObject = {};
    const asking = performance.now();
    // The handlers are withdrawn when the caller gives up or the server goes;
    // the next round's request then settles the request as either says.
    const withdrawn = withdrawnBy(signal, generation.gone);
    try {
      for (const [key, input] of asked) {
        if (withdrawn.signal.aborted) break;
        const response = await request.answers.inputResponse(input, request.tool, withdrawn.signal);
        // A question withdrawn is no fault of its answer: the next round's request says why.
        if (withdrawn.signal.aborted) break;
        if (!response.ok) {
          return err({
            kind: "result_malformed",
            method,
            message: `Cannot answer input request ${quote(key)} of server "${server}" ` +
              `(${method} of ${subject}): ${response.error}`,
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
    method,
    message: `Server "${server}" still asked for input after ${MAX_INPUT_ROUNDS} rounds ` +
      `of ${subject}; the ${method} is given up`,
  });
}

/**
 * Sends a request (`send`, again when needed) until it needs no URL
 * visited: a server that needs the user to visit URLs first says so
 * (-32042, its `data.elicitations`); once `onElicit` accepted every one,
 * the request is made once more, and its answer then is the request's.
 */
export async function afterVisits<T>(
  answers: ServerAnswers,
  tool: string | undefined,
  signal: AbortSignal | undefined,
  send: () => Promise<Result<T, ClientError>>,
): Promise<Result<T, ClientError>> {
  const sent = await send();
  if (sent.ok || sent.error.kind !== "server_error") return sent;
  const error = sent.error.error;
  if (error.code !== URL_ELICITATION_REQUIRED) return sent;
  const satisfied = await answers.satisfyUrlRequired(error.data, tool, signal);
  return satisfied ? send() : sent;
}

/**
 * A signal aborted by either of two, and the release of what it listens to:
 * `AbortSignal.any` would leave an entry on each source for every round of
 * a request, for as long as the source (a generation) lives.
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
