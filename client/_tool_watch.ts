// Private to client/: who hears that a server's tools (or prompts, or
// resources) changed. A listener that throws stops no other, and never the
// client; nor does any other listener of a caller's, run by `tell`.

/** The listeners of one client's changes of one list. */
export class ToolWatchers {
  #listeners = new Set<() => void>();
  #noun: string;
  // Told whenever a listener is added or removed.
  #changed: () => void;

  /** Listeners of the list named `noun` (in a misuse's message). */
  constructor(noun = "tools", changed: () => void = () => {}) {
    this.#noun = noun;
    this.#changed = changed;
  }

  /** Whether anyone listens. */
  get watched(): boolean {
    return this.#listeners.size > 0;
  }

  /** Adds a listener (and tells the constructor's `changed`); returns the function that removes it. */
  add(listener: () => void): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(`Cannot watch the ${this.#noun}: the listener is not a function`);
    }
    const watcher = () => listener();
    this.#listeners.add(watcher);
    this.#changed();
    return () => {
      if (this.#listeners.delete(watcher)) this.#changed();
    };
  }

  /** Tells every listener. */
  tell(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // The listener's failure is its own; the client goes on.
      }
    }
  }
}

/** Runs a caller's listener: one that throws changes nothing of the client. */
export function tell(listener: () => void): void {
  try {
    listener();
  } catch {
    // The listener's failure is its own.
  }
}
