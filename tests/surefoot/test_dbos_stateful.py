"""The model-based test of the write and approval contract (``test_stateful_paths``), with
every user turn a DBOS workflow on PostgreSQL.

The same people, scripts, crashes and checks: a process dies at any commit of the journal and
the ledger, before or after it — so at every boundary of a step: before its work, inside it,
after its work and before DBOS recorded it — and the next process of that user recovers the
dead process's workflows (DBOS runs them again; each recorded step returns its result, the
step cut short goes on from the journal). Decisions reach the waiting workflow as DBOS
messages. The mutation controls run against this harness too, and must be caught.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any, ClassVar

import pytest
from dbos import DBOS

from surefoot import Agent, ConfigurationError

sys.path.insert(0, str(Path(__file__).parent))

import test_stateful_paths as paths
from dbos_support import dbos_url  # noqa: F401 - the fixture

from surefoot.dbos import DurableAgent, Retry

EXAMPLES = int(os.environ.get("SUREFOOT_DBOS_STATEFUL_EXAMPLES", "12"))
QUIET = 0.15
"""How long nothing must change before a step of the machine is over (workflows recovered
by DBOS run in its own threads)."""


class DbosHarness(paths.Harness):
    """The harness's processes, each turn a workflow of a ``DurableAgent``."""

    durables: ClassVar[dict[str, DurableAgent]]

    def _name(self, user: str) -> str:
        if not hasattr(self, "run_id"):
            self.run_id = "st" + uuid.uuid4().hex[:8]
        return f"{self.run_id}-{user}"

    def _process(self, user: str) -> tuple[paths.CrashableDatabase, Agent]:
        """The user's process; a new one (the last died) runs that user's turns from now on:
        every workflow that ran in a dead process is recovered by the next one."""
        found = self.processes.get(user)
        process = super()._process(user)
        if found is not process:
            if not hasattr(self, "durables"):
                self.durables = {}
            self.durables[user] = DurableAgent(
                process[1], name=self._name(user), retry=Retry(attempts=1), approval_wait_seconds=60
            )
        return process

    def _recover(self, user: str) -> None:
        """Run again the user's workflows that no process runs (a step of the machine ends
        with its process's event loop: what it left waiting, or cut short, is recovered)."""
        self._process(user)
        for status in self._workflows(user, "CANCELLED"):
            DBOS.resume_workflow(status.workflow_id)
        self._quiet(user)

    def _stop_all(self, user: str) -> None:
        """The end of a step of the machine: nothing of the user's keeps running."""
        for status in self._workflows(user, "PENDING"):
            DBOS.cancel_workflow(status.workflow_id)

    def _workflows(self, user: str, state: str) -> list[Any]:
        prefix = f"surefoot:{self._name(user)}:"
        return DBOS.list_workflows(workflow_id_prefix=prefix, status=state, load_input=False)

    def _quiet(self, user: str) -> None:
        """Wait until this user's workflows stop changing (ended, or waiting for a person)."""
        last, since = None, time.monotonic()
        deadline = since + 30
        while time.monotonic() < deadline:
            seen = [
                (s.workflow_id, s.status, len(DBOS.list_workflow_steps(s.workflow_id)))
                for s in DBOS.list_workflows(
                    workflow_id_prefix=f"surefoot:{self._name(user)}:", load_input=False
                )
            ]
            if seen != last:
                last, since = seen, time.monotonic()
            elif time.monotonic() - since >= QUIET:
                return
            time.sleep(0.03)

    def _engine(self, user: str, work: Any) -> None:
        """Run ``work(durable)`` in the user's process (``_drive``: a crash kills it)."""
        self._recover(user)
        try:
            self._drive(user, lambda agent: _bounded(work(self.durables[user])))
        finally:
            self._quiet(user)
            self._stop_all(user)

    # -- the rules, through the engine ---------------------------------------------------------

    @paths.rule(
        user=paths.st.sampled_from(paths.USERS),
        cid=paths.st.sampled_from(paths.CONVERSATIONS),
        script=paths.BATCHES,
        answers=paths.st.lists(paths.st.booleans(), max_size=3),
    )
    def user_turn(self, user: str, cid: str, script: Any, answers: list[bool]) -> None:
        """A user says something; the model will play ``script``; the first confirmations
        are answered at once, each decision a message to the waiting workflow."""
        text = f"{user}/{cid}/{len(self.scripts)}"
        self.scripts[text] = script
        self.asked.setdefault((user, cid), []).append(text)

        async def work(durable: DurableAgent) -> None:
            result = await durable.run_turn(text, conversation_id=cid)
            for approved in answers:
                if result.pending_confirmation is None:
                    return
                result = await durable.decide(
                    cid, result.pending_confirmation.id, approved=approved
                )

        self._engine(user, work)

    @paths.rule(choice=paths.st.integers(0, 3), approved=paths.st.booleans())
    def decide(self, choice: int, approved: bool) -> None:
        """A person decides the call waiting in a conversation; the decision is sent to the
        turn's workflow."""
        waiting = self._waiting()
        if not waiting:
            return
        user, cid = waiting[choice % len(waiting)]

        async def work(durable: DurableAgent) -> None:
            pending = durable.agent.pending_confirmation(cid)
            if pending is not None:
                await durable.decide(cid, pending.id, approved=approved)

        self._engine(user, work)

    @paths.rule(
        user=paths.st.sampled_from(paths.USERS), cid=paths.st.sampled_from(paths.CONVERSATIONS)
    )
    def resume(self, user: str, cid: str) -> None:
        """Someone runs resume outside the engine (an operator's command)."""

        async def work(durable: DurableAgent) -> None:
            if durable.agent.exists(cid):
                await durable.agent.resume(cid)

        self._engine(user, work)


async def _bounded(work: Any) -> None:
    """A step of the machine never waits for ever (a turn waits for a person at most)."""
    try:
        await asyncio.wait_for(work, timeout=20)
    except ConfigurationError:  # a decision that lost the race to another one
        return


class DbosMachine(DbosHarness):
    """The real harness on DBOS."""


@pytest.fixture
def pg_schemas(pg_server: str, dbos_url: str) -> Any:  # noqa: F811 - the fixture
    """A fresh PostgreSQL schema per example, in the session's DBOS database."""
    import psycopg

    def postgresql() -> tuple[str, Any]:
        schema = "s_" + uuid.uuid4().hex[:12]
        with psycopg.connect(dbos_url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")

        def drop() -> None:
            with psycopg.connect(dbos_url, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")

        return f"{dbos_url}?options=-csearch_path%3D{schema}", drop

    return postgresql


def test_the_contract_holds_on_every_path_on_dbos(pg_schemas: Any) -> None:
    """Turns as workflows, decisions as messages, crashes at every commit (every step
    boundary), recoveries by the next process, resumes, reconciles, expired leases, two
    writers at once: every check holds after every step."""
    paths._run(pg_schemas, DbosMachine, EXAMPLES)


class RepeatsRunMachine(DbosHarness):
    agent_class = paths.RepeatsRunAgent


class OrdinalsRestartMachine(DbosHarness):
    agent_class = paths.OrdinalsRestartAgent


class DecisionsByCallIdMachine(DbosHarness):
    executor_class = paths.DecisionsByCallId
    agent_class = paths.DecisionsByCallIdAgent


@pytest.mark.parametrize(
    ("machine", "found"),
    [
        (DecisionsByCallIdMachine, "without approval of that call"),
        (OrdinalsRestartMachine, "two results for key"),
        (RepeatsRunMachine, "a repeated write ran again"),
    ],
)
def test_a_mutant_harness_fails_the_checks_on_dbos(
    machine: type[DbosHarness], found: str, pg_schemas: Any
) -> None:
    """The mutation controls, each turn a workflow: caught."""
    with pytest.raises(AssertionError, match=found):
        paths._run(pg_schemas, machine, 200, shrink=False)
