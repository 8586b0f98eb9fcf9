"""Many conversations at once on one event loop, and memory over a long-running process.

Part 1: ``--conversations`` (1,000) single-tool turns started together on one event loop, one
``Agent`` with the in-memory stores. The model answers after ``--latency`` ms (an await, as a
remote model would) and the tool is async and awaits as long. Printed: the wall time, beside
the time one turn takes alone (their ratio is how far the turns overlap: 1,000 turns that
overlapped perfectly would take one turn's time), turns per second, and the peak RSS.

Part 2: ``--turns`` (100,000) finished single-tool turns, one after another, each in a new
conversation, in this one process. The resident set size is printed at checkpoints: with the
default ``MemoryJournal`` limit it levels off once the limit is reached (finished
conversations beyond it are forgotten with their settled writes); ``--unbounded`` runs the
same with no limit, for contrast.

Run:  .venv/bin/python benchmarks/bench_concurrency.py [--quick] [--unbounded]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import time
from collections.abc import AsyncIterator
from typing import Any

from surefoot import Agent, MemoryJournal, ModelRequest, ModelResponse, ToolSet
from surefoot.messages import (
    AssistantMessage,
    StreamEvent,
    ToolResultsMessage,
    stream_from_request,
)
from surefoot.testing import call, turn


class SlowModel:
    """Asks for one tool call, then answers; each answer after ``latency`` seconds."""

    provider = "bench"
    model_name = "slow"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    async def request(self, request: ModelRequest) -> ModelResponse:
        """One answer, after an await."""
        if self.latency:
            await asyncio.sleep(self.latency)
        last = request.messages[-1]
        message: AssistantMessage
        if isinstance(last, ToolResultsMessage):
            message = turn("item 7 is an item.")
        else:
            message = turn(call("read_item", {"n": 7}, call_id="call_1"))
        return ModelResponse(message)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The answer as one stream."""
        return stream_from_request(self, request)


def build_tools(latency: float) -> ToolSet:
    """One async read tool that awaits ``latency`` seconds."""
    tools = ToolSet()

    @tools.tool
    async def read_item(n: int) -> dict[str, Any]:
        """Read one item."""
        if latency:
            await asyncio.sleep(latency)
        return {"n": n, "name": "item"}

    return tools


def rss_mb() -> float:
    """Resident set size now, in MiB."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def concurrent(conversations: int, latency: float) -> None:
    """Part 1."""
    agent = Agent(model=SlowModel(latency), tools=build_tools(latency), lang="en")
    started = time.perf_counter()
    alone = await agent.run_turn("what is item 7?")
    one = time.perf_counter() - started
    assert alone.stop_reason == "completed"
    before = rss_mb()
    started = time.perf_counter()
    results = await asyncio.gather(
        *(agent.run_turn("what is item 7?") for _ in range(conversations))
    )
    wall = time.perf_counter() - started
    assert all(r.stop_reason == "completed" for r in results)
    print(
        f"{conversations} concurrent single-tool turns (model and tool each await "
        f"{latency * 1000:.0f} ms)"
    )
    print(f"  one turn alone        {one * 1000:9.1f} ms")
    print(f"  {'all of them at once':<21} {wall * 1000:9.1f} ms  ({wall / one:.1f}x one turn)")
    print(f"  turns per second      {conversations / wall:9.0f}")
    print(f"  RSS before / peak     {before:9.1f} / {peak_rss_mb():.1f} MiB")


async def long_running(turns: int, *, unbounded: bool) -> None:
    """Part 2."""
    journal = MemoryJournal(limit=None) if unbounded else MemoryJournal()
    agent = Agent(model=SlowModel(0.0), tools=build_tools(0.0), lang="en", journal=journal)
    checkpoints = {turns // 10, turns // 4, turns // 2, (3 * turns) // 4, turns}
    limit = "no limit" if journal.limit is None else f"limit {journal.limit}"
    print(f"\n{turns} finished in-memory turns, one after another (MemoryJournal {limit})")
    print(f"  {'turns':>8} {'RSS MiB':>9} {'conversations kept':>19} {'µs/turn':>9}")
    started = time.perf_counter()
    for index in range(1, turns + 1):
        result = await agent.run_turn("what is item 7?")
        assert result.stop_reason == "completed"
        if index in checkpoints:
            elapsed = time.perf_counter() - started
            gc.collect()
            kept = len(agent.conversations())
            print(f"  {index:8d} {rss_mb():9.1f} {kept:19d} {elapsed / index * 1e6:9.1f}")


def main() -> None:
    """Run both parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller numbers (a smoke run)")
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=20.0, help="ms per model answer/tool")
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--unbounded", action="store_true", help="part 2 with no limit too")
    options = parser.parse_args()
    conversations, turns = (
        (200, 20_000) if options.quick else (options.conversations, options.turns)
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average: {load}\n")
    asyncio.run(concurrent(conversations, options.latency / 1000))
    asyncio.run(long_running(turns, unbounded=False))
    if options.unbounded:
        asyncio.run(long_running(turns, unbounded=True))


if __name__ == "__main__":
    main()
