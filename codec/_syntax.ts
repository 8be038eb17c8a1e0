// Private to codec/: where a JSON text first breaks the grammar. Runs after
// the built-in parser has refused a text, for every fault: the parser's own
// message quotes the input, so a position read out of it could be one the
// input wrote. Iterative, so any nesting is safe.

const OBJECT = 1;
const ARRAY = 2;

/** The offset of the first character that breaks RFC 8259, or the length when it is cut short. */
export function syntaxErrorOffset(text: string): number {
  const n = text.length;
  const stack: number[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      i++;
    }
  };
  // Returns false at the first character that cannot continue a string.
  const string = (): boolean => {
    if (text.charCodeAt(i) !== 0x22) return false;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          for (let k = 2; k < 6; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) {
              i += k;
              return false;
            }
          }
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i += 2;
        } else {
          i++;
          return false;
        }
      } else {
        i++;
      }
    }
    return false;
  };
  const digits = (): boolean => {
    const start = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    return i > start;
  };
  const number = (): boolean => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else if (!digits()) return false;
    if (text[i] === ".") {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!digits()) return false;
    }
    return true;
  };
  // Each turn reads one value, then the separators that follow it.
  for (;;) {
    skipSpace();
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      skipSpace();
      if (text[i] === (c === "{" ? "}" : "]")) {
        i++;
      } else {
        stack.push(c === "{" ? OBJECT : ARRAY);
        if (c === "{") {
          if (!string()) return i;
          skipSpace();
          if (text[i] !== ":") return i;
          i++;
        }
        continue;
      }
    } else if (c === '"') {
      if (!string()) return i;
    } else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      if (!number()) return i;
    } else if (c === "t" || c === "f" || c === "n") {
      const literal = c === "t" ? "true" : c === "f" ? "false" : "null";
      for (let k = 0; k < literal.length; k++) {
        if (text[i + k] !== literal[k]) return i + k;
      }
      i += literal.length;
    } else {
      return i;
    }
    // After a value: close containers, or find the next member.
    for (;;) {
      skipSpace();
      const top = stack[stack.length - 1];
      if (top === undefined) return i;
      const close = top === OBJECT ? "}" : "]";
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") return i;
      i++;
      if (top === OBJECT) {
        skipSpace();
        if (!string()) return i;
        skipSpace();
        if (text[i] !== ":") return i;
        i++;
      }
      break;
    }
  }
}
