"""Executor overhead per tool call, against the hand-written minimum, in the same run.

The minimum: ``json.loads`` the arguments, validate them with a compiled pydantic model, call a
sync function inside ``try/except``, ``json.dumps`` the result. surefoot: the same arguments
parsed into a ``ToolCall``, ``Executor.run_batch`` on that one read call (a sync handler, from
the async loop, no thread hop), the outcome serialized with ``to_wire_text``. Both use the same
argument types (a ``CalendarDate`` and a ranged float) and the same handler.

Also reported: a 10-call batch (per call), and a full ``Agent`` single-tool turn (two scripted
model responses, a ``MemoryJournal``) against the same minimum.

Run:  .venv/bin/python benchmarks/bench_executor.py [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from surefoot import Agent, CalendarDate, MemoryJournal, ToolSet
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall
from surefoot.outcome import to_wire_text
from surefoot.testing import ScriptedModel, turn

RAW = '{"date": "2020-01-01", "weight_kg": 76.5}'
Weight = Annotated[float, Field(ge=20, le=400)]


def handler(date: Any, weight_kg: float) -> dict[str, Any]:
    """The tool's work, shared by both sides: build a small JSON object."""
    return {"date": date.isoformat(), "weight_kg": weight_kg, "source": "bench"}


# -- the hand-written minimum ----------------------------------------------------------------


class MinimumArgs(BaseModel):
    """The same argument model a careful hand-written tool would compile once."""

    model_config = ConfigDict(strict=True, extra="forbid")
    date: CalendarDate
    weight_kg: Weight


def minimum(raw: str) -> str:
    """Parse, validate, call in try/except, serialize."""
    try:
        args = MinimumArgs.model_validate(json.loads(raw))
        result = handler(args.date, args.weight_kg)
    except Exception as exc:  # noqa: BLE001 - the minimum's own error boundary
        return json.dumps({"is_error": True, "message": type(exc).__name__})
    return json.dumps(result)


# -- surefoot --------------------------------------------------------------------------------


def build_tools() -> ToolSet:
    """One read tool with the same signature and handler."""
    tools = ToolSet()

    @tools.tool
    def read_measurement(date: CalendarDate, weight_kg: Weight) -> dict[str, Any]:
        """Read a measurement."""
        return handler(date, weight_kg)

    return tools


TOOLS = build_tools()
EXECUTOR = Executor(TOOLS)


async def surefoot_call(raw: str) -> str:
    """One call as the turn loop makes it: parsed arguments in, serialized outcome out."""
    call = ToolCall("call_1", "read_measurement", json.loads(raw), raw_arguments=raw)
    batch = await EXECUTOR.run_batch((call,), TurnState("conv", 0))
    return to_wire_text(batch.records[0].outcome)


RAWS = tuple(json.dumps({"date": f"2020-01-{i + 1:02d}", "weight_kg": 76.5}) for i in range(10))


async def surefoot_batch_of_10() -> None:
    """Ten read calls in one batch: each parsed, run, and its outcome serialized."""
    calls = tuple(
        ToolCall(f"call_{i}", "read_measurement", json.loads(raw), raw_arguments=raw)
        for i, raw in enumerate(RAWS)
    )
    batch = await EXECUTOR.run_batch(calls, TurnState("conv", 0))
    for record in batch.records:
        to_wire_text(record.outcome)


def make_agent() -> Agent:
    """An Agent over the same tools with an in-memory journal."""
    return Agent(model=ScriptedModel([]), tools=TOOLS, journal=MemoryJournal())


def script() -> ScriptedModel:
    """A single-tool turn: one call, then a final answer."""
    call = ToolCall("call_1", "read_measurement", json.loads(RAW), raw_arguments=RAW)
    return ScriptedModel([turn(call), turn("76.5 kg on 2020-01-01.")])


# -- timing ----------------------------------------------------------------------------------


def time_sync(func: Callable[[], object], iterations: int) -> float:
    """Microseconds per call of ``func`` over ``iterations`` calls."""
    start = time.perf_counter_ns()
    for _ in range(iterations):
        func()
    return (time.perf_counter_ns() - start) / iterations / 1000


async def time_async(func: Callable[[], Awaitable[object]], iterations: int) -> float:
    """Microseconds per await of ``func()`` over ``iterations`` awaits."""
    start = time.perf_counter_ns()
    for _ in range(iterations):
        await func()
    return (time.perf_counter_ns() - start) / iterations / 1000


async def time_agent(iterations: int) -> float:
    """Microseconds per full single-tool turn (scripts are built before the clock starts)."""
    agent = make_agent()
    models = [script() for _ in range(iterations)]
    start = time.perf_counter_ns()
    for model in models:
        agent.model = model
        await agent.run_turn("What did I weigh on 2020-01-01?")
    return (time.perf_counter_ns() - start) / iterations / 1000


async def measure(iterations: int, repeats: int) -> dict[str, list[float]]:
    """Interleaved repeats of every measurement (so machine load drifts hit all alike)."""
    results: dict[str, list[float]] = {"minimum": [], "call": [], "batch10": [], "agent": []}
    # Warm up caches, pydantic, the loop.
    time_sync(lambda: minimum(RAW), iterations // 5)
    await time_async(lambda: surefoot_call(RAW), iterations // 5)
    await time_async(surefoot_batch_of_10, iterations // 50)
    await time_agent(iterations // 20)
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            results["minimum"].append(time_sync(lambda: minimum(RAW), iterations))
            results["call"].append(await time_async(lambda: surefoot_call(RAW), iterations))
            per_batch = await time_async(surefoot_batch_of_10, iterations // 10)
            results["batch10"].append(per_batch / 10)
            results["agent"].append(await time_agent(iterations // 10))
            gc.collect()
    finally:
        gc.enable()
    return results


def report(results: dict[str, list[float]]) -> None:
    """Medians in µs and the ratios to the minimum measured in this same run."""
    median = {name: statistics.median(values) for name, values in results.items()}
    spread = {name: (min(values), max(values)) for name, values in results.items()}
    base = median["minimum"]
    rows = [
        ("hand-written minimum (per call)", "minimum"),
        ("surefoot Executor.run_batch, 1 sync read (per call)", "call"),
        ("surefoot 10-call batch (per call)", "batch10"),
        ("surefoot Agent single-tool turn (per turn)", "agent"),
    ]
    print(f"{'':55} {'median µs':>10} {'min-max µs':>17} {'x minimum':>10}")
    for label, name in rows:
        low, high = spread[name]
        print(
            f"{label:55} {median[name]:10.2f} {low:8.2f}-{high:<8.2f} {median[name] / base:10.2f}"
        )
    ratio = median["call"] / base
    verdict = "within" if ratio <= 3 else "OVER"
    print(f"\nsurefoot per-call overhead: {ratio:.2f}x the minimum ({verdict} the 3x target)")


def profile(iterations: int) -> None:
    """cProfile of the surefoot per-call path, the executor's own lines first."""

    async def many() -> None:
        for _ in range(iterations):
            await surefoot_call(RAW)

    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(many())
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime")
    print("\n-- profile: surefoot/_executor.py and friends, by own time --")
    stats.print_stats(r"surefoot|pydantic|json", 25)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of surefoot")
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    options = parser.parse_args()
    iterations, repeats = (2_000, 3) if options.quick else (options.iterations, options.repeats)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"iterations per repeat: {iterations}, repeats: {repeats} (median reported)")
    print(f"load average: {load} (wall-clock timings; a busy machine inflates both sides)\n")
    assert json.loads(minimum(RAW)) == json.loads(asyncio.run(surefoot_call(RAW)))
    results = asyncio.run(measure(iterations, repeats))
    report(results)
    if options.profile:
        profile(iterations)


if __name__ == "__main__":
    main()
