/**
 * The library's own spans (a harness's boot, call, run and retirement, and a
 * run's check and execution), INTERNAL, each a child of the span active when
 * it starts. Nothing is made unless a tracer provider is registered.
 *
 * @module
 */

import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from "./_otel.ts";
import { INSTRUMENTATION_NAME, MAX_TRACE_TEXT_CHARS, traceText, tracing } from "./mcp.ts";

/** How work that settled with a value failed: `error.type`, and the status's message. */
export type SpanFailure = { type: string; message?: string };

/** Marks a span failed, as `failure` says. */
function failedWith(span: Span, failure: SpanFailure): void {
  span.setAttribute("error.type", failure.type);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    ...(failure.message === undefined
      ? {}
      : { message: traceText(failure.message, MAX_TRACE_TEXT_CHARS) }),
  });
}

/**
 * Runs `run` inside an INTERNAL span named `name`, active while it runs so
 * that what it starts is its child; the span ends when `run` settles, in
 * error when it rejects or when `failed` finds its value a failure (work
 * that answers failures as values). Without a tracer provider, it only runs
 * `run`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  run: (span: Span | undefined) => Promise<T>,
  failed?: (value: T) => SpanFailure | undefined,
): Promise<T> {
  if (!tracing()) return run(undefined);
  return trace.getTracer(INSTRUMENTATION_NAME).startActiveSpan(
    name,
    { kind: SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        const value = await run(span);
        const failure = failed?.(value);
        if (failure !== undefined) failedWith(span, failure);
        return value;
      } catch (error) {
        failedWith(span, {
          type: error instanceof Error ? error.name : "_OTHER",
          message: String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Wraps `pending` in an INTERNAL span named `name`, a child of the active
 * span that does not become active itself (a phase beside its parent's
 * other children); it ends when `pending` settles, in error when it rejects
 * or when `failed` finds its value a failure. Without a tracer provider, it
 * returns `pending` as it is.
 */
export function phase<T>(
  name: string,
  pending: Promise<T>,
  failed?: (value: T) => SpanFailure | undefined,
): Promise<T> {
  if (!tracing()) return pending;
  const span = trace.getTracer(INSTRUMENTATION_NAME).startSpan(name, { kind: SpanKind.INTERNAL });
  return pending.then(
    (value) => {
      const failure = failed?.(value);
      if (failure !== undefined) failedWith(span, failure);
      span.end();
      return value;
    },
    (error) => {
      failedWith(span, {
        type: error instanceof Error ? error.name : "_OTHER",
        message: String(error),
      });
      span.end();
      throw error;
    },
  );
}
