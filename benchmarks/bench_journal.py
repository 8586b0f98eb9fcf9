"""A durable turn on a long conversation costs what it costs on a short one.

Two conversations in one database, one of ``--short`` turns (10) and one of ``--long`` turns
(1,000), each turn a user message, a tool call, its result and an answer (4 messages). The
same agent then runs single-tool turns on them, alternating (so drift in the machine's load
hits both alike), and the median turn of each is printed with their ratio (target: at most
1.5). Three ways:

* ``cached``: the journal as a long-running process has it: the transcript cached from its
  previous turn, checked against the database in one query.
* ``no cache``: ``SqlJournal(cache_size=0)``: every turn reads and parses the whole
  transcript (what every turn did before the cache; and what the first turn after another
  process wrote still does).
* ``other writer``: every turn of ours follows a turn by another connection, so the cached copy
  is stale each time and the load is a full one (the price of correctness across processes).

Backends: a SQLite file (WAL, ``synchronous=FULL``) and PostgreSQL at ``--pg`` (a fresh schema,
dropped after; reported as skipped when unreachable).

Run:  .venv/bin/python benchmarks/bench_journal.py [--quick] [--pg URL]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from surefoot import Agent, Ok, SqlJournal, SqlLedger, ToolSet, open_database
from surefoot.messages import Message, ToolResult, ToolResultsMessage, UserMessage
from surefoot.sql import Database
from surefoot.testing import ScriptedModel, call, turn, write_transcript

PG_DEFAULT = os.environ.get("SUREFOOT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
TARGET = 1.5


def build_tools() -> ToolSet:
    """One sync read tool."""
    tools = ToolSet()

    @tools.tool
    def read_item(n: int) -> dict[str, Any]:
        """Read one item."""
        return {"n": n, "name": "item"}

    return tools


TOOLS = build_tools()


def history(turns: int) -> list[Message]:
    """``turns`` finished single-tool turns, as the loop journals them."""
    messages: list[Message] = []
    for index in range(turns):
        asked = call("read_item", {"n": index}, call_id=f"call_{index}")
        messages += [
            UserMessage(f"what is item {index}?"),
            turn(asked),
            ToolResultsMessage(
                (ToolResult(asked.call_id, "read_item", Ok({"n": index, "name": "item"})),)
            ),
            turn(f"item {index} is an item."),
        ]
    return messages


def one_turn() -> ScriptedModel:
    """A single-tool turn's two responses."""
    return ScriptedModel([turn(call("read_item", {"n": 1})), turn("item 1 is an item.")])


def timed_turn(agent: Agent, conversation_id: str) -> float:
    """Seconds one single-tool turn takes on ``conversation_id``."""
    agent.model = one_turn()
    started = time.perf_counter()
    result = agent.run_turn_sync("what is item 1?", conversation_id=conversation_id)
    elapsed = time.perf_counter() - started
    assert result.stop_reason == "completed", result.reply
    return elapsed


def measure(
    db: Database, other: Database, *, short: int, long: int, samples: int
) -> dict[str, tuple[float, float]]:
    """Median ms per turn on the short and the long conversation, for each way."""
    tag = uuid.uuid4().hex[:8]
    ids = {"short": f"short_{tag}", "long": f"long_{tag}"}
    seed = SqlJournal(db)
    write_transcript(seed, ids["short"], history(short))
    write_transcript(seed, ids["long"], history(long))
    results: dict[str, tuple[float, float]] = {}

    def agent(cache_size: int, journal_db: Database) -> Agent:
        return Agent(
            model=one_turn(),
            tools=TOOLS,
            lang="en",
            journal=SqlJournal(journal_db, cache_size=cache_size),
            ledger=SqlLedger(journal_db),
        )

    ways: dict[str, tuple[Agent, Callable[[str], None] | None]] = {}
    ways["cached"] = (agent(256, db), None)
    ways["no cache"] = (agent(0, db), None)
    intruder = agent(256, other)
    ways["other writer"] = (agent(256, db), lambda cid: _quietly(intruder, cid))
    for name, (runner, before) in ways.items():
        timed_turn(runner, ids["short"])  # warm: the cache, the statements
        timed_turn(runner, ids["long"])
        times: dict[str, list[float]] = {"short": [], "long": []}
        for _ in range(samples):
            for size in ("short", "long"):
                if before is not None:
                    before(ids[size])
                times[size].append(timed_turn(runner, ids[size]))
        results[name] = (
            statistics.median(times["short"]) * 1000,
            statistics.median(times["long"]) * 1000,
        )
    return results


def _quietly(agent: Agent, conversation_id: str) -> None:
    """A turn by another connection (another process, as the database sees it)."""
    agent.model = one_turn()
    agent.run_turn_sync("and item 1?", conversation_id=conversation_id)


def report(name: str, results: dict[str, tuple[float, float]], short: int, long: int) -> None:
    """One backend's table."""
    print(f"\n{name}: ms per single-tool turn at {short} and at {long} turns")
    print(f"  {'journal':<14} {f'{short} turns':>10} {f'{long} turns':>12} {'ratio':>8}")
    for way, (at_short, at_long) in results.items():
        ratio = at_long / at_short
        mark = ""
        if way == "cached":
            mark = "  within the target" if ratio <= TARGET else "  OVER the target"
        print(f"  {way:<14} {at_short:10.2f} {at_long:12.2f} {ratio:8.2f}{mark}")


@contextlib.contextmanager
def postgres(url: str) -> Iterator[str | None]:
    """A fresh schema at ``url`` (None if unreachable), dropped after."""
    try:
        import psycopg

        admin = psycopg.connect(url, autocommit=True, connect_timeout=3)
    except Exception as exc:  # noqa: BLE001 - a benchmark reports what it could not run
        print(f"\npostgresql: skipped ({type(exc).__name__})")
        yield None
        return
    schema = "bench_" + uuid.uuid4().hex[:10]
    admin.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")
        admin.close()


def run(url: str | Path, **sizes: int) -> dict[str, tuple[float, float]]:
    """Measure on the database at ``url`` with two connections."""
    db, other = open_database(url), open_database(url)
    try:
        return measure(db, other, **sizes)
    finally:
        db.close()
        other.close()


def main() -> None:
    """Measure on each backend and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument("--pg", default=PG_DEFAULT, help="PostgreSQL server URL")
    parser.add_argument("--short", type=int, default=10)
    parser.add_argument("--long", type=int, default=1000)
    options = parser.parse_args()
    samples = 5 if options.quick else 21
    sizes = {"short": options.short, "long": options.long, "samples": samples}
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{samples} turns per conversation and way (median); load average: {load}")
    with tempfile.TemporaryDirectory() as tmp:
        report("sqlite", run(Path(tmp) / "bench.db", **sizes), options.short, options.long)
    with postgres(options.pg) as pg:
        if pg is not None:
            report("postgresql", run(pg, **sizes), options.short, options.long)


if __name__ == "__main__":
    main()
