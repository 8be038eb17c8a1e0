// Private to client/: the succession of a client's generations, one start of
// its server each: the current one, the record of every one, and, for a
// client whose spec asks for `restart`, the supervisor that replaces a dead
// one (`supervisor.ts`) only on the evidence that it is gone, and who hears
// each death and restart. The `Client` (`client.ts`) is the handle that
// stays; it asks the current generation of the moment.
//
// Who closes what: a generation is ended before its replacement is made;
// `stop` ends the supervision, so that nothing is started again once the
// client's retirement was asked.

import type { Result } from "../codec/result.ts";
import type { StartError } from "./thread/outcomes.ts";
import type { ServerInfo } from "./thread/server_info.ts";
import { resolveRestart } from "../settings/restart.ts";
import { Generation, type GenerationHost } from "./_generation.ts";
import {
  type GenerationEnd,
  type GenerationEvent,
  type GenerationRecord,
  Generations,
  replacementRefusal,
  Supervisor,
} from "./supervisor.ts";

/** What every generation of a client shares with it; the succession adds the rest. */
export type SuccessionHost = Omit<GenerationHost, "history" | "died" | "unavailable">;

/** The generations of one client, the current one last. */
export class Succession {
  #host: SuccessionHost;
  #name: string;
  #history = new Generations();
  #generation: Generation;
  #supervisor: Supervisor | undefined;
  #listeners = new Set<(event: GenerationEvent) => void>();

  /** The first generation, parked, and the supervisor its spec asks for. */
  constructor(host: SuccessionHost) {
    this.#host = host;
    this.#name = host.spec.name;
    const spec = host.spec;
    if (spec.restart !== undefined) {
      this.#supervisor = new Supervisor(this.#name, resolveRestart(spec.restart), {
        retireDead: () => this.#generation.retireDead(),
        renew: (end) => this.#renew(end),
        generations: this.#history,
        told: (event) => this.#tell(event),
      });
    }
    this.#generation = this.#newGeneration();
  }

  /** The generation of the moment. */
  get current(): Generation {
    return this.#generation;
  }

  /** Every start of the server so far, the first first. */
  get records(): readonly GenerationRecord[] {
    return this.#history.records;
  }

  /** Hears each death, restart and failed restart; returns how to stop. */
  listen(listener: (event: GenerationEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Nothing is started again from now on. */
  stop(): void {
    this.#supervisor?.stop();
  }

  #newGeneration(): Generation {
    return new Generation({
      ...this.#host,
      history: this.#history,
      died: (death) => {
        if (this.#supervisor === undefined) this.#history.update({ death });
        else void this.#supervisor.died(death);
      },
      ready: () => {
        this.#supervisor?.ready();
        this.#host.ready();
      },
      unavailable: (base) => this.#supervisor?.unavailable(base) ?? base,
    });
  }

  #tell(event: GenerationEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener that throws changes nothing of the client.
      }
    }
  }

  /** Starts a new generation, on the evidence that the last one is gone. */
  #renew(end: GenerationEnd): Promise<Result<ServerInfo, StartError>> {
    // The supervisor's rule, checked again where the replacement is made.
    const refused = replacementRefusal(end);
    if (refused !== undefined) {
      throw new TypeError(`Cannot start server "${this.#name}" again: ${refused.message}`);
    }
    this.#generation.end();
    this.#generation = this.#newGeneration();
    return this.#generation.connect();
  }
}
