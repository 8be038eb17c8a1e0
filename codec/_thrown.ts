// Private to codec/: what a thrown value says, for a fault's message or a
// report's marker. Reading a thrown value runs its code (a `message` getter,
// a Proxy trap, a `toString`), which may throw in turn, so the reading is
// itself guarded. The sandbox's prelude words it the same way
// (`runner/sandbox/prelude.ts`, `describe`), so a marker reads alike on both
// sides.

/** The words of a thrown value: an `Error`'s message, anything else as a string. Never throws. */
export function thrownText(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return "(unprintable)";
  }
}
