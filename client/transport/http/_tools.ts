// Private to client/transport/http/: what a Streamable HTTP transport keeps of a
// modern tool listing: the `x-mcp-header` marks of each tool, so
// that a call says its marked arguments again in `Mcp-Param-*` headers; a
// tool whose marks break the rules is taken out of the listing before the
// machine sees it (the specification says such a tool must not be used);
// and which tools say calling them again does no harm (`readOnlyHint` or
// `idempotentHint`), the only calls sent again when their stream breaks.

import { frameText } from "../../../codec/framing.ts";
import { isJsonObject, parseJson } from "../../../codec/json.ts";
import { type ParamHeader, paramHeaders, scanParamHeaders } from "../../../codec/param_headers.ts";
import type { OutgoingMessage } from "../../../codec/streamable_http.ts";

/** The marks of the tools listed so far, by tool name. */
export class ToolMarks {
  #marks = new Map<string, ParamHeader[]>();
  #repeatable = new Set<string>();

  /**
   * Reads the text of a `tools/list` answer: keeps each tool's marks and
   * returns the answer without the tools whose marks break the rules (the
   * text as it came when nothing was taken out).
   */
  listed(text: string): string {
    const parsed = parseJson(text);
    if (!parsed.ok || !isJsonObject(parsed.value)) return text;
    const result = parsed.value.result;
    if (!isJsonObject(result) || !Array.isArray(result.tools)) return text;
    const kept = result.tools.filter((tool) => {
      if (!isJsonObject(tool) || typeof tool.name !== "string") return true;
      const scan = scanParamHeaders(tool.inputSchema ?? null);
      if (!scan.ok) return false;
      if (scan.headers.length > 0) this.#marks.set(tool.name, scan.headers);
      else this.#marks.delete(tool.name);
      const hints = tool.annotations;
      const repeatable = isJsonObject(hints) &&
        (hints.readOnlyHint === true || hints.idempotentHint === true);
      if (repeatable) this.#repeatable.add(tool.name);
      else this.#repeatable.delete(tool.name);
      return true;
    });
    if (kept.length === result.tools.length) return text;
    return frameText({ ...parsed.value, result: { ...result, tools: kept } }).slice(0, -1);
  }

  /** Whether the listing said calling tool `name` again does no harm (read-only or idempotent). */
  repeatable(name: string | undefined): boolean {
    return name !== undefined && this.#repeatable.has(name);
  }

  /** The `Mcp-Param-*` headers of a modern `tools/call`. */
  headers(message: OutgoingMessage): Array<[string, string]> {
    if (message.method !== "tools/call" || message.name === undefined) return [];
    const marks = this.#marks.get(message.name);
    return marks === undefined ? [] : paramHeaders(marks, message.arguments);
  }
}
