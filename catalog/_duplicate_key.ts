// Private to catalog/: finds a repeated key in a JSON text. JSON readers,
// `parseJson` included, keep the last of two equal keys without a word; for a
// server list that silently drops a server, so the catalog looks for them.

/** A key written twice in one object, and the keys of the objects around it. */
export type DuplicateKey = {
  /** Keys (and array indices) leading to the object holding the duplicate. */
  path: readonly string[];
  /** The repeated key. */
  key: string;
  /** UTF-16 offset of its second occurrence. */
  offset: number;
};

type Frame = { keys: Set<string> | undefined; key: string; expectKey: boolean; index: number };

/**
 * Returns the first key repeated within one object of `text`, which must
 * already be known to be valid JSON (so strings and brackets are balanced).
 * Linear in the text.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      let end = i + 1;
      while (end < text.length) {
        const c = text.charCodeAt(end);
        if (c === 0x5c) end += 2;
        else if (c === 0x22) break;
        else end++;
      }
      const top = stack[stack.length - 1];
      if (top !== undefined && top.keys !== undefined && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) {
          const path = stack.slice(0, -1).map((frame) =>
            frame.keys !== undefined ? frame.key : String(frame.index)
          );
          return { path, key, offset: i };
        }
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (code === 0x7b) {
      stack.push({ keys: new Set(), key: "", expectKey: true, index: 0 });
    } else if (code === 0x5b) {
      stack.push({ keys: undefined, key: "", expectKey: false, index: 0 });
    } else if (code === 0x7d || code === 0x5d) {
      stack.pop();
    } else if (code === 0x2c) {
      const top = stack[stack.length - 1];
      if (top !== undefined) {
        if (top.keys !== undefined) top.expectKey = true;
        else top.index++;
      }
    }
    i++;
  }
  return undefined;
}
