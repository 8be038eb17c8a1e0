/**
 * The library's own spans (a harness's boot, call, run and retirement, and a
 * run's check and execution), INTERNAL, each a child of the span active when
 * it starts. Nothing is made unless a tracer provider is registered.
 *
 * @module
 */

import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from "./_otel.ts";
import { INSTRUMENTATION_NAME, tracing } from "./mcp.ts";

/**
 * Runs `run` inside an INTERNAL span named `name`, active while it runs so
 * that what it starts is its child; the span ends when `run` settles, in
 * error when it rejects. Without a tracer provider, it only runs `run`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  run: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracing()) return run(undefined);
  return trace.getTracer(INSTRUMENTATION_NAME).startActiveSpan(
    name,
    { kind: SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        return await run(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
        span.setAttribute("error.type", error instanceof Error ? error.name : "_OTHER");
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
 * other children); it ends when `pending` settles. Without a tracer provider,
 * it returns `pending` as it is.
 */
export function phase<T>(name: string, pending: Promise<T>): Promise<T> {
  if (!tracing()) return pending;
  const span = trace.getTracer(INSTRUMENTATION_NAME).startSpan(name, { kind: SpanKind.INTERNAL });
  return pending.then(
    (value) => {
      span.end();
      return value;
    },
    (error) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      span.end();
      throw error;
    },
  );
}
