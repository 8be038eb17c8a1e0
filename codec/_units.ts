// Private to the library: a text's first units, cut where no character is
// split. Shared by what bounds a server's words before they cross or are
// shown (a log message's data and logger, a JSON-RPC error's message).

/** The first `max` UTF-16 units of `text`, one fewer where a surrogate pair would be split. */
export function firstUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
