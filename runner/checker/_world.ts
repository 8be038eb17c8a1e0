/**
 * The global world a code-mode program is checked against: the sandbox's
 * program Worker as TypeScript's own library files describe it
 * (`lib.webworker.d.ts` and its iterables over the ES libraries of
 * `lib.esnext.d.ts`, which Deno 2.9.6's V8 implements), with what the Worker
 * cannot give a program carved out of those files. Nothing is declared by
 * hand: a global is in the world because the compiler's library declares it
 * and the Worker has it.
 *
 * Carved out, each with the reason a diagnostic gives when a program uses it:
 * - {@linkcode HIDDEN_GLOBALS}: what the Worker holds but a program must not
 *   use or cannot use without a permission it never has (`Deno`, `fetch`,
 *   `WebSocket`, `postMessage`, Node's `process`, `eval`, ...). Those the
 *   library never declares (`Deno`, `process`) are simply never added.
 * - {@linkcode ABSENT_GLOBALS}: what the library declares for workers in
 *   general and Deno does not offer (`indexedDB`, `importScripts`, WebGL, ...).
 * - {@linkcode ABSENT_MEMBERS}: members of the Worker's own objects that Deno
 *   lacks (`navigator.storage`, `console.timeStamp`).
 *
 * A hidden or absent global goes as a value (`declare var`, `declare
 * function`) and as a member of the global scope's interfaces, so neither
 * `fetch(url)` nor `self.fetch(url)` checks; its types stay, so the library's
 * other declarations still hold. The carved file keeps the library's text,
 * so a related diagnostic pointing into it names TypeScript's own line.
 * `tests/runner/checker/world_test.ts` proves the world against a real
 * sandbox, both ways.
 *
 * @module
 */

import "./_no_node_system.ts";
import ts from "npm:typescript@6.0.3";
/** The library files the world starts from; the rest of `_libs.ts` is what they reference. */
export const WORLD_ROOTS: readonly string[] = [
  "lib.esnext.d.ts",
  "lib.webworker.d.ts",
  "lib.webworker.iterable.d.ts",
  "lib.webworker.asynciterable.d.ts",
];

const NO_NETWORK = "the sandbox has no network access; reach the network through a server's tool";
const NO_STORAGE = "the sandbox has no storage; keep data in variables, or use a server's tool";
const NODE = "it is one of Node's globals, which a program's world does not have";
const NOT_IN_DENO = "the sandbox's runtime does not offer it";
const CHANNEL = "the program's Worker talks only to the runner: a program's result is its " +
  "export default, and what it prints goes through console";

function each(names: readonly string[], reason: string): [string, string][] {
  return names.map((name) => [name, reason]);
}

/**
 * Globals the sandbox's program Worker holds that are not in the world, each
 * with the reason a diagnostic gives: what needs a permission the sandbox
 * never grants, what reaches past the capability channel, what the sandbox
 * disables, and what TypeScript's library does not declare.
 */
export const HIDDEN_GLOBALS: ReadonlyMap<string, string> = new Map([
  [
    "Deno",
    "a program runs without the Deno namespace; files, the network, the environment and " +
    "commands are reached through a server's tool",
  ],
  ...each(["fetch", "WebSocket", "EventSource"], NO_NETWORK),
  ["process", `${NODE}; a program has no environment, arguments or exit code of its own`],
  ["Buffer", `${NODE}; use Uint8Array, TextEncoder and TextDecoder`],
  ["global", `${NODE}; use globalThis`],
  ["setImmediate", `${NODE}; use setTimeout(callback, 0)`],
  ["clearImmediate", `${NODE}; use clearTimeout`],
  ...each(["postMessage", "onmessage"], CHANNEL),
  ["close", "a program ends when its module and its export default settle"],
  ["eval", "the sandbox disallows code generation from strings"],
  [
    "Worker",
    "a program cannot start Workers (one would run code made from a string); " +
    "run work concurrently with Promise.all",
  ],
  ["getParent", "it is an internal of the runtime's EventTarget, not a web API"],
  ...each(
    [
      "GPUBufferUsage",
      "GPUColorWrite",
      "GPUMapMode",
      "GPUShaderStage",
      "GPUTextureUsage",
      "NavigatorUAData",
      "QuotaExceededError",
    ],
    "TypeScript's library for workers does not declare it",
  ),
]);

/** Globals TypeScript's library declares for workers that the sandbox's runtime does not offer. */
export const ABSENT_GLOBALS: ReadonlyMap<string, string> = new Map([
  ...each(["XMLHttpRequest", "XMLHttpRequestEventTarget", "XMLHttpRequestUpload"], NO_NETWORK),
  ...each(["WebTransport", "WebTransportBidirectionalStream"], NO_NETWORK),
  ...each(["WebTransportDatagramDuplexStream", "WebTransportError"], NO_NETWORK),
  ...each(["RTCDataChannel", "RTCEncodedAudioFrame", "RTCEncodedVideoFrame"], NO_NETWORK),
  ...each(["RTCRtpScriptTransformer", "RTCTransformEvent", "onrtctransform"], NO_NETWORK),
  ...each(["caches", "Cache", "CacheStorage", "indexedDB", "StorageManager"], NO_STORAGE),
  ...each(["IDBCursor", "IDBCursorWithValue", "IDBDatabase", "IDBFactory", "IDBIndex"], NO_STORAGE),
  ...each(["IDBKeyRange", "IDBObjectStore", "IDBOpenDBRequest", "IDBRequest"], NO_STORAGE),
  ...each(["IDBTransaction", "IDBVersionChangeEvent"], NO_STORAGE),
  ...each(["CookieStore", "CookieStoreManager", "ExtendableCookieChangeEvent"], NO_STORAGE),
  ...each(["FileSystemDirectoryHandle", "FileSystemFileHandle", "FileSystemHandle"], NO_STORAGE),
  ...each(["FileSystemSyncAccessHandle", "FileSystemWritableFileStream"], NO_STORAGE),
  ["importScripts", "a program is a module: it imports its servers' modules with import"],
  ...each(["onmessageerror"], CHANNEL),
  ...each([
    "cancelAnimationFrame",
    "requestAnimationFrame",
    "AudioData",
    "AudioDecoder",
    "AudioEncoder",
    "CSSImageValue",
    "CSSKeywordValue",
    "CSSMathClamp",
    "CSSMathInvert",
    "CSSMathMax",
    "CSSMathMin",
    "CSSMathNegate",
    "CSSMathProduct",
    "CSSMathSum",
    "CSSMathValue",
    "CSSMatrixComponent",
    "CSSNumericArray",
    "CSSNumericValue",
    "CSSPerspective",
    "CSSRotate",
    "CSSScale",
    "CSSSkew",
    "CSSSkewX",
    "CSSSkewY",
    "CSSStyleValue",
    "CSSTransformComponent",
    "CSSTransformValue",
    "CSSTranslate",
    "CSSUnitValue",
    "CSSUnparsedValue",
    "CSSVariableReferenceValue",
    "CanvasGradient",
    "CanvasPattern",
    "Client",
    "Clients",
    "DOMStringList",
    "EncodedAudioChunk",
    "EncodedVideoChunk",
    "ExtendableEvent",
    "ExtendableMessageEvent",
    "FetchEvent",
    "FileList",
    "FileReaderSync",
    "FontFace",
    "FontFaceSet",
    "FontFaceSetLoadEvent",
    "GPUExternalTexture",
    "ImageDecoder",
    "ImageTrack",
    "ImageTrackList",
    "MediaCapabilities",
    "MediaSourceHandle",
    "MediaStreamTrackProcessor",
    "NavigationPreloadManager",
    "Notification",
    "NotificationEvent",
    "OffscreenCanvasRenderingContext2D",
    "Path2D",
    "PerformanceResourceTiming",
    "PerformanceServerTiming",
    "PermissionStatus",
    "Permissions",
    "PushEvent",
    "PushManager",
    "PushMessageData",
    "PushSubscription",
    "PushSubscriptionChangeEvent",
    "PushSubscriptionOptions",
    "ReportingObserver",
    "Scheduler",
    "SecurityPolicyViolationEvent",
    "ServiceWorker",
    "ServiceWorkerContainer",
    "ServiceWorkerGlobalScope",
    "ServiceWorkerRegistration",
    "SharedWorkerGlobalScope",
    "StylePropertyMapReadOnly",
    "TaskController",
    "TaskPriorityChangeEvent",
    "TaskSignal",
    "TextMetrics",
    "VideoColorSpace",
    "VideoDecoder",
    "VideoEncoder",
    "VideoFrame",
    "WGSLLanguageFeatures",
    "WebGL2RenderingContext",
    "WebGLActiveInfo",
    "WebGLBuffer",
    "WebGLContextEvent",
    "WebGLFramebuffer",
    "WebGLProgram",
    "WebGLQuery",
    "WebGLRenderbuffer",
    "WebGLRenderingContext",
    "WebGLSampler",
    "WebGLShader",
    "WebGLShaderPrecisionFormat",
    "WebGLSync",
    "WebGLTexture",
    "WebGLTransformFeedback",
    "WebGLUniformLocation",
    "WebGLVertexArrayObject",
    "WindowClient",
    "onlanguagechange",
    "onoffline",
    "ononline",
    "onrejectionhandled",
    "fonts",
    "crossOriginIsolated",
    "isSecureContext",
    "origin",
    "scheduler",
  ], NOT_IN_DENO),
]);

/**
 * Members the library declares on the Worker's own objects that the
 * sandbox's runtime does not have, as `Interface.member` of the interface
 * that declares them.
 */
export const ABSENT_MEMBERS: readonly string[] = [
  "Console.timeStamp",
  "Performance.onresourcetimingbufferfull",
  "NavigatorBadge.clearAppBadge",
  "NavigatorBadge.setAppBadge",
  "NavigatorID.appCodeName",
  "NavigatorID.appName",
  "NavigatorID.appVersion",
  "NavigatorID.product",
  "NavigatorOnLine.onLine",
  "NavigatorStorage.storage",
  "WorkerNavigator.mediaCapabilities",
  "WorkerNavigator.permissions",
  "WorkerNavigator.serviceWorker",
];

/** The interfaces that `self` and `globalThis` expose the global scope through. */
const GLOBAL_SCOPE_INTERFACES = [
  "WindowOrWorkerGlobalScope",
  "WorkerGlobalScope",
  "DedicatedWorkerGlobalScope",
  "FontFaceSource",
  "AnimationFrameProvider",
];

/** Names of Node's CommonJS modules, which no world of a module has. */
const COMMONJS = new Set(["require", "module", "exports", "__dirname", "__filename"]);

/** Why a program cannot use a global name, if it is one the world leaves out. */
export function missingGlobalReason(name: string): string | undefined {
  if (COMMONJS.has(name)) {
    return "a program is an ES module: it imports its servers' modules with import";
  }
  return HIDDEN_GLOBALS.get(name) ?? ABSENT_GLOBALS.get(name);
}

/** A library file without the world's removals, and what was removed (`name`, `Interface.member`). */
export type Carved = { file: ts.SourceFile; removed: string[] };

function memberRemovals(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (owner: string, member: string): void => {
    const members = out.get(owner) ?? new Set<string>();
    members.add(member);
    out.set(owner, members);
  };
  for (const owner of GLOBAL_SCOPE_INTERFACES) {
    for (const name of [...HIDDEN_GLOBALS.keys(), ...ABSENT_GLOBALS.keys()]) add(owner, name);
  }
  for (const entry of ABSENT_MEMBERS) {
    const [owner, member] = entry.split(".") as [string, string];
    add(owner, member);
  }
  return out;
}

const GLOBALS = new Set([...HIDDEN_GLOBALS.keys(), ...ABSENT_GLOBALS.keys()]);
const MEMBERS = memberRemovals();
// A file that declares none of these, as the libraries lay declarations out
// (at the start of a line), is returned as it is without a look at its nodes.
const DECLARES = new RegExp(
  `^(?:declare (?:var|function|namespace) (?:${[...GLOBALS].join("|")})|` +
    `interface (?:${[...MEMBERS.keys()].join("|")}))\\b`,
  "m",
);

function nameOf(name: ts.Node | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  return undefined;
}

/** The name a statement declares as a value the world leaves out, if it does. */
function removedValue(statement: ts.Statement): string[] | undefined {
  if (ts.isVariableStatement(statement)) {
    const names = statement.declarationList.declarations.map((each) => nameOf(each.name));
    return names.every((name) => name !== undefined && GLOBALS.has(name))
      ? names as string[]
      : undefined;
  }
  // A namespace, not `declare global { ... }`, which merely adds to the world.
  const named = ts.isFunctionDeclaration(statement) ||
    (ts.isModuleDeclaration(statement) &&
      (statement.flags & ts.NodeFlags.GlobalAugmentation) === 0);
  const name = named ? nameOf(statement.name) : undefined;
  return name !== undefined && GLOBALS.has(name) ? [name] : undefined;
}

/**
 * One parsed library file without the world's removals, as a new source
 * file over the same text and the same nodes but those removed, so that no
 * file is parsed twice (`lib.webworker.d.ts` is 770 KiB) and every kept
 * declaration keeps its place. The file must not have been bound yet.
 */
export function carve(file: ts.SourceFile): Carved {
  if (!DECLARES.test(file.text)) return { file, removed: [] };
  const removed: string[] = [];
  const statements: ts.Statement[] = [];
  for (const statement of file.statements) {
    const values = removedValue(statement);
    if (values !== undefined) {
      removed.push(...values);
      continue;
    }
    const members = ts.isInterfaceDeclaration(statement)
      ? MEMBERS.get(statement.name.text)
      : undefined;
    if (members === undefined || !ts.isInterfaceDeclaration(statement)) {
      statements.push(statement);
      continue;
    }
    const kept = statement.members.filter((member) => {
      const name = nameOf(member.name);
      if (name === undefined || !members.has(name)) return true;
      removed.push(`${statement.name.text}.${name}`);
      return false;
    });
    statements.push(
      kept.length === statement.members.length ? statement : ts.factory.updateInterfaceDeclaration(
        statement,
        statement.modifiers,
        statement.name,
        statement.typeParameters,
        statement.heritageClauses,
        ts.setTextRange(ts.factory.createNodeArray(kept), statement.members),
      ),
    );
  }
  if (removed.length === 0) return { file, removed };
  return {
    file: ts.factory.updateSourceFile(
      file,
      ts.setTextRange(
        ts.factory.createNodeArray(statements),
        file.statements,
      ),
    ),
    removed: [...new Set(removed)],
  };
}
