"""What tracing costs per tool call, in the same run: the default (no tracer), an
``OtelTracer`` on OpenTelemetry's no-op provider (the API installed, no SDK configured), and
an ``OtelTracer`` on the SDK's provider with a span processor that drops every span (the cost
of making spans, without the cost of exporting them).

The call is ``Executor.run_batch`` on one sync read, as in ``bench_executor.py``.

Run:  .venv/bin/python benchmarks/bench_tracing.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import time
from typing import Any

from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.trace import NoOpTracerProvider

from surefoot import CalendarDate, ToolSet
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall
from surefoot.otel import OtelTracer
from surefoot.tracing import Tracer

RAW = '{"date": "2020-01-01"}'


def build_tools() -> ToolSet:
    tools = ToolSet()

    @tools.tool
    def read_measurement(date: CalendarDate) -> dict[str, Any]:
        """Read a measurement."""
        return {"date": date.isoformat(), "weight_kg": 76.5}

    return tools


class _Drop(SpanProcessor):
    """Receives every span and keeps none."""


def executors() -> dict[str, Executor]:
    tools = build_tools()
    sdk = TracerProvider()
    sdk.add_span_processor(_Drop())
    tracers: dict[str, Tracer | None] = {
        "none": None,
        "otel, no-op provider": OtelTracer(NoOpTracerProvider()),
        "otel, SDK provider": OtelTracer(sdk),
    }
    return {name: Executor(tools, tracer=tracer) for name, tracer in tracers.items()}


async def per_call(executor: Executor, iterations: int) -> float:
    """Microseconds per one-call batch."""
    call = ToolCall("call_1", "read_measurement", json.loads(RAW), raw_arguments=RAW)
    start = time.perf_counter_ns()
    for _ in range(iterations):
        await executor.run_batch((call,), TurnState("conv", 0))
    return (time.perf_counter_ns() - start) / iterations / 1000


async def measure(iterations: int, repeats: int) -> dict[str, list[float]]:
    """Interleaved repeats, so machine load drifts hit every variant alike."""
    built = executors()
    results: dict[str, list[float]] = {name: [] for name in built}
    for executor in built.values():
        await per_call(executor, iterations // 5)  # warm up
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            for name, executor in built.items():
                results[name].append(await per_call(executor, iterations))
            gc.collect()
    finally:
        gc.enable()
    return results


def report(results: dict[str, list[float]]) -> None:
    """Medians in µs and the ratio to the untraced call measured in this run."""
    median = {name: statistics.median(values) for name, values in results.items()}
    base = median["none"]
    print(f"{'per call':32} {'median µs':>10} {'x untraced':>11}")
    for name, value in median.items():
        print(f"{name:32} {value:10.2f} {value / base:11.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    args = parser.parse_args()
    iterations, repeats = (1000, 3) if args.quick else (5000, 7)
    report(asyncio.run(measure(iterations, repeats)))


if __name__ == "__main__":
    main()
