// Private to client/: the answers to what a client's worker asks of the main
// thread, on tickets of its own: group signals and drain checks a
// least-privilege worker cannot do (`client/custody/`), and a remote server's
// credentials, which only the main thread's sign-in holds (`_sign_in.ts`), and
// the answers to a server's requests, which the harness's handlers give
// (`_answers.ts`), each under a signal that its withdrawal aborts (`AskedRequests`).

import type { AuthAnswer } from "./thread/auth.ts";
import type { Drain } from "./thread/evidence.ts";
import type { WorkerAsk } from "./thread/from_worker.ts";
import type { Custody } from "./custody/custody.ts";
import type { SignIn } from "./_sign_in.ts";
import type { ServerAnswers } from "./_answers.ts";
import type { ServerAnswer } from "./thread/asked.ts";

/** What answers a worker's asks: its custody, its sign-in, and the handlers of a server's requests. */
export type AskAnswerers = {
  custody: Custody;
  signIn: SignIn | undefined;
  answers: ServerAnswers;
  /** Withdraws a server's request: its handler's signal (never aborted when absent). */
  signal?: AbortSignal;
};

/** The answer to one ask: at once for a signal, later for a drain check or credentials. */
export function answerAsk(
  ask: WorkerAsk,
  by: AskAnswerers,
): Drain | Promise<Drain | AuthAnswer | ServerAnswer> {
  switch (ask.method) {
    case "signal":
      return by.custody.signal(ask.pid, ask.signal);
    case "drain":
      return by.custody.drain(ask.pid, ask.deadlineMs);
    case "credentials":
    case "challenge":
      return by.signIn?.answer(ask) ?? Promise.resolve(noSignIn());
    case "server_request":
      return by.answers.answer(ask.request, ask.params, by.signal);
  }
}

/**
 * The server's requests one generation answers, each under a signal of its
 * own: aborted when the server withdraws it (`withdrawn`), when the worker
 * dies and when the generation ends (after which a new one is born aborted).
 * While one is open, the generation's call deadlines are held (`hold`): the
 * server waits for this side then, and the time a person or a model takes
 * to answer is not counted against the calls.
 */
export class AskedRequests {
  #asked = new Map<number, { controller: AbortController; release: () => void }>();
  #ended = false;
  #hold: () => () => void;

  /** Requests whose every opening calls `hold`, and every closing the release it returned. */
  constructor(hold: () => () => void) {
    this.#hold = hold;
  }

  /** The signal of the server's request handed over on ask `ticket`. */
  open(ticket: number): AbortSignal {
    const controller = new AbortController();
    if (this.#ended) controller.abort();
    else this.#asked.set(ticket, { controller, release: this.#hold() });
    return controller.signal;
  }

  /** The request of `ticket`, opened with `signal`, was answered. */
  close(ticket: number, signal: AbortSignal): void {
    const asked = this.#asked.get(ticket);
    if (asked?.controller.signal !== signal) return;
    this.#asked.delete(ticket);
    asked.release();
  }

  /** The server withdrew the request of `ticket`; an unknown ticket changes nothing. */
  withdraw(ticket: number): void {
    const asked = this.#asked.get(ticket);
    if (asked === undefined) return;
    this.#asked.delete(ticket);
    asked.release();
    asked.controller.abort();
  }

  /** Withdraws every request being answered. */
  withdrawAll(): void {
    const asked = [...this.#asked.values()];
    this.#asked.clear();
    for (const { controller, release } of asked) {
      release();
      controller.abort();
    }
  }

  /** Withdraws every request, and every one opened from now on. */
  end(): void {
    this.#ended = true;
    this.withdrawAll();
  }
}

function noSignIn(): AuthAnswer {
  return {
    ok: false,
    error: { kind: "configuration_invalid", message: "The server has no sign-in on this client" },
  };
}

/** Where an ask is answered: its answerers, the requests open, the calls watched, the reply. */
export type AskRoom = {
  answerers: Omit<AskAnswerers, "signal">;
  asked: AskedRequests;
  /** Watches the requests in flight now (`Tickets.watch`); returns the stop. */
  watch: (done: (givenUp: boolean) => void) => () => void;
  reply: (answer: Drain | AuthAnswer | ServerAnswer) => void;
};

/**
 * Answers one ask. A server's request is answered under a signal of its own,
 * aborted when the server withdraws it or the generation ends; and, since it
 * names no call of the client's, it is taken to be asked for the calls in
 * flight when it came, and withdrawn once they are all settled and one of
 * them was given up.
 */
export function serveAsk(ask: WorkerAsk, room: AskRoom): void {
  const ticket = ask.ticket;
  const signal = ask.method === "server_request" ? room.asked.open(ticket) : undefined;
  const unwatch = signal === undefined
    ? undefined
    : room.watch((givenUp) => givenUp && room.asked.withdraw(ticket));
  const answer = answerAsk(ask, { ...room.answerers, ...(signal === undefined ? {} : { signal }) });
  if (!(answer instanceof Promise)) return room.reply(answer);
  const done = () => {
    unwatch?.();
    if (signal !== undefined) room.asked.close(ticket, signal);
  };
  void answer.then((value) => {
    done();
    room.reply(value);
  }).catch((error) => {
    // The answerers never reject; should one, the server still hears an error.
    done();
    if (ask.method !== "server_request") return;
    const message = `The client failed to answer: ${
      error instanceof Error ? error.message : error
    }`;
    room.reply({ ok: false, error: { code: -32603, message } });
  });
}
