"""A durable turn on DBOS against the built-in SQL journal, on the same PostgreSQL, side by side
in one run: milliseconds and commits per tool round, with one call and with three calls per
round.

A turn is a scripted model asking for ``R`` rounds of ``k`` atomic writes each (the write and
its ledger record in one transaction), then answering. The cost of a round is the slope between
turns of 1 and of ``1 + N`` rounds. Both backends keep their journal and ledger in one fresh
database; DBOS keeps its system tables there too (as an application on DBOS would, beside its
data). Commits are transactions that changed something: surefoot's counted by the
``Database`` itself (``Database.counts``), DBOS's by SQLAlchemy events on its system database's
engine. The tools, the model and the counting are ``commit_rounds.py``'s.

Run:  .venv/bin/python benchmarks/bench_dbos.py [--quick] [--pg URL]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Coroutine
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_durable import PG_DEFAULT, Counts
from commit_rounds import counting, round_tools, rounds_model
from surefoot import Agent, SqlJournal, SqlLedger, TurnResult, open_database
from surefoot.sql import Database

WRITES = ("INSERT", "UPDATE", "DELETE")


def count_engine_commits() -> Counts:
    """DBOS's transactions (and those that wrote) on its system database."""
    from dbos._dbos import _get_dbos_instance
    from sqlalchemy import event

    counts = Counts()
    wrote: set[int] = set()
    engine = _get_dbos_instance()._sys_db.engine

    def executed(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith(WRITES):
            wrote.add(id(conn))

    def committed(conn: Any) -> None:
        counts.transactions += 1
        if id(conn) in wrote:
            counts.commits += 1
            wrote.discard(id(conn))

    event.listen(engine, "before_cursor_execute", executed)
    event.listen(engine, "commit", committed)
    return counts


@dataclass
class Side:
    """One way to run a turn, and the commits it makes."""

    name: str
    run: Callable[[int, int, str], Coroutine[Any, Any, TurnResult]]
    counted: list[Counts]


def builtin_side(db: Database) -> Side:
    """``Agent.run_turn`` on ``SqlJournal`` + ``SqlLedger``."""
    tools = round_tools(db)
    journal, ledger = SqlJournal(db, user="builtin"), SqlLedger(db, user="builtin")

    async def run(calls: int, rounds: int, cid: str) -> TurnResult:
        model = rounds_model("write_atomic", rounds, calls=calls)
        agent = Agent(model=model, tools=tools, journal=journal, ledger=ledger)
        return await agent.run_turn("go", conversation_id=cid)

    return Side("built-in", run, [db.counts])


def dbos_side(db: Database, configs: list[tuple[int, int]]) -> Side:
    """``DurableAgent.run_turn``: each turn a DBOS workflow (DBOS is launched afterwards)."""
    from surefoot.dbos import DurableAgent

    tools = round_tools(db)
    journal, ledger = SqlJournal(db, user="dbos"), SqlLedger(db, user="dbos")
    agents = {
        (calls, rounds): DurableAgent(
            Agent(
                model=rounds_model("write_atomic", rounds, calls=calls),
                tools=tools,
                journal=journal,
                ledger=ledger,
            ),
            name=f"bench-{calls}-{rounds}",
        )
        for calls, rounds in configs
    }
    return Side(
        "DBOS", lambda c, r, cid: agents[c, r].run_turn("go", conversation_id=cid), [db.counts]
    )


def launch(url: str) -> Counts:
    """DBOS on ``url``; its commits counted from now on."""
    from dbos import DBOS

    DBOS(
        config={
            "name": "bench-dbos",
            "system_database_url": url,
            "application_version": "bench",
            "log_level": "WARNING",
        }
    )
    DBOS.launch()
    return count_engine_commits()


def measure(side: Side, calls: int, rounds: int, turns: int) -> tuple[float, float, float]:
    """Median ms per turn, and surefoot's and the engine's commits per turn."""

    async def run() -> tuple[list[float], list[int]]:
        times, commits = [], [0] * len(side.counted)
        for _ in range(turns):
            with ExitStack() as stack:
                made = [stack.enter_context(counting(counts)) for counts in side.counted]
                start = time.perf_counter()
                result = await side.run(calls, rounds, "c_" + uuid.uuid4().hex[:10])
                times.append(time.perf_counter() - start)
            assert result.reply == "done", result.reply
            for i, counted in enumerate(made):
                commits[i] += counted.commits
        return times, commits

    times, commits = asyncio.run(run())
    per = [c / turns for c in commits] + [0.0] * (2 - len(commits))
    return statistics.median(times) * 1000, per[0], per[1]


def report(sides: list[Side], extra: int, turns: int) -> None:
    """Per round (the slope between turns of 1 and 1 + ``extra`` rounds), side by side."""
    print(f"{turns} turns per config; a round = one model response + its calls (atomic writes)")
    print(
        f"\n{'calls':>5} {'backend':<9} {'ms/round':>9} {'x built-in':>10} "
        f"{'surefoot c':>10} {'DBOS c':>7} {'total c':>8} {'ms/turn(1)':>10}"
    )
    for calls in (1, 3):
        base_ms = 0.0
        for side in sides:
            short = measure(side, calls, 1, turns)
            long = measure(side, calls, 1 + extra, turns)
            ms, ours, engine = ((b - a) / extra for a, b in zip(short, long, strict=True))
            base_ms = base_ms or ms
            print(
                f"{calls:>5} {side.name:<9} {ms:9.2f} {ms / base_ms:10.2f} {ours:10.1f} "
                f"{engine:7.1f} {ours + engine:8.1f} {short[0]:10.2f}"
            )
    print(
        "\nsurefoot c: commits of the journal and ledger (+ the tools' own); DBOS c: commits "
        "of DBOS's system tables (steps, workflow status)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", default=PG_DEFAULT, help="a PostgreSQL server URL")
    parser.add_argument("--quick", action="store_true", help="fewer turns (a smoke run)")
    args = parser.parse_args()
    turns, extra = (3, 2) if args.quick else (15, 4)
    import psycopg
    from dbos import DBOS

    name = "bench_dbos_" + uuid.uuid4().hex[:8]
    with psycopg.connect(args.pg, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = f"{args.pg.split('?')[0].rsplit('/', 1)[0]}/{name}"
    databases = [open_database(url), open_database(url)]
    configs = [(k, r) for k in (1, 3) for r in (1, 1 + extra)]
    try:
        builtin = builtin_side(databases[0])
        durable = dbos_side(databases[1], configs)
        durable.counted.append(launch(url))
        report([builtin, durable], extra, turns)
    finally:
        DBOS.destroy()
        for db in databases:
            db.close()
        with psycopg.connect(args.pg, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()
