"""``gymnasia --otel``: the GenAI spans of every turn, model request and tool call, exported
the way OpenTelemetry's own variables say.

Spans go over OTLP/HTTP (protobuf) to ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_ENDPOINT`` (default ``http://localhost:4318``), with
``OTEL_EXPORTER_OTLP_HEADERS``, ``..._TIMEOUT`` and the rest read by the exporter itself;
``OTEL_TRACES_EXPORTER=console`` prints them on stderr instead (stdout stays the command's
own). ``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES`` name the service (``gymnasia`` if
not). The provider is made once per process and flushed when the process exits. Without
``--otel`` nothing here is imported.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..texts import t
from ._base import SESSION, UsageProblem

if TYPE_CHECKING:
    from surefoot import Lang
    from surefoot.tracing import Tracer

_PROVIDER: list[object] = []  # the process's TracerProvider, once made


def session_tracer(lang: Lang) -> Tracer | None:
    """The tracer for the Coach: spans exported as configured if ``--otel`` was given, else
    None. A missing extra or an exporter it does not know is one line in ``lang``."""
    if not SESSION.otel:
        return None
    try:
        from opentelemetry.sdk.trace import TracerProvider

        from surefoot.otel import OtelTracer
    except ImportError:
        raise UsageProblem(t(lang, "otel_not_installed"), code="configuration") from None
    if not _PROVIDER:
        _PROVIDER.append(_provider(lang))
    provider = _PROVIDER[0]
    assert isinstance(provider, TracerProvider)
    return OtelTracer(provider)


def _provider(lang: Lang) -> object:
    """A TracerProvider exporting as the ``OTEL_*`` variables say (shut down at exit)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
        SpanExporter,
    )

    kind = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    protocol = os.environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "")
    )
    exporter: SpanExporter
    if kind == "console":
        exporter = ConsoleSpanExporter(out=sys.stderr)
    elif kind == "otlp" and protocol in ("", "http/protobuf"):
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise UsageProblem(t(lang, "otel_not_installed"), code="configuration") from None
        exporter = OTLPSpanExporter()
    else:
        shown = kind if kind != "otlp" else f"otlp ({protocol})"
        raise UsageProblem(t(lang, "otel_exporter", value=shown), code="configuration")
    named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "gymnasia"}
    provider = TracerProvider(resource=Resource.create(named))
    processor = SimpleSpanProcessor(exporter) if kind == "console" else BatchSpanProcessor(exporter)
    provider.add_span_processor(processor)
    return provider
