// Private to telemetry/: the OpenTelemetry API, pinned once. Deno's built-in
// OpenTelemetry (OTEL_DENO=true) registers its tracer and meter providers
// with this API; without it the API hands out its no-op ones, so the
// library brings no SDK and exports nothing on its own.

export {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Histogram,
  metrics,
  propagation,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "npm:@opentelemetry/api@1.10.0";
