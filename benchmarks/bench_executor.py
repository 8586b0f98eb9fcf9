"""Executor and turn overhead against the hand-written minimum, measured in the same run.

The minimum call: ``json.loads`` the arguments, validate them with a compiled pydantic model,
call a sync function inside ``try/except``, ``json.dumps`` the result. surefoot: the same
arguments parsed into a ``ToolCall``, ``Executor.run_batch`` on that one read call (a sync
handler, from the async loop, no thread hop), the outcome serialized with ``to_wire_text``.
Both use the same argument types (a ``CalendarDate`` and a ranged float) and the same handler.

The error path: the same, with a handler that raises (the minimum answers a small error
object; surefoot keeps a diagnostic and answers ``unavailable``).

The minimum turn: a hand-written loop around the same scripted model: ask it, run each call
the minimum way, append the results to a list, ask again, return the text. surefoot: a full
``Agent`` single-tool turn (the same two scripted responses, a ``MemoryJournal``), awaited
(``run_turn``) and from synchronous code (``run_turn_sync``, one event loop per thread).

Targets: a 1-tool turn at most 2.5x the minimum turn, the error path at most 4x the
minimum's, ``run_turn_sync`` at most 1.5x ``run_turn``. Each repeat (a round) measures
everything once, back to back; the table shows medians over rounds, and each target is
checked on the median of the per-round ratios (so a drift in the machine's load between
rounds cancels out).

Times are wall clock by default; ``--clock cpu`` times the process's CPU time instead, which
a machine shared with other work disturbs less (time spent waiting for a core is not
counted; both sides of every ratio are timed the same way).

Run:  .venv/bin/python benchmarks/bench_executor.py [--quick] [--profile] [--clock cpu]
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

from surefoot import Agent, CalendarDate, MemoryJournal, ModelRequest, ToolSet
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall, UserMessage
from surefoot.outcome import to_wire_text
from surefoot.testing import ScriptedModel, turn

CLOCK: Callable[[], int] = time.perf_counter_ns
"""What every measurement is timed with (``--clock``)."""

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


def failing(date: Any, weight_kg: float) -> dict[str, Any]:
    """The error path's handler, shared by both sides: the store is down."""
    msg = f"measurement store unreachable for {date} ({weight_kg})"
    raise ConnectionError(msg)


def minimum_error(raw: str) -> str:
    """The minimum's error path: the same steps, the handler raises."""
    try:
        args = MinimumArgs.model_validate(json.loads(raw))
        result = failing(args.date, args.weight_kg)
    except Exception as exc:  # noqa: BLE001 - the minimum's own error boundary
        return json.dumps({"is_error": True, "message": type(exc).__name__})
    return json.dumps(result)


async def minimum_turn(model: Any) -> str:
    """A hand-written turn around the same scripted model: ask, run each call the minimum
    way, keep the results in a list, ask again, until the model answers with text."""
    messages: list[Any] = [UserMessage("What did I weigh on 2020-01-01?")]
    while True:
        response = await model.request(ModelRequest(messages=tuple(messages), tools=SPECS))
        message = response.message
        messages.append(message)
        calls = message.tool_calls
        if not calls:
            return str(message.text)
        messages.append([minimum(c.raw_arguments) for c in calls])


# -- surefoot --------------------------------------------------------------------------------


def build_tools() -> ToolSet:
    """One read tool with the same signature and handler, and one that fails."""
    tools = ToolSet()

    @tools.tool
    def read_measurement(date: CalendarDate, weight_kg: Weight) -> dict[str, Any]:
        """Read a measurement."""
        return handler(date, weight_kg)

    @tools.tool
    def read_failing(date: CalendarDate, weight_kg: Weight) -> dict[str, Any]:
        """Read a measurement from a store that is down."""
        return failing(date, weight_kg)

    return tools


TOOLS = build_tools()
SPECS = TOOLS.specs()
EXECUTOR = Executor(TOOLS)


async def surefoot_call(raw: str) -> str:
    """One call as the turn loop makes it: parsed arguments in, serialized outcome out."""
    call = ToolCall("call_1", "read_measurement", json.loads(raw), raw_arguments=raw)
    batch = await EXECUTOR.run_batch((call,), TurnState("conv", 0))
    return to_wire_text(batch.records[0].outcome)


async def surefoot_error(raw: str) -> str:
    """The error path as the turn loop takes it: the handler raises, a diagnostic is kept."""
    call = ToolCall("call_1", "read_failing", json.loads(raw), raw_arguments=raw)
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
    start = CLOCK()
    for _ in range(iterations):
        func()
    return (CLOCK() - start) / iterations / 1000


async def time_async(func: Callable[[], Awaitable[object]], iterations: int) -> float:
    """Microseconds per await of ``func()`` over ``iterations`` awaits."""
    start = CLOCK()
    for _ in range(iterations):
        await func()
    return (CLOCK() - start) / iterations / 1000


async def time_agent(iterations: int) -> float:
    """Microseconds per full single-tool turn (scripts are built before the clock starts)."""
    agent = make_agent()
    models = [script() for _ in range(iterations)]
    start = CLOCK()
    for model in models:
        agent.model = model
        await agent.run_turn("What did I weigh on 2020-01-01?")
    return (CLOCK() - start) / iterations / 1000


async def time_minimum_turn(iterations: int) -> float:
    """Microseconds per hand-written turn around the same scripted model."""
    models = [script() for _ in range(iterations)]
    start = CLOCK()
    for model in models:
        await minimum_turn(model)
    return (CLOCK() - start) / iterations / 1000


def time_agent_sync(iterations: int) -> float:
    """Microseconds per single-tool turn through ``run_turn_sync`` (from plain code)."""
    agent = make_agent()
    models = [script() for _ in range(iterations)]
    start = CLOCK()
    for model in models:
        agent.model = model
        agent.run_turn_sync("What did I weigh on 2020-01-01?")
    return (CLOCK() - start) / iterations / 1000


NAMES = ("minimum", "call", "batch10", "min_error", "error", "min_turn", "agent", "agent_sync")


async def one_round(results: dict[str, list[float]], iterations: int) -> None:
    """One repeat of every awaited measurement."""
    results["minimum"].append(time_sync(lambda: minimum(RAW), iterations))
    results["call"].append(await time_async(lambda: surefoot_call(RAW), iterations))
    per_batch = await time_async(surefoot_batch_of_10, iterations // 10)
    results["batch10"].append(per_batch / 10)
    results["min_error"].append(time_sync(lambda: minimum_error(RAW), iterations))
    results["error"].append(await time_async(lambda: surefoot_error(RAW), iterations))
    results["min_turn"].append(await time_minimum_turn(iterations // 10))
    results["agent"].append(await time_agent(iterations // 10))


def measure(iterations: int, repeats: int) -> dict[str, list[float]]:
    """Interleaved repeats of every measurement (so machine load drifts hit all alike)."""
    results: dict[str, list[float]] = {name: [] for name in NAMES}
    warm: dict[str, list[float]] = {name: [] for name in NAMES}
    asyncio.run(one_round(warm, iterations // 5))  # caches, pydantic, the loop
    time_agent_sync(iterations // 50)
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            asyncio.run(one_round(results, iterations))
            results["agent_sync"].append(time_agent_sync(iterations // 10))
            gc.collect()
    finally:
        gc.enable()
    return results


def report(results: dict[str, list[float]]) -> None:
    """Medians in µs and the ratios to the minimum measured in this same run."""
    median = {name: statistics.median(values) for name, values in results.items()}
    spread = {name: (min(values), max(values)) for name, values in results.items()}
    rows = [
        ("hand-written minimum (per call)", "minimum", "minimum"),
        ("surefoot Executor.run_batch, 1 sync read (per call)", "call", "minimum"),
        ("surefoot 10-call batch (per call)", "batch10", "minimum"),
        ("hand-written minimum, handler raises (per call)", "min_error", "min_error"),
        ("surefoot error path: raises, diagnosed (per call)", "error", "min_error"),
        ("hand-written minimum turn, 1 tool (per turn)", "min_turn", "min_turn"),
        ("surefoot Agent.run_turn, 1 tool (per turn)", "agent", "min_turn"),
        ("surefoot Agent.run_turn_sync, 1 tool (per turn)", "agent_sync", "min_turn"),
    ]
    print(f"{'':55} {'median µs':>10} {'min-max µs':>17} {'x its minimum':>14}")
    for label, name, base in rows:
        low, high = spread[name]
        ratio = median[name] / median[base]
        print(f"{label:55} {median[name]:10.2f} {low:8.2f}-{high:<8.2f} {ratio:14.2f}")
    checks = [
        ("1-tool turn / minimum turn", "agent", "min_turn", 2.5),
        ("error path / minimum error path", "error", "min_error", 4.0),
        ("run_turn_sync / run_turn", "agent_sync", "agent", 1.5),
        ("per call / minimum call", "call", "minimum", 3.0),
    ]
    print("\nmedian of the per-round ratios (each round measures both sides back to back):")
    for label, name, base, target in checks:
        ratio = statistics.median(a / b for a, b in zip(results[name], results[base], strict=True))
        verdict = "within" if ratio <= target else "OVER"
        print(f"{label:35} {ratio:6.2f}x  ({verdict} the {target:g}x target)")


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
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="what to time (see above)"
    )
    options = parser.parse_args()
    global CLOCK  # noqa: PLW0603 - chosen once, before anything is timed
    CLOCK = time.process_time_ns if options.clock == "cpu" else time.perf_counter_ns
    iterations, repeats = (2_000, 3) if options.quick else (options.iterations, options.repeats)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"iterations per repeat: {iterations}, repeats: {repeats} (median reported)")
    print(f"load average: {load} ({options.clock} clock; a busy machine inflates both sides)\n")
    assert json.loads(minimum(RAW)) == json.loads(asyncio.run(surefoot_call(RAW)))
    assert asyncio.run(minimum_turn(script())) == "76.5 kg on 2020-01-01."
    results = measure(iterations, repeats)
    report(results)
    if options.profile:
        profile(iterations)


if __name__ == "__main__":
    main()
