"""A worker of the crash soak: ``test_crash_soak.py`` spawns it (this is not a test module).

::

    python soak_worker.py init --db PATH
    python soak_worker.py work --db PATH --worker N --log FILE [--lease S] [--jobs N]
        [--failpoint POINT --fail-tool TOOL --fail-at N --fail-action kill|stop]
        [--mutant none|retry_unknown|early_ack]
    python soak_worker.py reconcile --db PATH

``work`` runs writes through surefoot's ``Executor`` on one SQLite file, one job after another:
even jobs call ``atomic_write`` (an effect row and ``ctx.commit_in`` in one transaction), odd
jobs call ``plain_write`` (an effect row in its own commit; the executor settles the ledger
after, and a ``reconcile`` hook looks the effect up by its idempotency key). After each job
the worker reads the job's ledger row and appends the outcome and that state to its log,
fsynced: a line with ``"outcome": "ok"`` is a write this worker reported as confirmed. A
restarted worker goes on at the first job its log has no outcome for, so an interrupted job
runs again under the same key, as a resumed turn would.

Fail points, in the order a write reaches them:

* ``after_claim``  the ledger row is ``pending``, nothing else happened;
* ``after_effect`` atomic: effect inserted, its transaction still open; plain: effect committed;
* ``in_finalize``  plain: inside the ledger's finalize transaction, its UPDATE done, no COMMIT;
* ``before_ack``   the executor returned; the worker has not logged the outcome yet.

The N-th time a point is reached (by ``--fail-tool``, if given) the worker logs the event and
SIGKILLs itself, or SIGSTOPs itself (``--fail-action stop``) so the nemesis can hold it past its
lease, take its write over and SIGCONT it.

Mutants, only for the soak's mutation controls:

* ``retry_unknown`` an ``Executor`` that re-runs a write whose outcome is ``outcome_unknown``
  or ``not_applied`` under a new claim: the automatic retry the decision table forbids;
* ``early_ack``     the worker logs a write as confirmed as soon as its effect is made, before
  the ledger commit.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surefoot import Ok, ReconcileResult, SqlLedger, ToolContext, ToolError, ToolSet, open_database
from surefoot.executor import Executor, TurnState
from surefoot.ledger import Claim, LedgerState, canonical_json
from surefoot.messages import ToolCall
from surefoot.sql import Database, Tx

TOOLS = ("atomic_write", "plain_write")
POINTS = ("after_claim", "after_effect", "in_finalize", "before_ack")
MIGRATIONS = [
    """
    CREATE TABLE soak_effects (
        id {serial},
        key TEXT NOT NULL,
        job TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        result TEXT NOT NULL
    )
    """,
]
"""No unique constraint on ``key``: a duplicate effect must be visible to the checker."""


class Log:
    """One worker's durable log: JSON lines, each fsynced before the worker goes on."""

    def __init__(self, path: Path, worker: int) -> None:
        self.path = path
        self.worker = worker
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, kind: str, **fields: Any) -> None:
        """Append one record and fsync it."""
        record = {"kind": kind, "worker": self.worker, "pid": os.getpid(), **fields}
        os.write(self._fd, (json.dumps(record, sort_keys=True) + "\n").encode())
        os.fsync(self._fd)

    def next_job(self) -> int:
        """The first job this worker has not logged an outcome for."""
        done = [r["job"] for r in read_log(self.path) if r["kind"] == "outcome"]
        return max(done, default=-1) + 1


def read_log(path: Path) -> list[dict[str, Any]]:
    """The records of a log; a torn last line (a kill mid-write) is not a record."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


@dataclasses.dataclass
class FailPoints:
    """Where this incarnation dies (or stops): the N-th time ``point`` is reached."""

    log: Log
    point: str | None = None
    tool: str | None = None
    nth: int = 1
    action: str = "kill"
    job: int = -1
    seen: int = 0

    def hit(self, point: str, tool: str) -> bool:
        """Whether reaching ``point`` now is the time to fire."""
        if point != self.point or (self.tool is not None and tool != self.tool):
            return False
        self.seen += 1
        return self.seen == self.nth

    def reach(self, point: str, tool: str, key: str | None) -> None:
        """Fire if this is the chosen time."""
        if self.hit(point, tool):
            self.fire(point, tool, key)

    def fire(self, point: str, tool: str, key: str | None) -> None:
        """Log the event, then SIGKILL or SIGSTOP this process."""
        self.log.write(
            "failpoint", point=point, tool=tool, job=self.job, key=key, action=self.action
        )
        os.kill(os.getpid(), signal.SIGSTOP if self.action == "stop" else signal.SIGKILL)


class FailpointLedger(SqlLedger):
    """The SQL ledger with the ``after_claim`` and ``in_finalize`` fail points."""

    def __init__(self, db: Database, points: FailPoints) -> None:
        super().__init__(db)
        self.points = points

    def claim(
        self,
        *,
        key: str,
        conversation_id: str,
        tool: str,
        fingerprint: str,
        arguments: dict[str, Any],
        lease_seconds: float,
    ) -> Claim:
        claim = super().claim(
            key=key,
            conversation_id=conversation_id,
            tool=tool,
            fingerprint=fingerprint,
            arguments=arguments,
            lease_seconds=lease_seconds,
        )
        if claim.owned:
            self.points.reach("after_claim", tool, key)
        return claim

    def finalize(
        self,
        key: str,
        attempt: int,
        state: LedgerState,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> bool:
        if self.points.point == "in_finalize":
            entry = self.get(key)
            if entry is not None and self.points.hit("in_finalize", entry.tool):
                with self.db.transaction() as tx:  # SqlLedger.finalize's statement, then death
                    tx.execute(
                        "UPDATE sf_ledger SET state = ?, result = ?, error = ?, "
                        "updated_at = {now} WHERE key = ? AND attempt = ? "
                        "AND state IN ('pending', 'unknown')",
                        (state, _json(result), _json(error), key, attempt),
                    )
                    self.points.fire("in_finalize", entry.tool, key)
        return super().finalize(key, attempt, state, result=result, error=error)


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


class RetryUnknownExecutor(Executor):
    """MUTANT: re-runs a write whose outcome is unknown, in progress or not applied, under a
    new claim."""

    async def run_batch(self, calls: Sequence[ToolCall], state: TurnState, **kwargs: Any) -> Any:
        batch = await super().run_batch(calls, state, **kwargs)
        records = []
        for record in batch.records:
            retried = record
            for attempt in range(1, 4):
                outcome = retried.outcome
                if not isinstance(outcome, ToolError) or outcome.code not in (
                    "outcome_unknown",
                    "in_progress",
                    "not_applied",
                ):
                    break
                fresh = TurnState(state.conversation_id, state.user_turn + attempt, lang=state.lang)
                (retried,) = (await super().run_batch([record.call], fresh)).records
            records.append(retried)
        return dataclasses.replace(batch, records=tuple(records))


@dataclasses.dataclass
class Effects:
    """What the tools do besides their effect: fail points, and the early-ack mutant."""

    points: FailPoints
    log: Log
    early_ack: bool = False

    def made(self, ctx: ToolContext, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        """The effect was just made (atomic: not committed yet)."""
        if self.early_ack:
            self.log.write(
                "outcome",
                early=True,
                job=self.points.job,
                tool=ctx.tool,
                key=ctx.key,
                arguments=arguments,
                outcome="ok",
                result=result,
                state="committed",
                executed=True,
            )
        self.points.reach("after_effect", ctx.tool, ctx.key)


def _insert(tx: Tx, ctx: ToolContext, arguments: dict[str, Any], result: dict[str, Any]) -> None:
    tx.execute(
        "INSERT INTO soak_effects (key, job, tool, arguments, result) VALUES (?, ?, ?, ?, ?)",
        (ctx.key, arguments["job"], ctx.tool, canonical_json(arguments), canonical_json(result)),
    )


def build_tools(db: Database, effects: Effects | None) -> ToolSet:
    """The two write tools over ``db``."""
    tools = ToolSet()

    def find_effect(key: str, arguments: dict[str, Any]) -> ReconcileResult:
        rows = db.query("SELECT result FROM soak_effects WHERE key = ?", (key,))
        return Ok(json.loads(rows[0][0])) if rows else "absent"

    def made(ctx: ToolContext, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        if effects is not None:
            effects.made(ctx, arguments, result)

    @tools.tool(effect="write", atomic=True)
    def atomic_write(ctx: ToolContext, job: str, amount: int) -> dict[str, Any]:
        """Record one unit of work; the effect and the ledger commit in one transaction."""
        arguments = {"amount": amount, "job": job}
        result = {**arguments, "by": os.getpid()}
        with db.transaction() as tx:
            _insert(tx, ctx, arguments, result)
            made(ctx, arguments, result)
            ctx.commit_in(tx, result)
        return result

    @tools.tool(effect="write", reconcile=find_effect)
    def plain_write(ctx: ToolContext, job: str, amount: int) -> dict[str, Any]:
        """Record one unit of work in its own commit; the executor settles the ledger."""
        arguments = {"amount": amount, "job": job}
        result = {**arguments, "by": os.getpid()}
        with db.transaction() as tx:
            _insert(tx, ctx, arguments, result)
        made(ctx, arguments, result)
        return result

    return tools


async def work(options: argparse.Namespace) -> None:
    """Run jobs until ``--jobs`` (or forever, until killed)."""
    db = open_database(options.db)
    log = Log(Path(options.log), options.worker)
    points = FailPoints(
        log, options.failpoint, options.fail_tool, options.fail_at, options.fail_action
    )
    effects = Effects(points, log, early_ack=options.mutant == "early_ack")
    ledger = FailpointLedger(db, points)
    executor_type = RetryUnknownExecutor if options.mutant == "retry_unknown" else Executor
    executor = executor_type(build_tools(db, effects), ledger=ledger, lease_seconds=options.lease)
    job = log.next_job()
    while options.jobs is None or job < options.jobs:
        points.job = job
        tool = TOOLS[job % 2]
        arguments = {"job": f"w{options.worker}-{job}", "amount": job % 7 + 1}
        state = TurnState(f"soak-w{options.worker}-{job}", 0, lang="en")
        batch = await executor.run_batch([ToolCall(f"call_{job}", tool, arguments)], state)
        (record,) = batch.records
        points.reach("before_ack", tool, record.key)
        entry = ledger.get(record.key) if record.key else None
        outcome = record.outcome
        log.write(
            "outcome",
            job=job,
            tool=tool,
            key=record.key,
            arguments=arguments,
            outcome="ok" if isinstance(outcome, Ok) else outcome.code,
            result=outcome.data if isinstance(outcome, Ok) else None,
            state=entry.state if entry is not None else None,
            executed=record.executed,
        )
        job += 1
    db.close()


def reconcile(options: argparse.Namespace) -> dict[str, Any]:
    """Wait out every lease, then settle what can be settled (``Executor.reconcile``)."""
    db = open_database(options.db)
    ledger = SqlLedger(db)
    before = Counter(e.state for e in ledger.entries())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(
        not e.lease_expired for e in ledger.entries(state="pending")
    ):
        time.sleep(0.1)
    open_keys = {e.key for e in ledger.entries() if e.state in ("pending", "unknown")}
    settled = Executor(build_tools(db, None), ledger=ledger).reconcile()
    reconciled = Counter(e.state for e in settled if e.key in open_keys)
    after = Counter(e.state for e in ledger.entries())
    db.close()
    return {"before": before, "after": after, "open": len(open_keys), "reconciled": reconciled}


def main(argv: Sequence[str]) -> None:
    """Parse the command line and run it."""
    parser = argparse.ArgumentParser(prog="soak_worker")
    parser.add_argument("command", choices=("init", "work", "reconcile"))
    parser.add_argument("--db", required=True)
    parser.add_argument("--worker", type=int, default=0)
    parser.add_argument("--log")
    parser.add_argument("--lease", type=float, default=1.0)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--failpoint", choices=POINTS)
    parser.add_argument("--fail-tool", choices=TOOLS)
    parser.add_argument("--fail-at", type=int, default=1)
    parser.add_argument("--fail-action", choices=("kill", "stop"), default="kill")
    parser.add_argument("--mutant", choices=("none", "retry_unknown", "early_ack"), default="none")
    options = parser.parse_args(argv)
    if options.command == "init":
        db = open_database(options.db)
        db.migrate("soak", MIGRATIONS)
        db.close()
    elif options.command == "work":
        asyncio.run(work(options))
    else:
        sys.stdout.write(json.dumps(reconcile(options)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
