/**
 * `@loom/mcp`: the client side of the Model Context Protocol for Deno agent
 * harnesses, over stdio and Streamable HTTP, in both protocol eras.
 *
 * A harness reads its catalog, boots every server (each client in its own
 * Web Worker that owns the server's process), shows the model the surface of
 * the generated modules, runs the program the model writes with no
 * permissions, and retires every server with evidence that it exited.
 *
 * This entry holds what a harness author needs: the catalog, `boot` and the
 * `Harness`, the census of clients, what a run reports, and the failures.
 * The rest is in the sub-exports: `@loom/mcp/client` (every client type),
 * `@loom/mcp/catalog` (every catalog name),
 * `@loom/mcp/runner` (code mode on its own), `@loom/mcp/limits` (every
 * limit and default), `@loom/mcp/codec`, `@loom/mcp/codegen`,
 * `@loom/mcp/cap` (what programs import), `@loom/mcp/server` and
 * `@loom/mcp/cli`.
 *
 * @example Boot a catalog, run a program, retire
 * ```ts ignore
 * import { boot, openCatalog } from "@loom/mcp";
 *
 * const catalog = await openCatalog("loom.toml", { mode: "strict" });
 * if (!catalog.ok) throw new Error(catalog.error.message);
 * const harness = await boot(catalog.value.servers);
 * try {
 *   console.log(harness.surface); // what the model reads
 *   const report = await harness.run(
 *     'import { read_graph } from "./mcp/memory.ts";\n' +
 *       "export default (await read_graph({})).text;",
 *   );
 *   console.log(report.outcome);
 * } finally {
 *   await harness.retire();
 * }
 * ```
 *
 * @module
 */

// The harness: boot, call, run, retire.
export {
  boot,
  type BootFailure,
  type BootOptions,
  type BootWarning,
  type CallDenial,
  type DescribeDenial,
  type Harness,
  type PinSet,
  type ServerEntry,
  type ServerReport,
  type ToolsChange,
  type ToolsDecision,
  type WithheldReason,
} from "./harness/harness.ts";
// The harness served to another MCP host as code mode (the rest: @loom/mcp/gateway).
export { serveHarness } from "./gateway/serve_harness.ts";
// What a run is given and what it reports.
export {
  type Approval,
  type ApprovalRequest,
  type Approve,
  type CallContext,
  type CallFailure,
  type CallFunction,
  type CallRecord,
  type CallResult,
  type CheckerStats,
  type Diagnostic,
  type HarnessRunOptions,
  importedSegments,
  type KillReason,
  PROGRAM_CONVENTION,
  type ReadContext,
  type ReadFunction,
  type RelatedInformation,
  type RunInfo,
  type RunLimit,
  type RunModule,
  type RunnerStats,
  type RunOptions,
  type RunOutcome,
  type RunReport,
  type SearchOptions,
  type ToolMatch,
} from "./harness/mod.ts";
// The catalog.
export {
  type Catalog,
  type CatalogError,
  type CatalogMode,
  type CatalogOptions,
  type DisabledServer,
  isServerName,
  openCatalog,
  type OpenCatalogOptions,
  readCatalog,
  type SkippedServer,
} from "./catalog/mod.ts";
export type { CatalogErrorKind, CatalogFormat, SkipReason, Substitution } from "./catalog/mod.ts";
// What a harness says about a server.
export {
  type Authorize,
  ERA_MODES,
  type EraMode,
  isRemote,
  LOG_LEVELS,
  type LogLevel,
  OAUTH_GRANTS,
  type OAuthGrant,
  type OAuthSettings,
  type RemoteServerSpec,
  type ResolvedRemoteSpec,
  type ResolvedServerSpec,
  type ResolvedStdioSpec,
  type RestartPolicy,
  type ResultCheck,
  type ServerSpec,
  type SpecCommon,
  type StderrMode,
  type StdioServerSpec,
  type Supplied,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
} from "./settings/mod.ts";
// The census of clients, and what a client reports.
export {
  type CallOptions,
  type CallProgress,
  Census,
  type CensusOptions,
  Client,
  CLIENT_STATES,
  type ClientError,
  type ClientOptions,
  type ClientOrigin,
  type ClientState,
  type CompleteContext,
  type CompleteResult,
  type CompletionReference,
  DEATH_CAUSES,
  type DeathCause,
  type Escalation,
  ESCALATIONS,
  FOUND_BY,
  type FoundBy,
  type FoundProcess,
  type GenerationEnd,
  type GenerationEvent,
  type GenerationRecord,
  type GetPromptResult,
  type HttpFailure,
  type ListedResource,
  type LogEntry,
  type LogOptions,
  type OAuthFailure,
  type OAuthStatus,
  type PromptArgument,
  type PromptDescriptor,
  type PromptError,
  type PromptMessage,
  type ReadResourceResult,
  type RemoteEvidence,
  type RequestOptions,
  type ResourceDescriptor,
  type ResourceError,
  type ResourceSubscription,
  type ResourceTemplateDescriptor,
  RESTART_REFUSALS,
  type RestartPlan,
  type RestartRefusal,
  type RetirementError,
  type RetirementEvidence,
  type RetirementReport,
  type ServerInfo,
  type ServerRequestHandlers,
  SESSION_ENDS,
  type SessionEnd,
  type SkillEntry,
  type SkillError,
  START_METHODS,
  type StartAttempt,
  type StartError,
  type StartFailure,
  type StoredEntry,
  type StoredGrant,
  type StoredRegistration,
  type StoreFailure,
  type StoreKey,
  TASK_STATUSES,
  type TaskStatus,
  type TokenStore,
  type ToolListing,
  type WorkerPermissions,
} from "./client/mod.ts";
// What generation yields.
export type { Generated, GenerateError, OmissionReason } from "./codegen/generate.ts";
// The codec's types a harness handles; the codec itself is `@loom/mcp/codec`.
export type { Result } from "./codec/result.ts";
export type { RpcError } from "./codec/jsonrpc.ts";
export type { JsonArray, JsonObject, JsonValue } from "./codec/json.ts";
export {
  type Annotated,
  type CallToolResult,
  type ContentBlock,
  type Era,
  type Implementation,
  type InitializeResult,
  type ResourceContents,
  SUPPORTED_VERSIONS,
  type SupportedVersion,
  type ToolDescriptor,
} from "./codec/protocol.ts";
