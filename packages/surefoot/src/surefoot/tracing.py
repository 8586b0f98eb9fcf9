"""The tracing hook: ``Tracer`` (what an agent's ``tracer=`` receives) and its traces.

``surefoot.otel.OtelTracer`` implements it with OpenTelemetry; ``NO_TRACING`` is the default.
"""

from ._tracing import NO_TRACING, CallTrace, NoTracing, RequestTrace, Tracer, TurnTrace

__all__ = ["NO_TRACING", "CallTrace", "NoTracing", "RequestTrace", "Tracer", "TurnTrace"]
