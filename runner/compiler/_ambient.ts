/**
 * The global world a code-mode program is checked against, besides the
 * ECMAScript library: what the sandbox's program Worker offers and we mean a
 * program to use, declared by hand, with nothing of `lib.dom` and no `Deno`.
 *
 * The Worker really holds more (`Deno`, `fetch`, `WebSocket`, `postMessage`,
 * `process`, ...); none of it works without permissions, or it reaches past
 * the capability channel, so none of it is declared: using it is a type
 * error (`Cannot find name 'Deno'`) rather than a runtime denial. `console` is
 * the sandbox prelude's relay, whose methods are listed here one for one.
 * `tests/runner/compiler/libs_test.ts` checks every name declared here
 * against the sandbox's real program Worker.
 *
 * @module
 */

/** The file name the declarations are served under, beside the ES libs. */
export const AMBIENT_LIB_NAME = "lib.sandbox.d.ts";

/** Every global value the declarations introduce. */
export const AMBIENT_GLOBALS: readonly string[] = [
  "console",
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "queueMicrotask",
  "structuredClone",
  "atob",
  "btoa",
  "TextEncoder",
  "TextDecoder",
  "URL",
  "URLSearchParams",
  "performance",
  "crypto",
];

/** The declarations, as the text of a global `.d.ts` library file. */
export const AMBIENT_DECLARATIONS = `interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  trace(...data: unknown[]): void;
  dir(item?: unknown): void;
  dirxml(...data: unknown[]): void;
  table(data?: unknown): void;
  assert(condition?: boolean, ...data: unknown[]): void;
  count(label?: string): void;
  countReset(label?: string): void;
  group(...data: unknown[]): void;
  groupCollapsed(...data: unknown[]): void;
  groupEnd(): void;
  time(label?: string): void;
  timeLog(label?: string, ...data: unknown[]): void;
  timeEnd(label?: string): void;
  clear(): void;
}
declare var console: Console;

declare function setTimeout<A extends unknown[]>(
  handler: (...args: A) => void,
  timeout?: number,
  ...args: A
): number;
declare function clearTimeout(id?: number): void;
declare function setInterval<A extends unknown[]>(
  handler: (...args: A) => void,
  timeout?: number,
  ...args: A
): number;
declare function clearInterval(id?: number): void;
declare function queueMicrotask(callback: () => void): void;
declare function structuredClone<T = unknown>(value: T): T;
declare function atob(data: string): string;
declare function btoa(data: string): string;

interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}
interface TextEncoder {
  readonly encoding: "utf-8";
  encode(input?: string): Uint8Array<ArrayBuffer>;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}
declare var TextEncoder: {
  readonly prototype: TextEncoder;
  new (): TextEncoder;
};

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}
interface TextDecodeOptions {
  stream?: boolean;
}
interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBufferLike | ArrayBufferView, options?: TextDecodeOptions): string;
}
declare var TextDecoder: {
  readonly prototype: TextDecoder;
  new (label?: string, options?: TextDecoderOptions): TextDecoder;
};

interface URLSearchParamsIterator<T> extends IteratorObject<T, BuiltinIteratorReturn, unknown> {
  [Symbol.iterator](): URLSearchParamsIterator<T>;
}
interface URLSearchParams {
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  toString(): string;
  forEach(callbackfn: (value: string, key: string, parent: URLSearchParams) => void): void;
  entries(): URLSearchParamsIterator<[string, string]>;
  keys(): URLSearchParamsIterator<string>;
  values(): URLSearchParamsIterator<string>;
  [Symbol.iterator](): URLSearchParamsIterator<[string, string]>;
}
declare var URLSearchParams: {
  readonly prototype: URLSearchParams;
  new (init?: [string, string][] | Record<string, string> | string | URLSearchParams): URLSearchParams;
};

interface URL {
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}
declare var URL: {
  readonly prototype: URL;
  new (url: string | URL, base?: string | URL): URL;
  canParse(url: string | URL, base?: string | URL): boolean;
  parse(url: string | URL, base?: string | URL): URL | null;
};

interface Performance {
  readonly timeOrigin: number;
  now(): number;
}
declare var performance: Performance;

interface Crypto {
  getRandomValues<T extends ArrayBufferView | null>(array: T): T;
  randomUUID(): \`\${string}-\${string}-\${string}-\${string}-\${string}\`;
}
declare var crypto: Crypto;
`;
