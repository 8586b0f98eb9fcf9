"""What durability costs: per tool round and per write, in memory, on a SQLite file and on
PostgreSQL, side by side in one run.

A turn is a scripted model asking for ``R`` rounds of one sync tool call each, then answering.
The cost of a round is the slope between turns of 1 and of ``1 + N`` rounds; the cost of a write
is a write round minus a read round. Commits are counted by the ``Database`` itself
(``Database.counts``; fsyncs can't be traced here): a *commit* is a transaction that wrote
(what an fsync is paid for), a *transaction* is any one that committed, reads included. The
budget: one commit per round (the model's response, before its tools run, together with the
previous round's outcomes), plus claim and settlement for a write; a 1-tool turn commits
five times (the hold taken, the person's message, the response, the outcomes with the final
answer, the hold given back).

Backends: ``memory`` (``MemoryLedger`` + ``MemoryJournal``), ``sqlite`` (a file in a temporary
directory: WAL, ``synchronous=FULL``), ``postgresql`` (a fresh schema at ``--pg``, dropped
after; reported as skipped when the server is unreachable).

Run:  .venv/bin/python benchmarks/bench_durable.py [--quick] [--pg URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from commit_rounds import counting, round_tools, rounds_model
from surefoot import Agent, SqlDiagnostics, SqlJournal, SqlLedger, TurnResult, open_database
from surefoot._runner import Turn, TurnRunner
from surefoot.messages import AssistantMessage
from surefoot.sql import Database
from surefoot.sql import TransactionCounts as Counts

PG_DEFAULT = os.environ.get("SUREFOOT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@dataclass
class Backend:
    """One way to keep the journal and ledger."""

    name: str
    agent: Callable[[str, int], Agent]
    counts: Counts | None
    tools: tuple[str, ...]


def memory_backend() -> Backend:
    """Everything in memory (the default ``Agent``)."""
    tools = round_tools(None)

    def agent(tool: str, rounds: int) -> Agent:
        return Agent(model=rounds_model(tool, rounds), tools=tools, lang="en")

    return Backend("memory", agent, None, ("read_item", "write_item"))


class ResultsApart(TurnRunner):
    """The turn runner as it was: each round's outcomes journaled in a commit of their own
    before the model is asked again (for the comparison only)."""

    async def execute(self, turn: Turn, message: AssistantMessage) -> TurnResult | None:
        """Run the round, then journal its outcomes at once."""
        step = await super().execute(turn, message)
        if step is None:
            self.flush(turn)
        return step


def sql_backend(name: str, db: Database, *, results_apart: bool = False) -> Backend:
    """Journal, ledger and diagnostics in ``db`` (``results_apart``: as before, each round's
    outcomes in a commit of their own)."""
    tools = round_tools(db)
    counts = db.counts  # every transaction and commit, counted by the Database
    ledger, journal, diagnostics = SqlLedger(db), SqlJournal(db), SqlDiagnostics(db)

    def agent(tool: str, rounds: int) -> Agent:
        made = Agent(
            model=rounds_model(tool, rounds),
            tools=tools,
            lang="en",
            ledger=ledger,
            journal=journal,
            diagnostics=diagnostics,
        )
        if results_apart:
            made._runner = ResultsApart(made)  # the old path, for the comparison
        return made

    label = f"{name} (results apart)" if results_apart else name
    return Backend(label, agent, counts, ("read_item", "write_item", "write_atomic"))


Config = tuple[str, int]
"""A tool and how many rounds of it a turn runs."""


def run_configs(
    backend: Backend, configs: list[Config], turns: int
) -> dict[Config, tuple[float, Counts]]:
    """Median seconds per turn, and commits per turn, of each config; the configs' turns are
    interleaved so that drift in the machine's load hits them all alike."""
    samples: dict[Config, list[float]] = {c: [] for c in configs}
    totals = {c: Counts() for c in configs}
    agents = {c: [backend.agent(*c) for _ in range(turns)] for c in configs}
    counts = backend.counts or Counts()

    async def run() -> None:
        for index in range(turns):
            for config in configs:
                with counting(counts) as made:
                    started = time.perf_counter()
                    result = await agents[config][index].run_turn(
                        "go", conversation_id="b_" + uuid.uuid4().hex
                    )
                    samples[config].append(time.perf_counter() - started)
                assert result.stop_reason == "completed", result.reply
                totals[config].transactions += made.transactions
                totals[config].commits += made.commits
                totals[config].round_trips += made.round_trips

    asyncio.run(run())
    return {
        c: (
            statistics.median(samples[c]),
            Counts(
                totals[c].transactions // turns,
                totals[c].commits // turns,
                round_trips=totals[c].round_trips // turns,
            ),
        )
        for c in configs
    }


@dataclass
class Row:
    """One backend's numbers."""

    name: str
    turn_us: float
    turn_commits: int
    turn_trips: int
    round_us: float
    round_commits: float
    round_transactions: float
    write_us: dict[str, float]
    write_commits: dict[str, float]


def measure(backend: Backend, *, extra: int, turns: int) -> Row:
    """A round: the slope of read turns between 1 and ``1 + extra`` rounds. A write: a turn of
    ``1 + extra`` write rounds against one of as many read rounds, per round."""
    long = 1 + extra
    configs = [("read_item", 1), *((tool, long) for tool in backend.tools)]
    seen = run_configs(backend, configs, turns)
    (short_t, short_c), (long_t, long_c) = seen["read_item", 1], seen["read_item", long]
    writes = [t for t in backend.tools if t != "read_item"]
    return Row(
        backend.name,
        short_t * 1e6,
        short_c.commits,
        short_c.round_trips,
        (long_t - short_t) / extra * 1e6,
        (long_c.commits - short_c.commits) / extra,
        (long_c.transactions - short_c.transactions) / extra,
        {t: (seen[t, long][0] - long_t) / long * 1e6 for t in writes},
        {t: (seen[t, long][1].commits - long_c.commits) / long for t in writes},
    )


@contextlib.contextmanager
def postgres(url: str) -> Iterator[Database | None]:
    """A database in a fresh schema at ``url`` (None if unreachable), dropped after."""
    try:
        import psycopg

        admin = psycopg.connect(url, autocommit=True, connect_timeout=3)
    except Exception as exc:  # noqa: BLE001 - a benchmark reports what it could not run
        print(f"postgresql: skipped ({type(exc).__name__})")
        yield None
        return
    schema = "bench_" + uuid.uuid4().hex[:10]
    admin.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    db = open_database(f"{url}{sep}options=-csearch_path%3D{schema}")
    try:
        yield db
    finally:
        db.close()
        admin.execute(f"DROP SCHEMA {schema} CASCADE")
        admin.close()


def report(rows: list[Row]) -> None:
    """Print the table and the ratios against memory."""
    base = rows[0]
    print(
        f"\n{'backend':<26} {'1-tool turn':>12} {'commits':>8} {'trips':>6} {'µs/round':>10} "
        f"{'x mem':>7} "
        f"{'commits':>8} {'txns':>6}   extra per write (µs, commits)"
    )
    for row in rows:
        writes = "  ".join(
            f"{tool}: {row.write_us[tool]:8.0f} µs {row.write_commits[tool]:.0f}c"
            for tool in row.write_us
        )
        ratio = row.round_us / base.round_us if base.round_us > 0 else float("nan")
        print(
            f"{row.name:<26} {row.turn_us:10.0f}µs {row.turn_commits:8d} {row.turn_trips:6d} "
            f"{row.round_us:10.1f} "
            f"{ratio:7.1f} {row.round_commits:8.1f} {row.round_transactions:6.1f}   {writes}"
        )
    print(
        "\nBudget: 1 commit per tool round (the response, with the previous round's "
        "outcomes), +2 per write (claim and finalize; for an atomic write, claim and the "
        "write's own transaction); 5 per 1-tool turn. '(results apart)' rows run the same "
        "turns with each round's outcomes in a commit of their own, as before. 'trips': "
        "the statements sent, with each transaction's BEGIN and COMMIT (on PostgreSQL, a "
        "wait for the server each; each turn here starts a new conversation)."
    )
    for row in rows[1:]:
        per_commit = row.round_us / row.round_commits if row.round_commits else float("nan")
        write = row.write_us.get("write_item", 0.0)
        print(
            f"{row.name}: a durable round costs {row.round_us / base.round_us:.0f}x an "
            f"in-memory one (~{per_commit:.0f} µs per commit); a write adds "
            f"{write / max(row.round_us, 1e-9):.1f} rounds' worth"
        )


def main() -> None:
    """Run every backend and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns (a smoke run)")
    parser.add_argument("--pg", default=PG_DEFAULT, help="PostgreSQL server URL")
    options = parser.parse_args()
    extra = 4 if options.quick else 8
    rows = [measure(memory_backend(), extra=extra, turns=30 if options.quick else 200)]
    sql_turns = 5 if options.quick else 25
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "bench.db")
        try:
            for apart in (False, True):
                backend = sql_backend("sqlite", db, results_apart=apart)
                rows.append(measure(backend, extra=extra, turns=sql_turns))
        finally:
            db.close()
    with postgres(options.pg) as pg:
        if pg is not None:
            for apart in (False, True):
                backend = sql_backend("postgresql", pg, results_apart=apart)
                rows.append(measure(backend, extra=extra, turns=sql_turns))
    report(rows)


if __name__ == "__main__":
    main()
